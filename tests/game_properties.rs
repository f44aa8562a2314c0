//! Properties of every game through the `Game` trait (proptest): legal moves are legal
//! and play cleanly, a position has moves exactly when it is not over, games terminate
//! within their maximum length, move text round-trips, and hashes agree on transpositions.

use parmcts::{ConnectFour, Game, Go13, Go9, Hex, Hex11, Othello, TicTacToe};
use proptest::prelude::*;

/// Plays the move chosen by each selector (modulo the number of legal moves) until the
/// game ends, checking the invariants at every ply. Returns the plies played.
fn walk<G: Game + PartialEq>(selectors: &[u8], max_plies: usize) -> usize {
    let mut game = G::new();
    let mut plies = 0;
    for &s in selectors.iter().cycle() {
        let moves = game.legal_moves();
        let moves = moves.as_ref();
        assert_eq!(moves.is_empty(), game.outcome().is_some(), "moves exist exactly while the game is on");
        if moves.is_empty() {
            break;
        }
        let mut unique = moves.to_vec();
        unique.sort();
        unique.dedup();
        assert_eq!(unique.len(), moves.len(), "no duplicate moves");
        let mv = moves[s as usize % moves.len()];
        let text = game.format_move(mv);
        assert_eq!(game.parse_move(&text), Ok(mv), "move text round-trips: {text}");
        let mut checked = game.clone();
        checked.try_play(mv).expect("a generated move is legal");
        game.play_unchecked(mv);
        assert!(checked == game, "try_play and play_unchecked agree");
        plies += 1;
        assert!(plies <= max_plies, "{} ran past {max_plies} plies", G::NAME);
    }
    let mut after = game;
    assert!(after.try_play(parmcts::Move(0)).is_err(), "nothing can be played after the end");
    plies
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(300))]

    #[test]
    fn tictactoe_games_are_well_formed(selectors in prop::collection::vec(any::<u8>(), 1..12)) {
        prop_assert!(walk::<TicTacToe>(&selectors, 9) >= 5);
    }

    #[test]
    fn connect4_games_are_well_formed(selectors in prop::collection::vec(any::<u8>(), 1..50)) {
        prop_assert!(walk::<ConnectFour>(&selectors, 42) >= 7);
    }

    #[test]
    fn othello_games_are_well_formed(selectors in prop::collection::vec(any::<u8>(), 1..80)) {
        // 60 discs at most, plus forced passes (never two in a row).
        prop_assert!(walk::<Othello>(&selectors, 120) >= 9);
    }

    #[test]
    fn hex_games_are_well_formed(selectors in prop::collection::vec(any::<u8>(), 1..130)) {
        // A win needs 11 stones (21 plies); the board holds 121.
        prop_assert!(walk::<Hex11>(&selectors, 121) >= 21);
        prop_assert!(walk::<Hex<4>>(&selectors, 16) >= 7);
    }

    #[test]
    fn hex_transpositions_hash_alike(a in 0u16..121, b in 0u16..121, c in 0u16..121, d in 0u16..121) {
        prop_assume!(a != b && a != c && b != c && d != a && d != b && d != c);
        let mut x = Hex11::new();
        let mut y = Hex11::new();
        for mv in [a, c, b, d] { x.play_unchecked(parmcts::Move(mv)); }
        for mv in [b, c, a, d] { y.play_unchecked(parmcts::Move(mv)); }
        prop_assert_eq!(x.hash(), y.hash());
        prop_assert_eq!(x, y);
        let mut z = Hex11::new();
        for mv in [a, c, b] { z.play_unchecked(parmcts::Move(mv)); }
        prop_assert_ne!(z.hash(), x.hash());
    }

    #[test]
    fn connect4_transpositions_hash_alike(a in 0u16..7, b in 0u16..7, c in 0u16..7) {
        // Swapping the first player's two moves reaches the same position (unless the
        // second player's stone shares a column with one of them, which changes the stacking).
        prop_assume!(b != a && b != c);
        let mut x = ConnectFour::new();
        let mut y = ConnectFour::new();
        for mv in [a, b, c] { x.play_unchecked(parmcts::Move(mv)); }
        for mv in [c, b, a] { y.play_unchecked(parmcts::Move(mv)); }
        prop_assert_eq!(x.hash(), y.hash());
        prop_assert_eq!(x, y);
    }
}

proptest! {
    // Go's random games run to the length cap (3 N² plies) and check superko at every ply:
    // fewer cases.
    #![proptest_config(ProptestConfig::with_cases(24))]

    #[test]
    fn go_games_are_well_formed(selectors in prop::collection::vec(any::<u8>(), 1..300)) {
        prop_assert!(walk::<Go9>(&selectors, Go9::MAX_PLIES as usize) >= 2);
    }

    #[test]
    fn go13_games_are_well_formed(selectors in prop::collection::vec(any::<u8>(), 1..100)) {
        prop_assert!(walk::<Go13>(&selectors, Go13::MAX_PLIES as usize) >= 2);
    }

    #[test]
    fn go_transpositions_hash_alike(a in 0u16..81, b in 0u16..81, c in 0u16..81, d in 0u16..81) {
        // Black's two stones in either order around White's (captures included: the
        // stones are distinct points, so both orders capture the same).
        prop_assume!(a != b && a != c && b != c && d != a && d != b && d != c);
        let mut x = Go9::new();
        let mut y = Go9::new();
        for mv in [a, c, b, d] { prop_assume!(x.try_play(parmcts::Move(mv)).is_ok()); }
        for mv in [b, c, a, d] { prop_assume!(y.try_play(parmcts::Move(mv)).is_ok()); }
        prop_assert_eq!(x.hash(), y.hash());
        prop_assert_eq!(x.render(), y.render());
    }
}
