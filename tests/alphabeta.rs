//! Alpha-beta against its reference (plain negamax), and tic-tac-toe played perfectly.
//!
//! * Differential: on hundreds of random positions per game (random playouts of random
//!   length, fixed seed), `AlphaBeta` at depth `d` returns exactly `minimax(d)`'s value,
//!   and its move achieves that value.
//! * Oracle: tic-tac-toe is a draw (the game-theoretic value of the start position), so
//!   a perfect player never loses against any sequence of replies and draws against
//!   itself.

mod common;

use std::time::Duration;

use common::random_positions;
use parmcts::alphabeta::{minimax, AbError, AlphaBeta, Evaluate, Limits, EVAL_LIMIT, WIN};
use parmcts::games::othello::Othello;
use parmcts::{ConnectFour, Game, Outcome, Player, TicTacToe};

/// Alpha-beta (one searcher reused over every position, so the table carries over)
/// equals minimax at each depth, and its move is worth that value.
fn check_against_minimax<G: Evaluate>(seed: u64, count: usize, max_len: u32, max_depth: u32) {
    let mut search = AlphaBeta::<G>::new(1 << 14).unwrap();
    let mut checked = 0;
    for (i, game) in random_positions::<G>(seed, count, max_len).iter().enumerate() {
        for depth in 1..=max_depth {
            let (expected, _) = minimax(game, depth);
            let result = search.search(game, Limits::depth(depth)).unwrap();
            assert_eq!(result.score, expected, "{} position {i} depth {depth}:\n{}", G::NAME, game.render());
            let mut child = game.clone();
            child.try_play(result.best_move).unwrap();
            // The child's value one ply further from the root: win/loss scores move by one.
            let v = minimax(&child, depth - 1).0;
            let child_value = -(v - v.signum() * i32::from(v.abs() > EVAL_LIMIT));
            assert_eq!(child_value, expected, "{} position {i} depth {depth}: move does not keep the value", G::NAME);
            assert!(result.depth_reached <= depth && result.nodes > 0);
            checked += 1;
        }
    }
    assert_eq!(checked, count * max_depth as usize);
}

#[test]
fn tictactoe_alphabeta_equals_minimax() {
    check_against_minimax::<TicTacToe>(1, 300, 7, 4);
}

#[test]
fn connect4_alphabeta_equals_minimax() {
    check_against_minimax::<ConnectFour>(2, 300, 36, 4);
}

#[test]
fn othello_alphabeta_equals_minimax() {
    check_against_minimax::<Othello>(3, 200, 56, 3);
}

#[test]
fn tictactoe_full_depth_is_a_draw() {
    let game = TicTacToe::new();
    assert_eq!(minimax(&game, 9).0, 0);
    let result = AlphaBeta::new(1 << 12).unwrap().search(&game, Limits::depth(9)).unwrap();
    assert_eq!(result.score, 0);
    assert_eq!(result.depth_reached, 9);
}

/// Plays every line where `ab_side` follows alpha-beta and the opponent tries every
/// reply; returns the number of finished games. Panics if alpha-beta ever loses.
fn never_loses(game: TicTacToe, ab_side: Player, search: &mut AlphaBeta<TicTacToe>) -> usize {
    if let Some(outcome) = game.outcome() {
        assert_ne!(outcome, Outcome::Win(ab_side.other()), "alpha-beta lost:\n{}", game.render());
        return 1;
    }
    if game.side_to_move() == ab_side {
        let mv = search.search(&game, Limits::depth(9)).unwrap().best_move;
        let mut child = game;
        child.try_play(mv).unwrap();
        never_loses(child, ab_side, search)
    } else {
        game.legal_moves()
            .into_iter()
            .map(|mv| {
                let mut child = game;
                child.play_unchecked(mv);
                never_loses(child, ab_side, search)
            })
            .sum()
    }
}

#[test]
fn tictactoe_alphabeta_never_loses() {
    let mut search = AlphaBeta::new(1 << 14).unwrap();
    for side in [Player::One, Player::Two] {
        let games = never_loses(TicTacToe::new(), side, &mut search);
        assert!(games > 50, "{side:?}: only {games} games");
    }
}

#[test]
fn tictactoe_self_play_draws() {
    let mut search = AlphaBeta::new(1 << 14).unwrap();
    // From the start, and after each of X's nine first moves (all of them draw).
    let mut starts = vec![TicTacToe::new()];
    for mv in TicTacToe::new().legal_moves() {
        let mut game = TicTacToe::new();
        game.play_unchecked(mv);
        starts.push(game);
    }
    for mut game in starts {
        while game.outcome().is_none() {
            let mv = search.search(&game, Limits::depth(9)).unwrap().best_move;
            game.try_play(mv).unwrap();
        }
        assert_eq!(game.outcome(), Some(Outcome::Draw), "\n{}", game.render());
    }
}

#[test]
fn alphabeta_finds_a_forced_connect4_win() {
    // The side to move completes four in the bottom row at once.
    let game = ConnectFour::parse_position("112233").unwrap();
    let result = AlphaBeta::new(1 << 12).unwrap().search(&game, Limits::depth(6)).unwrap();
    assert_eq!(result.best_move, game.parse_move("4").unwrap());
    assert_eq!(result.score, WIN - 1);
    assert_eq!(result.depth_reached, 1, "a proven win stops the deepening");
}

#[test]
fn time_limited_search_returns_a_legal_move() {
    let game = Othello::new();
    let mut search = AlphaBeta::new(1 << 16).unwrap();
    let result = search.search(&game, Limits::time(Duration::from_millis(50))).unwrap();
    assert!(game.legal_moves().as_ref().contains(&result.best_move));
    assert!(result.depth_reached >= 1);
    assert!(result.elapsed < Duration::from_secs(2), "took {:?}", result.elapsed);
    let both = Limits { max_depth: Some(2), time: Some(Duration::from_secs(10)) };
    assert_eq!(search.search(&game, both).unwrap().depth_reached, 2);
}

#[test]
fn bad_limits_and_finished_games_are_errors() {
    let mut search = AlphaBeta::<TicTacToe>::new(16).unwrap();
    let game = TicTacToe::new();
    assert_eq!(search.search(&game, Limits::default()), Err(AbError::NoLimit));
    assert_eq!(search.search(&game, Limits::depth(0)), Err(AbError::ZeroDepth));
    assert_eq!(search.search(&game, Limits::time(Duration::ZERO)), Err(AbError::ZeroTime));
    let won = TicTacToe::parse_position("14253").unwrap();
    assert_eq!(search.search(&won, Limits::depth(3)), Err(AbError::GameOver));
    assert_eq!(AlphaBeta::<TicTacToe>::new(0).unwrap_err(), AbError::BadTableSize(0));
    assert!(!AbError::NoLimit.to_string().is_empty());
}
