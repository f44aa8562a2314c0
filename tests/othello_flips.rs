//! Othello's flip rule against a square-by-square reference, and random games that keep
//! the invariants of the disc counts and the flips (properties).

use parmcts::games::othello::{Othello, PASS};
use parmcts::games::{Game, Player};
use proptest::prelude::*;

/// A square-by-square reference for the flip rule, independent of the bitboard code:
/// the discs of `theirs` that `mine` flips by playing the empty square `sq`.
fn naive_flips(mine: u64, theirs: u64, sq: i32) -> u64 {
    let occupied = |bb: u64, f: i32, r: i32| (0..8).contains(&f) && (0..8).contains(&r) && bb >> (r * 8 + f) & 1 == 1;
    if (mine | theirs) >> sq & 1 == 1 {
        return 0;
    }
    let mut flipped = 0;
    for (df, dr) in [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)] {
        let (mut f, mut r, mut run) = (sq % 8 + df, sq / 8 + dr, 0u64);
        while occupied(theirs, f, r) {
            run |= 1 << (r * 8 + f);
            (f, r) = (f + df, r + dr);
        }
        if occupied(mine, f, r) {
            flipped |= run;
        }
    }
    flipped
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(200))]

    /// Random legal move sequences keep the invariants and end the game.
    #[test]
    fn random_games_keep_the_invariants(choices in prop::collection::vec(any::<u32>(), 130)) {
        let mut game = Othello::new();
        let mut plies = 0;
        for choice in choices {
            let moves = game.legal_moves();
            prop_assert_eq!(moves.is_empty(), game.outcome().is_some());
            if moves.is_empty() {
                break;
            }
            prop_assert!(moves.len() == 1 || !moves.contains(&PASS), "a pass is only forced");
            let mover = game.side_to_move();
            let (mine, theirs) = if mover == Player::One { (game.black(), game.white()) } else { (game.white(), game.black()) };
            let naive_mask = (0..64).filter(|&sq| naive_flips(mine, theirs, sq) != 0).fold(0u64, |m, sq| m | 1 << sq);
            prop_assert_eq!(game.legal_mask(), naive_mask, "{}", game.render());
            let mv = moves[choice as usize % moves.len()];
            let (black, white) = game.disc_counts();
            let mut next = game;
            next.try_play(mv).unwrap();
            prop_assert_eq!(next.black() & next.white(), 0);
            prop_assert_eq!(next.side_to_move(), mover.other());
            let (nb, nw) = next.disc_counts();
            if mv == PASS {
                prop_assert_eq!(game.legal_mask(), 0);
                prop_assert_eq!((nb, nw), (black, white));
            } else {
                // One disc placed, and the flipped discs (at least one) change colour.
                prop_assert_eq!(nb + nw, black + white + 1);
                let flips = game.flips(u32::from(mv.0));
                prop_assert_eq!(flips, naive_flips(mine, theirs, i32::from(mv.0)));
                prop_assert_eq!(next.black() | next.white(), game.black() | game.white() | 1 << mv.0);
                let flipped = flips.count_ones();
                prop_assert!(flipped >= 1);
                let (mine, theirs) = if mover == Player::One { (nb, nw) } else { (nw, nb) };
                let (was_mine, was_theirs) = if mover == Player::One { (black, white) } else { (white, black) };
                prop_assert_eq!((mine, theirs), (was_mine + 1 + flipped, was_theirs - flipped));
            }
            prop_assert_eq!(Othello::parse_position(&next.to_obf()), Ok(next));
            game = next;
            plies += 1;
        }
        // 60 squares, and a pass is never followed by another pass.
        prop_assert!(game.outcome().is_some(), "not over after {} plies", plies);
        prop_assert!(plies <= 120);
    }
}
