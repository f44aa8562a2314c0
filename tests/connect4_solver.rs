//! The Connect Four solver against an external oracle.
//!
//! Oracle: Pascal Pons's benchmark positions with exact scores, "Solving Connect 4: how
//! to build a perfect AI", Part 2 "Test protocol"
//! (http://blog.gamesolver.org/solving-connect-four/02-test-protocol/), copied verbatim
//! in `tests/data/connect4/` (provenance, hashes and the score convention in its
//! README.md). The files are read at test time:
//! `Test_L3_R1` (End-Easy), `Test_L2_R1` (Middle-Easy), `Test_L1_R1` (Begin-Easy).

use parmcts::solver::{SolveError, Solver};
use parmcts::{ConnectFour, Game, Outcome};

const END_EASY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/connect4/Test_L3_R1");
const MIDDLE_EASY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/connect4/Test_L2_R1");
const BEGIN_EASY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/connect4/Test_L1_R1");

/// Table size for the tests: 2^20 + 7 entries (prime, 8 MiB).
const TT_ENTRIES: usize = (1 << 20) + 7;

/// (position, moves text, score) per line of a test file.
fn positions(path: &str) -> Vec<(ConnectFour, String, i32)> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    let rows: Vec<_> = text
        .lines()
        .filter(|l| !l.trim().is_empty())
        .map(|line| {
            let (moves, score) = line.split_once(' ').unwrap_or_else(|| panic!("bad line '{line}'"));
            let game = ConnectFour::parse_position(moves).unwrap_or_else(|e| panic!("{moves}: {e}"));
            (game, moves.to_string(), score.trim().parse().unwrap())
        })
        .collect();
    assert_eq!(rows.len(), 1000, "{path}");
    rows
}

/// Solves every `step`-th position strongly and checks the exact score.
fn check_strong(path: &str, step: usize) {
    let mut solver = Solver::new(TT_ENTRIES).unwrap();
    let mut checked = 0;
    for (game, moves, expected) in positions(path).into_iter().step_by(step) {
        let (score, _nodes) = solver.solve_score(&game, false).unwrap();
        assert_eq!(score, expected, "{moves}");
        checked += 1;
    }
    assert_eq!(checked, 1000 / step);
}

#[test]
fn end_easy_all_strong() {
    check_strong(END_EASY, 1);
}

#[test]
fn middle_easy_all_strong() {
    check_strong(MIDDLE_EASY, 1);
}

#[test]
fn begin_easy_sample_strong() {
    check_strong(BEGIN_EASY, 10);
}

#[test]
fn weak_sign_on_a_sample() {
    let mut solver = Solver::new(TT_ENTRIES).unwrap();
    for (path, step) in [(END_EASY, 5), (MIDDLE_EASY, 5), (BEGIN_EASY, 50)] {
        for (game, moves, expected) in positions(path).into_iter().step_by(step) {
            let (sign, _) = solver.solve_score(&game, true).unwrap();
            assert_eq!(sign, expected.signum(), "{moves}");
        }
    }
}

/// After the reported best move, the child's exact score is minus the parent's (the
/// negamax identity), and the move is legal. Strong and weak.
#[test]
fn best_move_keeps_the_value() {
    let mut solver = Solver::new(TT_ENTRIES).unwrap();
    let mut fresh = Solver::new(TT_ENTRIES).unwrap();
    for (path, step) in [(END_EASY, 10), (MIDDLE_EASY, 10), (BEGIN_EASY, 50)] {
        for (game, moves, expected) in positions(path).into_iter().step_by(step) {
            for weak in [false, true] {
                let result = solver.solve(&game, weak).unwrap();
                let want = if weak { expected.signum() } else { expected };
                assert_eq!(result.score, want, "{moves} weak={weak}");
                let mv = result.best_move.unwrap_or_else(|| panic!("{moves}: no best move"));
                let mut child = game;
                child.try_play(mv).unwrap_or_else(|e| panic!("{moves}: {e}"));
                let child_score = match child.outcome() {
                    // A winning move ends the game: it must be the quickest win there is.
                    Some(Outcome::Win(_)) => {
                        assert_eq!(expected, (43 - game.plies() as i32) / 2, "{moves}");
                        -expected
                    }
                    Some(Outcome::Draw) => 0,
                    None => fresh.solve_score(&child, false).unwrap().0,
                };
                if weak {
                    assert_eq!(child_score.signum(), -want, "{moves} weak: move {}", mv.0 + 1);
                } else {
                    assert_eq!(child_score, -expected, "{moves}: move {}", mv.0 + 1);
                }
            }
        }
    }
}

#[test]
fn table_reuse_and_reset_give_the_same_scores() {
    let rows = positions(MIDDLE_EASY);
    let mut solver = Solver::new(TT_ENTRIES).unwrap();
    for (game, moves, expected) in rows.iter().take(100) {
        solver.reset();
        assert_eq!(solver.solve_score(game, false).unwrap().0, *expected, "{moves}");
    }
    // A tiny table (heavy collisions) is slower but still exact.
    let mut tiny = Solver::new(97).unwrap();
    assert_eq!(tiny.tt_entries(), 97);
    for (game, moves, expected) in rows.iter().take(30) {
        assert_eq!(tiny.solve_score(game, false).unwrap().0, *expected, "{moves}");
    }
}

#[test]
fn published_examples_and_errors() {
    let mut solver = Solver::new(1 << 16).unwrap();
    // The two examples of the source page (see the data README).
    for (moves, score) in [("4455", 18), ("44455554221", -15)] {
        let game = ConnectFour::parse_position(moves).unwrap();
        assert_eq!(solver.solve(&game, false).unwrap().score, score, "{moves}");
    }
    let four = ConnectFour::parse_position("1212121").unwrap();
    assert_eq!(solver.solve(&four, true), Err(SolveError::GameOver));
    assert!(Solver::new(0).is_err());
    assert!(!SolveError::GameOver.to_string().is_empty());
}
