//! The Connect Four solver against an external oracle.
//!
//! Oracle: Pascal Pons's benchmark positions with exact scores, "Solving Connect 4: how
//! to build a perfect AI", Part 2 "Test protocol"
//! (http://blog.gamesolver.org/solving-connect-four/02-test-protocol/), copied verbatim
//! in `tests/data/connect4/` (provenance, hashes and the score convention in its
//! README.md). The files are read at test time:
//! `Test_L3_R1` (End-Easy), `Test_L2_R1` (Middle-Easy), `Test_L1_R1` (Begin-Easy).

use parmcts::solver::{Endgame, SolveError, Solver};
use parmcts::{ConnectFour, Game, Outcome, Player};

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

/// The outcome of a position whose score (Pons's convention, any scale) is `score` for
/// `mover`, the side to move.
fn outcome_of(score: i32, mover: Player) -> Outcome {
    match score.signum() {
        1 => Outcome::Win(mover),
        0 => Outcome::Draw,
        _ => Outcome::Win(mover.other()),
    }
}

/// `Endgame::solve_value` (what `train-network --solver-nodes` labels positions with) is
/// the weak sign's outcome for the side to move, and gives up on a tiny budget.
#[test]
fn solve_value_is_the_weak_outcome() {
    for (path, step) in [(END_EASY, 25), (MIDDLE_EASY, 25), (BEGIN_EASY, 100)] {
        for (game, moves, expected) in positions(path).into_iter().step_by(step) {
            assert_eq!(game.solve_value(u64::MAX), Some(outcome_of(expected, game.side_to_move())), "{moves}");
        }
    }
    let (hard, moves, _) = positions(BEGIN_EASY).swap_remove(1); // not solved above
    assert_eq!(hard.solve_value(1), None, "{moves}");
}

/// `Endgame::solve_endgame` (what the MCTS player's root solver, `endgame=NODES`, plays):
/// the outcome for the side to move, and a move after which the opponent's exact score
/// has the opposite sign, so the position's value is kept; gives up on a tiny budget.
#[test]
fn solve_endgame_keeps_the_value() {
    let mut exact = Solver::new(TT_ENTRIES).unwrap();
    for (path, step) in [(END_EASY, 25), (MIDDLE_EASY, 25), (BEGIN_EASY, 100)] {
        for (game, moves, expected) in positions(path).into_iter().step_by(step) {
            let solved = game.solve_endgame(u64::MAX).unwrap_or_else(|| panic!("{moves}: gave up"));
            assert_eq!(solved.outcome, outcome_of(expected, game.side_to_move()), "{moves}");
            let mv = solved.best_move.unwrap_or_else(|| panic!("{moves}: no move"));
            let mut child = game;
            child.try_play(mv).unwrap_or_else(|e| panic!("{moves}: {e}"));
            let child_sign = match child.outcome() {
                Some(Outcome::Win(_)) => -1,
                Some(Outcome::Draw) => 0,
                None => exact.solve_score(&child, true).unwrap().0,
            };
            if expected >= 0 {
                assert_eq!(child_sign, -expected.signum(), "{moves}: move {}", mv.0 + 1);
            }
        }
    }
    let (hard, moves, _) = positions(BEGIN_EASY).swap_remove(1);
    assert!(hard.solve_endgame(1).is_none(), "{moves}");
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

/// With a budget it does not exhaust, `solve_within` is `solve` (score, move and node
/// counts); one node less than the solve needs and it gives up. Both from a fresh table,
/// strong and weak.
#[test]
fn budget_equals_solve_when_enough_and_gives_up_one_node_short() {
    let mut gave_up = 0;
    for (path, step) in [(END_EASY, 50), (MIDDLE_EASY, 50), (BEGIN_EASY, 50)] {
        for (game, moves, expected) in positions(path).into_iter().step_by(step) {
            // Weak best moves of Begin-Easy positions take up to seconds: strong only there.
            let modes: &[bool] = if path == BEGIN_EASY { &[false] } else { &[false, true] };
            for &weak in modes {
                let mut plain = Solver::new(TT_ENTRIES).unwrap();
                let full = plain.solve(&game, weak).unwrap();
                assert_eq!(full.score, if weak { expected.signum() } else { expected }, "{moves}");
                let needed = full.nodes + full.move_nodes;
                let mut budgeted = Solver::new(TT_ENTRIES).unwrap();
                assert_eq!(budgeted.solve_within(&game, weak, needed).unwrap(), Some(full), "{moves} weak={weak}");
                let mut large = Solver::new(TT_ENTRIES).unwrap();
                assert_eq!(large.solve_within(&game, weak, u64::MAX).unwrap(), Some(full), "{moves} weak={weak}");
                if needed > 0 {
                    let mut short = Solver::new(TT_ENTRIES).unwrap();
                    assert_eq!(short.solve_within(&game, weak, needed - 1).unwrap(), None, "{moves} weak={weak}");
                    gave_up += 1;
                }
            }
        }
    }
    assert!(gave_up >= 40, "only {gave_up} solves needed any node");
}

/// A tiny budget gives up at once; a position won on the next move needs no node.
#[test]
fn tiny_budget_gives_up() {
    let mut solver = Solver::new(TT_ENTRIES).unwrap();
    for (game, moves, _) in positions(BEGIN_EASY).into_iter().take(20) {
        assert_eq!(solver.solve_within(&game, false, 0).unwrap(), None, "{moves}");
        assert_eq!(solver.solve_within(&game, true, 1).unwrap(), None, "{moves}");
    }
    let win_now = ConnectFour::parse_position("112233").unwrap(); // the first player wins in column 4
    let result = solver.solve_within(&win_now, false, 0).unwrap().expect("no search needed");
    assert_eq!((result.score, result.nodes, result.move_nodes), (18, 0, 0));
    let over = ConnectFour::parse_position("1212121").unwrap();
    assert_eq!(solver.solve_within(&over, false, 100), Err(SolveError::GameOver));
}

/// Aborted solves leave the table valid: after giving up on each position at several
/// budgets (without a reset), a full solve from that same table still gives Pons's
/// exact score, and a budgeted solve that finishes agrees with it.
#[test]
fn aborted_solves_leave_the_table_exact() {
    let mut solver = Solver::new(TT_ENTRIES).unwrap();
    let mut aborted = 0;
    for (path, step) in [(MIDDLE_EASY, 20), (BEGIN_EASY, 10)] {
        for (game, moves, expected) in positions(path).into_iter().step_by(step) {
            for budget in [1, 10, 100, 1_000, 10_000] {
                for weak in [false, true] {
                    match solver.solve_within(&game, weak, budget).unwrap() {
                        None => aborted += 1,
                        Some(r) => assert_eq!(r.score, if weak { expected.signum() } else { expected }, "{moves}"),
                    }
                }
            }
            assert_eq!(solver.solve(&game, false).unwrap().score, expected, "{moves}");
            assert_eq!(solver.solve_score(&game, true).unwrap().0, expected.signum(), "{moves}");
        }
    }
    // Most of these budgets are too small: the test exercises aborts.
    assert!(aborted > 500, "only {aborted} aborted solves");
}

/// A small table is overwritten often: aborts mixed with collisions stay exact too.
#[test]
fn aborted_solves_with_a_tiny_table_stay_exact() {
    let mut solver = Solver::new(97).unwrap();
    for (game, moves, expected) in positions(MIDDLE_EASY).into_iter().step_by(25) {
        for budget in [5, 50, 500] {
            let _ = solver.solve_within(&game, false, budget).unwrap();
        }
        assert_eq!(solver.solve(&game, false).unwrap().score, expected, "{moves}");
    }
}
