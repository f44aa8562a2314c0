//! The move-quality harness (`parmcts::harness::connect4::quality`) against Pascal Pons's benchmark
//! positions (`tests/data/connect4/`, provenance in its README): a perfect player keeps
//! every class, a spoiler that throws wins away keeps none it can spoil, random keeps
//! clearly fewer, and a strong MCTS player keeps (almost) all on easy endgames.

use std::path::Path;

use parmcts::harness::connect4::quality::{
    measure, measure_with, parse_positions, read_positions, QualityConfig, QualityError,
};
use parmcts::harness::players::{Agent, PlayerError};
use parmcts::solver::Solver;
use parmcts::{ConnectFour, Game, Move, Outcome};

const END_EASY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/connect4/Test_L3_R1");
const BEGIN_EASY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/connect4/Test_L1_R1");
const MIDDLE_EASY: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/connect4/Test_L2_R1");

/// The mover's exact score after `mv` (a fresh solve: independent of the harness).
fn after(solver: &mut Solver, game: &ConnectFour, mv: Move) -> i32 {
    let mut child = *game;
    child.try_play(mv).unwrap();
    match child.outcome() {
        Some(Outcome::Win(_)) => (43 - game.plies() as i32) / 2,
        Some(Outcome::Draw) => 0,
        None => -solver.solve_score(&child, false).unwrap().0,
    }
}

/// Plays the solver's best move.
struct Perfect(Solver);

impl Agent<ConnectFour> for Perfect {
    fn choose(&mut self, game: &ConnectFour) -> Result<Move, PlayerError> {
        self.0.solve(game, false).map_err(|_| PlayerError::GameOver)?.best_move.ok_or(PlayerError::GameOver)
    }
}

/// Plays the move with the worst exact score for itself.
struct Spoiler(Solver);

impl Agent<ConnectFour> for Spoiler {
    fn choose(&mut self, game: &ConnectFour) -> Result<Move, PlayerError> {
        let moves = game.legal_moves();
        moves.into_iter().min_by_key(|&mv| after(&mut self.0, game, mv)).ok_or(PlayerError::GameOver)
    }
}

fn solver_player<A: Agent<ConnectFour> + 'static>(
    wrap: fn(Solver) -> A,
) -> impl Fn(u64) -> Result<Box<dyn Agent<ConnectFour>>, PlayerError> + Sync {
    move |_| Ok(Box::new(wrap(Solver::new(1 << 16).unwrap())) as Box<dyn Agent<ConnectFour>>)
}

#[test]
fn a_perfect_player_keeps_every_class() {
    for (path, limit) in [(BEGIN_EASY, 50), (END_EASY, 100)] {
        let positions = read_positions(Path::new(path), Some(limit)).unwrap();
        let config = QualityConfig { parallel: 2, ..QualityConfig::default() };
        let report = measure_with(&positions, "perfect", solver_player(Perfect), &config, |_| {}).unwrap();
        assert_eq!(report.positions, limit as u64);
        assert_eq!(report.lost + report.judged, report.positions);
        assert!(report.judged >= limit as u64 / 2, "{path}: {report:?}");
        assert_eq!(report.kept, report.judged, "{path}: {:?}", report.failures);
        assert_eq!(report.fraction, Some(1.0));
        assert!(report.failures.is_empty());
        let [lo, hi] = report.ci95.unwrap();
        assert!(lo > 0.9 && hi == 1.0, "{lo} {hi}");
    }
}

/// End-Easy holds won and drawn positions: the spoiler keeps exactly those where every
/// move keeps the class, and each failure names a keeping move that really keeps it.
#[test]
fn a_spoiler_fails_and_the_failures_name_keeping_moves() {
    let positions = read_positions(Path::new(END_EASY), Some(60)).unwrap();
    let report =
        measure_with(&positions, "spoiler", solver_player(Spoiler), &QualityConfig::default(), |_| {}).unwrap();
    let mut solver = Solver::new(1 << 20).unwrap();
    let mut unspoilable = 0;
    for p in positions.iter().filter(|p| p.score >= 0) {
        let moves = p.game.legal_moves();
        let worst = moves.into_iter().map(|mv| after(&mut solver, &p.game, mv)).min().unwrap();
        unspoilable += u64::from(if p.score > 0 { worst > 0 } else { worst >= 0 });
    }
    assert!(report.won.positions > 5 && report.drawn.positions > 5, "{report:?}");
    assert_eq!(report.kept, unspoilable);
    assert!(report.failures.len() as u64 == report.judged - unspoilable && !report.failures.is_empty());
    for f in &report.failures {
        let p = positions.iter().find(|p| p.line == f.line).unwrap();
        assert_eq!((f.moves.as_str(), f.score), (p.moves.as_str(), p.score));
        let chosen = p.game.parse_move(&f.chosen).unwrap();
        let keeping = p.game.parse_move(&f.keeping).unwrap();
        assert_eq!(after(&mut solver, &p.game, chosen), f.score_after, "line {}", f.line);
        let kept_after = after(&mut solver, &p.game, keeping);
        assert!(if p.score > 0 { kept_after > 0 } else { kept_after >= 0 }, "line {}: {kept_after}", f.line);
        assert!(if p.score > 0 { f.score_after <= 0 } else { f.score_after < 0 }, "line {}", f.line);
    }
}

/// Random moves lose clearly more Begin-Easy wins than a strong player: on the first 50
/// positions (37 won, 13 lost) random with seed 1 keeps 25 of 37 (0.68), MCTS with
/// 100,000 playouts at least 95 %.
#[test]
fn random_keeps_clearly_fewer_on_middle_easy() {
    // Middle-game positions: solving them after a random move stays cheap (from the
    // opening positions it took 20-40 s).
    let positions = read_positions(Path::new(MIDDLE_EASY), Some(50)).unwrap();
    let config = QualityConfig { seed: 1, parallel: 2, ..QualityConfig::default() };
    let report = measure(&positions, "random", &config, |_| {}).unwrap();
    assert_eq!((report.positions, report.lost, report.judged), (50, 24, 26));
    let fraction = report.fraction.unwrap();
    assert!(fraction < 0.9, "random kept {fraction}");
    assert!(report.ci95.unwrap()[1] < 0.95, "{:?}", report.ci95);
    assert_eq!(report.failures.len() as u64, report.judged - report.kept);
    // A strong player on the same positions and seed keeps at least 95 %.
    let strong = measure(&positions, "mcts:playouts=100000", &config, |_| {}).unwrap();
    assert_eq!(strong.judged, 26);
    assert!(strong.fraction.unwrap() >= 0.95, "{:?}", strong.failures);
}

/// A strong MCTS player keeps (almost) every class on easy endgames, and with a playout
/// budget the report does not depend on the number of workers.
#[test]
fn mcts_keeps_endgame_classes_whatever_the_parallelism() {
    let positions = read_positions(Path::new(END_EASY), Some(20)).unwrap();
    let run = |parallel| {
        let config = QualityConfig { seed: 7, parallel, ..QualityConfig::default() };
        measure(&positions, "mcts:playouts=20000", &config, |_| {}).unwrap()
    };
    let (one, two) = (run(1), run(2));
    assert!(one.judged >= 10, "{one:?}");
    assert!(one.fraction.unwrap() >= 0.95, "{one:?}");
    assert_eq!((one.kept, &one.failures), (two.kept, &two.failures));
    assert!(one.mean_move_ms.unwrap() > 0.0);
}

/// The solver checks the file: a wrong score is an error naming the line, and so are
/// bad specs and settings.
#[test]
fn wrong_scores_and_bad_settings_are_errors() {
    let positions = parse_positions("32164625 11\n6146 17\n", "t", None).unwrap();
    let e = measure(&positions, "random", &QualityConfig::default(), |_| {}).unwrap_err();
    assert_eq!(e, QualityError::ScoreMismatch { line: 2, moves: "6146".into(), file: 17, solver: 18 });
    assert!(e.to_string().contains("line 2"), "{e}");
    assert!(matches!(measure(&positions, "bogus", &QualityConfig::default(), |_| {}), Err(QualityError::Spec(_))));
    let zero = QualityConfig { parallel: 0, ..QualityConfig::default() };
    assert_eq!(measure(&positions, "random", &zero, |_| {}), Err(QualityError::ZeroParallel));
    let no_table = QualityConfig { tt_entries: 0, ..QualityConfig::default() };
    assert!(matches!(measure(&positions, "random", &no_table, |_| {}), Err(QualityError::Solver(_))));
    let e = read_positions(Path::new("/nonexistent/positions"), None).unwrap_err();
    assert!(e.to_string().contains("/nonexistent/positions"), "{e}");
}
