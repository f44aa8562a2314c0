//! Move quality against the exact Connect Four solver: does a player's move keep the
//! position's game-theoretic class?
//!
//! The positions come in Pascal Pons's benchmark format (`<moves> <score>` per line,
//! columns 1-7; `tests/data/connect4/README.md`). For each one the player chooses a
//! move and the exact solver ([`crate::solver::Solver`], strong) scores the position
//! after it:
//! * a **won** position (score > 0) is kept when the mover still wins after the move;
//! * a **drawn** one (score 0) is kept when the mover at least draws;
//! * a **lost** one (score < 0) is counted apart and not played: every move loses
//!   against perfect play, so it says nothing about the move.
//!
//! The kept fraction carries a 95 % Wilson score interval (binomial: kept or not).
//! The file's score is not taken on trust: the solver solves every position and a
//! disagreement is an error naming the line. The solver also gives a move that keeps
//! the class for each failure.
//!
//! Each position gets its own player built from the spec with a seed that depends only
//! on the run's seed and the position's index, so players that are deterministic given
//! their seed (a playout budget, one search thread) give the same report whatever the
//! number of parallel workers. Move times are wall-clock times of
//! [`Agent::choose`]: with more workers than free cores they grow.
//!
//! # Examples
//! ```
//! use parmcts::harness::connect4::quality::{measure, parse_positions, QualityConfig};
//!
//! // Two won positions of Pons's Begin-Easy set and a lost one.
//! let positions = parse_positions("32164625 11\n6146 18\n44455554221 -15\n", "example", None)?;
//! let report = measure(&positions, "mcts:playouts=2000", &QualityConfig::default(), |_| {})?;
//! assert_eq!((report.positions, report.lost, report.judged), (3, 1, 2));
//! assert_eq!(report.kept + report.failures.len() as u64, 2);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

mod positions;
#[cfg(test)]
mod tests;

use std::fmt;
use std::time::Instant;

use rayon::iter::{IndexedParallelIterator, IntoParallelRefIterator, ParallelIterator};
use serde::Serialize;

use crate::games::{one_line, ConnectFour, Game, Move, Outcome};
use crate::harness::matches::Tally;
use crate::harness::players::{Agent, PlayerError, PlayerSpec, SpecError};
use crate::harness::pool::{worker_pool, PoolStartError};
use crate::solver::connect4::{SolveError, Solver, DEFAULT_TT_ENTRIES};

pub use positions::{parse_positions, read_positions, Class, ScoredPosition};

/// Errors of the move-quality harness, naming the bad file, line or value.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum QualityError {
    /// The positions file could not be read.
    Unreadable {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
    /// A line that is not `<moves> <score>` with a legal, unfinished position and a
    /// score in Pons's range.
    Malformed {
        /// The file (or the name the text was given).
        source: String,
        /// The line number (1-based).
        line: usize,
        /// The line's text.
        text: String,
        /// What is wrong with it.
        reason: String,
    },
    /// The file holds no position.
    NoPositions {
        /// The file (or the name the text was given).
        source: String,
    },
    /// The solver disagrees with the file's score.
    ScoreMismatch {
        /// The line number (1-based).
        line: usize,
        /// The move sequence.
        moves: String,
        /// The file's score.
        file: i32,
        /// The solver's score.
        solver: i32,
    },
    /// The player spec does not parse.
    Spec(SpecError),
    /// The player could not be built or could not move.
    Player {
        /// The line of the position (0 when building the player failed before any).
        line: usize,
        /// Why.
        error: PlayerError,
    },
    /// The player chose an illegal move.
    IllegalMove {
        /// The line of the position.
        line: usize,
        /// The move sequence.
        moves: String,
        /// The move chosen (0-based column).
        chosen: u16,
    },
    /// The solver's table could not be allocated.
    Solver(SolveError),
    /// Zero parallel workers.
    ZeroParallel,
    /// The worker pool could not start.
    ThreadPool(PoolStartError),
}

impl fmt::Display for QualityError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            QualityError::Unreadable { path, reason } => {
                write!(f, "cannot read positions file '{}': {reason}", one_line(path))
            }
            QualityError::Malformed { source, line, text, reason } => {
                write!(f, "{}, line {line}: '{}': {}", one_line(source), one_line(text), one_line(reason))
            }
            QualityError::NoPositions { source } => write!(f, "{}: no positions", one_line(source)),
            QualityError::ScoreMismatch { line, moves, file, solver } => {
                write!(f, "line {line} ('{moves}'): the file's score is {file} but the solver finds {solver}")
            }
            QualityError::Spec(e) => e.fmt(f),
            QualityError::Player { line: 0, error } => error.fmt(f),
            QualityError::Player { line, error } => write!(f, "line {line}: {error}"),
            QualityError::IllegalMove { line, moves, chosen } => {
                write!(f, "line {line} ('{moves}'): the player chose the illegal column {}", chosen + 1)
            }
            QualityError::Solver(e) => e.fmt(f),
            QualityError::ZeroParallel => write!(f, "parallel workers must be at least 1 (got 0)"),
            QualityError::ThreadPool(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for QualityError {}

/// How to run the harness.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct QualityConfig {
    /// Positions judged at the same time (one player and one solver each).
    pub parallel: usize,
    /// The run's seed: position `i`'s player gets a seed from it and `i`.
    pub seed: u64,
    /// Each worker's solver table, in entries.
    pub tt_entries: usize,
}

impl Default for QualityConfig {
    fn default() -> Self {
        QualityConfig { parallel: 1, seed: 0, tt_entries: DEFAULT_TT_ENTRIES }
    }
}

/// What happened at one position.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct Verdict {
    /// The line of the file.
    pub line: usize,
    /// The move sequence.
    pub moves: String,
    /// The exact score (the file's, confirmed by the solver).
    pub score: i32,
    /// Its class.
    pub class: Class,
    /// The move chosen (column 1-7); `None` for a lost position (not played).
    pub chosen: Option<String>,
    /// The mover's exact score after the move.
    pub score_after: Option<i32>,
    /// Whether the move kept the class; `None` for a lost position.
    pub kept: Option<bool>,
    /// A move that keeps the class, from the solver (given when the move did not).
    pub keeping: Option<String>,
    /// Time the player took to choose, in ms.
    pub move_ms: Option<f64>,
}

/// A move that lost the position's class.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QualityFailure {
    /// The line of the file.
    pub line: usize,
    /// The move sequence.
    pub moves: String,
    /// The exact score before the move.
    pub score: i32,
    /// The move chosen (column 1-7).
    pub chosen: String,
    /// The mover's exact score after it.
    pub score_after: i32,
    /// A move that keeps the class (column 1-7).
    pub keeping: String,
}

/// Positions of one class and how many were kept.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ClassCount {
    /// Positions of the class.
    pub positions: u64,
    /// Moves that kept it.
    pub kept: u64,
}

/// The harness's report (`parmcts quality --json` prints it).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct QualityReport {
    /// Always `connect4`.
    pub game: &'static str,
    /// The player spec.
    pub player: String,
    /// The run's seed.
    pub seed: u64,
    /// Positions read.
    pub positions: u64,
    /// Lost positions: counted apart, not played.
    pub lost: u64,
    /// Won and drawn positions: the ones judged.
    pub judged: u64,
    /// Judged positions whose move kept the class.
    pub kept: u64,
    /// `kept / judged` (`None` when nothing was judged).
    pub fraction: Option<f64>,
    /// Its 95 % Wilson score interval.
    pub ci95: Option<[f64; 2]>,
    /// Won positions.
    pub won: ClassCount,
    /// Drawn positions.
    pub drawn: ClassCount,
    /// Mean time per move over the judged positions, in ms.
    pub mean_move_ms: Option<f64>,
    /// Longest time for one move, in ms.
    pub max_move_ms: Option<f64>,
    /// Every move that lost its position's class, in file order.
    pub failures: Vec<QualityFailure>,
}

impl QualityReport {
    fn new(player: &str, seed: u64, verdicts: &[Verdict]) -> QualityReport {
        let mut won = ClassCount::default();
        let mut drawn = ClassCount::default();
        for v in verdicts {
            let count = match v.class {
                Class::Won => &mut won,
                Class::Drawn => &mut drawn,
                Class::Lost => continue,
            };
            count.positions += 1;
            count.kept += u64::from(v.kept == Some(true));
        }
        let judged = won.positions + drawn.positions;
        let kept = won.kept + drawn.kept;
        // Binomial: the trinomial interval of a tally without draws is Wilson's.
        let tally = Tally { wins: kept, draws: 0, losses: judged - kept };
        let times: Vec<f64> = verdicts.iter().filter_map(|v| v.move_ms).collect();
        let failures = verdicts
            .iter()
            .filter(|v| v.kept == Some(false))
            .map(|v| QualityFailure {
                line: v.line,
                moves: v.moves.clone(),
                score: v.score,
                chosen: v.chosen.clone().unwrap_or_default(),
                score_after: v.score_after.unwrap_or_default(),
                keeping: v.keeping.clone().unwrap_or_default(),
            })
            .collect();
        QualityReport {
            game: ConnectFour::NAME,
            player: player.to_string(),
            seed,
            positions: verdicts.len() as u64,
            lost: verdicts.len() as u64 - judged,
            judged,
            kept,
            fraction: (judged > 0).then(|| tally.score()),
            ci95: (judged > 0).then(|| {
                let (lo, hi) = tally.score_ci95();
                [lo, hi]
            }),
            won,
            drawn,
            mean_move_ms: (!times.is_empty()).then(|| times.iter().sum::<f64>() / times.len() as f64),
            max_move_ms: times.iter().copied().reduce(f64::max),
            failures,
        }
    }
}

/// The seed of position `index`'s player.
fn player_seed(seed: u64, index: usize) -> u64 {
    seed.wrapping_add((index as u64).wrapping_mul(1_000_003))
}

/// Judges `player` (a spec such as `mcts:playouts=10000`) on `positions`; `on_position`
/// sees each verdict as it is reached (for progress), in completion order.
///
/// # Errors
/// [`QualityError::Spec`] for a bad spec, and the errors of [`measure_with`].
pub fn measure(
    positions: &[ScoredPosition],
    player: &str,
    config: &QualityConfig,
    on_position: impl Fn(&Verdict) + Sync,
) -> Result<QualityReport, QualityError> {
    let spec = PlayerSpec::parse(player).map_err(QualityError::Spec)?;
    // Build one player now, so that a spec that cannot build fails before any work.
    spec.build_with_evaluation::<ConnectFour>(config.seed).map_err(|error| QualityError::Player { line: 0, error })?;
    measure_with(positions, player, |seed| spec.build_with_evaluation::<ConnectFour>(seed), config, on_position)
}

/// [`measure`] with players from `make_player(seed)`, one per position (any [`Agent`]:
/// a custom player, or a perfect one for a test); `player` names it in the report.
///
/// # Errors
/// [`QualityError::ScoreMismatch`] when the solver disagrees with a file score;
/// [`QualityError::Player`] or [`QualityError::IllegalMove`] for a player that cannot
/// build, cannot move or breaks the rules; [`QualityError::Solver`],
/// [`QualityError::ZeroParallel`] or [`QualityError::ThreadPool`] for a harness that
/// cannot start.
pub fn measure_with(
    positions: &[ScoredPosition],
    player: &str,
    make_player: impl Fn(u64) -> Result<Box<dyn Agent<ConnectFour>>, PlayerError> + Sync,
    config: &QualityConfig,
    on_position: impl Fn(&Verdict) + Sync,
) -> Result<QualityReport, QualityError> {
    let verdicts = map_with_solvers::<_, _, QualityError>(
        positions,
        config.parallel,
        config.tt_entries,
        |solver, index, position| {
            let verdict = judge(position, solver, || make_player(player_seed(config.seed, index)))?;
            on_position(&verdict);
            Ok(verdict)
        },
    )?;
    Ok(QualityReport::new(player, config.seed, &verdicts))
}

/// Why a pool of solver workers ([`map_with_solvers`]) could not start; each harness's
/// error type has a variant for each.
pub(crate) enum PoolError {
    /// Zero workers asked for.
    ZeroParallel,
    /// A solver table could not be allocated.
    Solver(SolveError),
    /// The threads could not start.
    ThreadPool(PoolStartError),
}

impl From<PoolError> for QualityError {
    fn from(e: PoolError) -> Self {
        match e {
            PoolError::ZeroParallel => QualityError::ZeroParallel,
            PoolError::Solver(e) => QualityError::Solver(e),
            PoolError::ThreadPool(e) => QualityError::ThreadPool(e),
        }
    }
}

/// Maps `items` on `parallel` worker threads (at most one per item), each with its own
/// solver of `tt_entries` entries; `f` gets the solver, the item's index and the item.
/// The harnesses of this module and [`crate::harness::connect4::review`] judge with it.
///
/// # Errors
/// A [`PoolError`] for zero workers, a table that cannot be allocated (checked once
/// before any work) or threads that cannot start; else the first error of `f`.
pub(crate) fn map_with_solvers<T: Sync, R: Send, E: Send + From<PoolError>>(
    items: &[T],
    parallel: usize,
    tt_entries: usize,
    f: impl Fn(&mut Solver, usize, &T) -> Result<R, E> + Sync,
) -> Result<Vec<R>, E> {
    if parallel == 0 {
        return Err(PoolError::ZeroParallel.into());
    }
    // Fail early on a table that cannot be allocated, with the error the workers would give.
    Solver::new(tt_entries).map_err(PoolError::Solver)?;
    let threads = parallel.min(items.len().max(1));
    let pool = worker_pool(threads).map_err(PoolError::ThreadPool)?;
    pool.install(|| {
        items
            .par_iter()
            .enumerate()
            .map_init(
                || Solver::new(tt_entries),
                |solver, (index, item)| {
                    let solver = solver.as_mut().map_err(|e| PoolError::Solver(e.clone()))?;
                    f(solver, index, item)
                },
            )
            .collect()
    })
}

/// Solves `position`, lets a player from `make_player` move (unless it is lost) and
/// solves the position after the move.
fn judge(
    position: &ScoredPosition,
    solver: &mut Solver,
    make_player: impl FnOnce() -> Result<Box<dyn Agent<ConnectFour>>, PlayerError>,
) -> Result<Verdict, QualityError> {
    let ScoredPosition { line, ref moves, ref game, score } = *position;
    let player_error = |error| QualityError::Player { line, error };
    // Parsed positions are unfinished, so the solve cannot fail.
    let exact = solver.solve(game, false).map_err(QualityError::Solver)?;
    if exact.score != score {
        return Err(QualityError::ScoreMismatch { line, moves: moves.clone(), file: score, solver: exact.score });
    }
    let class = Class::of(score);
    let mut verdict = Verdict {
        line,
        moves: moves.clone(),
        score,
        class,
        chosen: None,
        score_after: None,
        kept: None,
        keeping: None,
        move_ms: None,
    };
    if class == Class::Lost {
        return Ok(verdict);
    }
    let mut agent = make_player().map_err(player_error)?;
    let start = Instant::now();
    let chosen = agent.choose(game).map_err(player_error)?;
    verdict.move_ms = Some(start.elapsed().as_secs_f64() * 1e3);
    let after = score_after(game, chosen, solver).ok_or_else(|| QualityError::IllegalMove {
        line,
        moves: moves.clone(),
        chosen: chosen.0,
    })?;
    let kept = class.kept_by(after);
    verdict.chosen = Some(game.format_move(chosen));
    verdict.score_after = Some(after);
    verdict.kept = Some(kept);
    if !kept {
        verdict.keeping = exact.best_move.map(|m| game.format_move(m));
    }
    Ok(verdict)
}

/// The mover's exact score after `mv` (Pons's convention, from the mover's side), or
/// `None` if `mv` is illegal.
fn score_after(game: &ConnectFour, mv: Move, solver: &mut Solver) -> Option<i32> {
    let mut child = *game;
    child.try_play(mv).ok()?;
    match child.outcome() {
        // A win with this disc: the score of winning on the next move.
        Some(Outcome::Win(_)) => Some((43 - game.plies() as i32) / 2),
        Some(Outcome::Draw) => Some(0),
        None => solver.solve_score(&child, false).ok().map(|(s, _)| -s),
    }
}
