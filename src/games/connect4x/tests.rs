use super::*;
use crate::games::roulette;
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// The reference: whether a stone of `player` at the empty cell (`col`, `row`) would
/// make four in a row, by walking the four lines through it cell by cell.
fn completes_four_by_walking(game: &ConnectFourBoard, player: Player, col: i32, row: i32) -> bool {
    let has = |c: i32, r: i32| c >= 0 && r >= 0 && game.cell(c as u32, r as u32) == Some(player);
    [(0, 1), (1, 0), (1, 1), (1, -1)].iter().any(|&(dc, dr)| {
        let mut count = 1;
        for sign in [1, -1] {
            let (mut c, mut r) = (col + sign * dc, row + sign * dr);
            while count < 4 && has(c, r) {
                count += 1;
                c += sign * dc;
                r += sign * dr;
            }
        }
        count >= 4
    })
}

/// The reference class of move `col`, by walking.
fn class_by_walking(game: &ConnectFourBoard, col: u32) -> MoveClass {
    let me = game.side_to_move();
    let (c, r) = (col as i32, i32::from(game.stones.next[col as usize]));
    if completes_four_by_walking(game, me, c, r) {
        MoveClass::Win
    } else if completes_four_by_walking(game, me.other(), c, r) {
        MoveClass::Block
    } else if r + 1 < game.height() as i32 && completes_four_by_walking(game, me.other(), c, r + 1) {
        MoveClass::Gift
    } else if r + 1 < game.height() as i32 && completes_four_by_walking(game, me, c, r + 1) {
        MoveClass::Spoil
    } else {
        MoveClass::Plain
    }
}

/// The boards of every size, half with a blocked cell.
fn boards(rng: &mut Xoshiro256PlusPlus) -> Vec<ConnectFourBoard> {
    let mut boards = Vec::new();
    for width in 4..=12 {
        for height in 4..=12 {
            boards.push(ConnectFourBoard::try_new(width, height, None).unwrap());
            let blocked = (random_below(rng, width), random_below(rng, height));
            boards.push(ConnectFourBoard::try_new(width, height, Some(blocked)).unwrap());
        }
    }
    boards
}

#[test]
fn bitboard_classes_wins_and_hash_match_a_walk_on_every_size() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(41);
    let mut seen = [0u32; 5];
    for board in boards(&mut rng) {
        for _ in 0..6 {
            let mut game = board;
            while game.outcome().is_none() {
                for mv in game.legal_moves() {
                    let col = u32::from(mv.0);
                    let class = class_by_walking(&game, col);
                    assert_eq!(game.class(col), class, "column {col}\n{}", game.render());
                    assert_eq!(game.is_winning_move(col), class == MoveClass::Win);
                    seen[class as usize] += 1;
                }
                // The hash of the per-column words (bit `row`) it always had.
                let mut x = (u64::from(game.width) << 8 | u64::from(game.height)) << 16
                    | u64::from(game.blocked_col) << 8
                    | u64::from(game.blocked_row);
                for col in 0..game.width() {
                    let column = |player| {
                        (0..game.height())
                            .filter(|&row| game.cell(col, row) == Some(player))
                            .map(|row| 1 << row)
                            .sum::<u64>()
                    };
                    x = (x ^ (column(Player::One) | column(Player::Two) << 16)).wrapping_mul(0x9E37_79B9_7F4A_7C15);
                    x ^= x >> 29;
                }
                assert_eq!(game.hash(), x);
                let moves = game.legal_moves();
                game.play_unchecked(moves[random_below(&mut rng, moves.len() as u32) as usize]);
            }
        }
    }
    // Every class was met.
    assert!(seen.iter().all(|&n| n > 0), "{seen:?}");
}

/// Plays `game` to the end with `pick` choosing among the legal moves; the final
/// position and its outcome.
fn play_out_with(
    mut game: ConnectFourBoard,
    rng: &mut Xoshiro256PlusPlus,
    mut pick: impl FnMut(&ConnectFourBoard, &mut [Move], &mut Xoshiro256PlusPlus) -> Move,
) -> (ConnectFourBoard, Outcome) {
    loop {
        if let Some(outcome) = game.outcome() {
            return (game, outcome);
        }
        let mut moves = game.legal_moves();
        let mv = pick(&game, moves.as_mut(), rng);
        game.play_unchecked(mv);
    }
}

#[test]
fn playouts_on_every_word_play_the_trait_loops_games() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(42);
    for board in boards(&mut rng) {
        for seed in 0..4 {
            let fresh = || Xoshiro256PlusPlus::seed_from_u64(seed);
            // Random: a column by rejection.
            let mut game = board;
            let outcome = game.random_playout(&mut fresh());
            let rejection = |g: &ConnectFourBoard, _: &mut [Move], rng: &mut Xoshiro256PlusPlus| loop {
                let col = random_below(rng, g.width());
                if g.can_play(col) {
                    break Move(col as u16);
                }
            };
            assert_eq!((game, outcome), play_out_with(board, &mut fresh(), rejection));
            // Biased: the roulette wheel of the action values.
            let mut game = board;
            let outcome = game.biased_playout(&mut fresh());
            let wheel = |g: &ConnectFourBoard, moves: &mut [Move], rng: &mut _| roulette(g, moves, rng);
            assert_eq!((game, outcome), play_out_with(board, &mut fresh(), wheel));
            // Every recorded policy against the trait's loop.
            for (prune, biased) in [(true, true), (true, false), (false, true), (false, false)] {
                let policy = PlayoutPolicy { biased, prune, ..PlayoutPolicy::default() };
                let (mut game, mut played) = (board, MovesPlayed::default());
                let outcome = game.recorded_playout(&mut fresh(), policy, &mut played);
                let (mut expected, mut expected_played) = (board, MovesPlayed::default());
                let expected_outcome = recorded_play_out(&mut expected, &mut fresh(), policy, &mut expected_played);
                assert_eq!((game, outcome, played), (expected, expected_outcome, expected_played));
            }
        }
    }
}

#[test]
fn stones_land_on_the_blocked_cell() {
    let mut g = ConnectFourBoard::parse_position("4x4@1,2: 1").unwrap();
    assert_eq!(g.cell(0, 2), Some(Player::One));
    assert_eq!(g.cell(0, 0), None);
    g.play_unchecked(Move(0));
    assert_eq!(g.cell(0, 3), Some(Player::Two));
    assert!(!g.can_play(0));
    assert_eq!(g.playable_cells(), 14);
    assert_eq!(g.board_text(), "4x4@1,2");
}

#[test]
fn headers_round_trip_and_bad_ones_are_named() {
    let g = ConnectFourBoard::parse_board("12x9@12,9").unwrap();
    assert_eq!((g.width(), g.height(), g.blocked()), (12, 9, Some((11, 8))));
    assert_eq!(ConnectFourBoard::parse_board("13x9"), Err(BoardError::Width(13)));
    assert_eq!(ConnectFourBoard::parse_board("9x3"), Err(BoardError::Height(3)));
    assert_eq!(ConnectFourBoard::parse_board("9x9@10,1"), Err(BoardError::Blocked { col: 10, row: 1 }));
    assert!(matches!(ConnectFourBoard::parse_board("9by9"), Err(BoardError::Malformed(_))));
}
