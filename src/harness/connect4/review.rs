//! Where a match's games were decided: every Connect Four position of a game record,
//! from a given ply on, solved by the exact solver (weakly: win, draw or loss), so each
//! move that threw away its mover's game-theoretic class is found and charged to the
//! player that made it.
//!
//! The games come from `parmcts match --records FILE` (one JSON object per line). For
//! each game the report counts:
//! * the class of the position at the first ply judged against the game's result, both
//!   from the first spec's (`p1`'s) side: how often the side that wins with perfect play
//!   won, drew or lost;
//! * the value-losing moves of each spec from that ply on (a won position left drawn or
//!   lost, a drawn one left lost), in bands of four plies.
//!
//! A position's solve time falls steeply with the ply (a few seconds to minutes at ply 2,
//! about a second at ply 12, milliseconds past ply 20 on one core), so the first ply
//! judged sets the cost. A game whose record ends before that ply counts only as skipped.
//!
//! # Examples
//! ```
//! use parmcts::harness::connect4::review::{parse_records, review, ReviewConfig};
//!
//! // Two plies of opening, then the first player (p1) wins in column 1.
//! let line = r#"{"opening":["1","2"],"moves":["1","2","1","2","1"],"result":"p1","p1_first":true,"players":["a","b"]}"#;
//! let games = parse_records(line, "example")?;
//! // Judged from ply 6, where the first player wins at once (a cheap solve: at ply 2 it
//! // would take minutes).
//! let report = review(&games, &ReviewConfig { from_ply: 6, ..ReviewConfig::default() }, |_| {})?;
//! // The position after "121212" is a first-player win, and p1 won: no value-losing move.
//! assert_eq!((report.judged, report.outcomes[0][0], report.errors), (1, 1, [0, 0]));
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```

use std::collections::BTreeMap;
use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::games::{one_line, ConnectFour, Game, Outcome};
use crate::harness::connect4::quality::{map_with_solvers, PoolError};
use crate::harness::pool::PoolStartError;
use crate::solver::connect4::{SolveError, Solver, DEFAULT_TT_ENTRIES};

/// Plies per band of [`ReviewReport::errors_by_ply`].
pub const PLY_BAND: usize = 4;

/// One line of a `match --records` file, as far as the review reads it.
#[derive(Clone, Debug, PartialEq, Deserialize)]
pub struct RecordedGame {
    /// The opening, played by the referee.
    pub opening: Vec<String>,
    /// The moves after the opening.
    pub moves: Vec<String>,
    /// `p1`, `p2` or `draw`.
    pub result: String,
    /// Whether `p1` moved first.
    pub p1_first: bool,
    /// The two specs, `p1`'s first.
    pub players: [String; 2],
}

/// Errors of the review, naming the bad file or line.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ReviewError {
    /// The records file could not be read.
    Unreadable {
        /// The file.
        path: String,
        /// Why.
        reason: String,
    },
    /// A line that is not a Connect Four game record.
    Malformed {
        /// The file (or the name the text was given).
        source: String,
        /// The line number (1-based).
        line: usize,
        /// What is wrong with it.
        reason: String,
    },
    /// The file holds no game.
    NoGames {
        /// The file (or the name the text was given).
        source: String,
    },
    /// The games were not all between the same two specs.
    MixedPlayers {
        /// The line of the first game with other specs.
        line: usize,
    },
    /// The solver's table could not be allocated.
    Solver(SolveError),
    /// Zero parallel workers.
    ZeroParallel,
    /// The worker pool could not start.
    ThreadPool(PoolStartError),
}

impl fmt::Display for ReviewError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReviewError::Unreadable { path, reason } => {
                write!(f, "cannot read records file '{}': {reason}", one_line(path))
            }
            ReviewError::Malformed { source, line, reason } => {
                write!(f, "{}, line {line}: {}", one_line(source), one_line(reason))
            }
            ReviewError::NoGames { source } => write!(f, "{}: no games", one_line(source)),
            ReviewError::MixedPlayers { line } => {
                write!(f, "line {line}: the game is between other players than line 1's (review one match at a time)")
            }
            ReviewError::Solver(e) => e.fmt(f),
            ReviewError::ZeroParallel => write!(f, "parallel workers must be at least 1 (got 0)"),
            ReviewError::ThreadPool(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ReviewError {}

impl From<PoolError> for ReviewError {
    fn from(e: PoolError) -> Self {
        match e {
            PoolError::ZeroParallel => ReviewError::ZeroParallel,
            PoolError::Solver(e) => ReviewError::Solver(e),
            PoolError::ThreadPool(e) => ReviewError::ThreadPool(e),
        }
    }
}

/// A game ready to review: its whole move sequence and result.
#[derive(Clone, Debug, PartialEq)]
pub struct ReviewGame {
    /// The line of the file (1-based).
    pub line: usize,
    /// The opening and the moves, columns 1-7.
    pub sequence: String,
    /// The result from the first player's side: 1 won, 0 drawn, -1 lost.
    pub first_result: i32,
    /// Whether `p1` moved first.
    pub p1_first: bool,
    /// The two specs, `p1`'s first.
    pub players: [String; 2],
}

/// Parses `match --records` lines from `text`; `source` names it in errors. Blank lines
/// are skipped. Every game must be a legal Connect Four game between the same two specs.
///
/// # Errors
/// [`ReviewError::Malformed`] naming the first bad line, [`ReviewError::MixedPlayers`],
/// or [`ReviewError::NoGames`] when there is none.
pub fn parse_records(text: &str, source: &str) -> Result<Vec<ReviewGame>, ReviewError> {
    let mut games: Vec<ReviewGame> = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        let line = index + 1;
        if raw.trim().is_empty() {
            continue;
        }
        let malformed = |reason: String| ReviewError::Malformed { source: source.to_string(), line, reason };
        let record: RecordedGame =
            serde_json::from_str(raw).map_err(|e| malformed(format!("not a game record: {e}")))?;
        let sequence: String = record.opening.iter().chain(&record.moves).map(String::as_str).collect();
        let game = ConnectFour::parse_position(&sequence).map_err(|e| malformed(format!("{sequence}: {e}")))?;
        let p1_result = match record.result.as_str() {
            "p1" => 1,
            "p2" => -1,
            "draw" => 0,
            other => return Err(malformed(format!("result '{other}' is not p1, p2 or draw"))),
        };
        let first_result = if record.p1_first { p1_result } else { -p1_result };
        // A game the rules ended must end as they say (a forfeit or resignation need not).
        if let Some(outcome) = game.outcome() {
            let by_rules = match outcome {
                Outcome::Win(player) if player == ConnectFour::new().side_to_move() => 1,
                Outcome::Win(_) => -1,
                Outcome::Draw => 0,
            };
            if by_rules != first_result {
                return Err(malformed(format!(
                    "{sequence}: the board's result is not the record's '{}'",
                    record.result
                )));
            }
        }
        if games.first().is_some_and(|g| g.players != record.players) {
            return Err(ReviewError::MixedPlayers { line });
        }
        games.push(ReviewGame { line, sequence, first_result, p1_first: record.p1_first, players: record.players });
    }
    if games.is_empty() {
        return Err(ReviewError::NoGames { source: source.to_string() });
    }
    Ok(games)
}

/// Reads a `match --records` file ([`parse_records`]).
///
/// # Errors
/// [`ReviewError::Unreadable`] when the file cannot be read; the errors of
/// [`parse_records`], naming the file.
pub fn read_records(path: &Path) -> Result<Vec<ReviewGame>, ReviewError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| ReviewError::Unreadable { path: name.clone(), reason: e.to_string() })?;
    parse_records(&text, &name)
}

/// How to run the review.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReviewConfig {
    /// The first ply judged: the position after this many plies is the first solved.
    pub from_ply: usize,
    /// Games reviewed at the same time (one solver each).
    pub parallel: usize,
    /// Each worker's solver table, in entries.
    pub tt_entries: usize,
}

impl Default for ReviewConfig {
    fn default() -> Self {
        ReviewConfig { from_ply: 12, parallel: 1, tt_entries: DEFAULT_TT_ENTRIES }
    }
}

/// One game's verdict: its class at the first ply judged, and each value-losing move.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct GameVerdict {
    /// The line of the file.
    pub line: usize,
    /// The class at the first ply judged from the first player's side (1 won, 0 drawn,
    /// -1 lost); `None` for a game that ended before it.
    pub first_class: Option<i32>,
    /// The plies (the number of moves before it) of the value-losing moves.
    pub errors: Vec<usize>,
}

/// The review's report (`parmcts review --json` prints it).
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ReviewReport {
    /// Always `connect4`.
    pub game: &'static str,
    /// The two specs, `p1`'s first.
    pub players: [String; 2],
    /// The first ply judged.
    pub from_ply: usize,
    /// Games read.
    pub games: u64,
    /// Games judged (the rest ended before `from_ply`).
    pub judged: u64,
    /// Judged games by the class at `from_ply` (rows: `p1` wins, drawn, `p2` wins with
    /// perfect play) and the result (columns: `p1` won, drew, `p2` won).
    pub outcomes: [[u64; 3]; 3],
    /// Moves judged, by spec (`p1`, `p2`).
    pub moves: [u64; 2],
    /// Value-losing moves, by spec.
    pub errors: [u64; 2],
    /// Value-losing moves by band of [`PLY_BAND`] plies from `from_ply`: (first ply of
    /// the band, `p1`'s, `p2`'s).
    pub errors_by_ply: Vec<(usize, u64, u64)>,
    /// Every judged game's verdict, in file order.
    pub verdicts: Vec<GameVerdict>,
}

impl ReviewReport {
    /// Judged games whose result is the class at `from_ply` (the diagonal of `outcomes`).
    pub fn as_solved(&self) -> u64 {
        (0..3).map(|i| self.outcomes[i][i]).sum()
    }
}

/// Reviews `games` (all between the same specs); `on_game` sees each verdict as it is
/// reached (for progress), in completion order.
///
/// # Errors
/// [`ReviewError::Solver`], [`ReviewError::ZeroParallel`] or [`ReviewError::ThreadPool`]
/// for a review that cannot start.
pub fn review(
    games: &[ReviewGame],
    config: &ReviewConfig,
    on_game: impl Fn(&GameVerdict) + Sync,
) -> Result<ReviewReport, ReviewError> {
    let verdicts =
        map_with_solvers::<_, _, ReviewError>(games, config.parallel, config.tt_entries, |solver, _, game| {
            let verdict = judge(game, config.from_ply, solver)?;
            on_game(&verdict);
            Ok(verdict)
        })?;
    let mut report = ReviewReport {
        game: ConnectFour::NAME,
        players: games.first().map_or_else(Default::default, |g| g.players.clone()),
        from_ply: config.from_ply,
        games: games.len() as u64,
        judged: 0,
        outcomes: [[0; 3]; 3],
        moves: [0; 2],
        errors: [0; 2],
        errors_by_ply: Vec::new(),
        verdicts: Vec::new(),
    };
    let mut bands: BTreeMap<usize, [u64; 2]> = BTreeMap::new();
    for (game, verdict) in games.iter().zip(verdicts) {
        let Some(first_class) = verdict.first_class else { continue };
        report.judged += 1;
        // p1's side: the first player's, or its opposite.
        let p1_side = if game.p1_first { 1 } else { -1 };
        let row = (1 - first_class * p1_side) as usize;
        let column = (1 - game.first_result * p1_side) as usize;
        report.outcomes[row][column] += 1;
        for ply in config.from_ply..game.sequence.len() {
            report.moves[spec_of(game, ply)] += 1;
        }
        for &ply in &verdict.errors {
            let spec = spec_of(game, ply);
            report.errors[spec] += 1;
            bands.entry(config.from_ply + (ply - config.from_ply) / PLY_BAND * PLY_BAND).or_default()[spec] += 1;
        }
        report.verdicts.push(verdict);
    }
    report.errors_by_ply = bands.into_iter().map(|(band, [p1, p2])| (band, p1, p2)).collect();
    Ok(report)
}

/// Which spec (0: `p1`, 1: `p2`) makes the move after `ply` plies.
fn spec_of(game: &ReviewGame, ply: usize) -> usize {
    let first_moves = ply.is_multiple_of(2);
    usize::from(first_moves != game.p1_first)
}

/// Solves every position of `game` from `from_ply` on and finds the moves after which
/// the mover's class fell; the last move is judged against the game's result.
fn judge(game: &ReviewGame, from_ply: usize, solver: &mut Solver) -> Result<GameVerdict, ReviewError> {
    let sequence = game.sequence.as_bytes();
    let mut verdict = GameVerdict { line: game.line, first_class: None, errors: Vec::new() };
    if from_ply >= sequence.len() {
        return Ok(verdict);
    }
    // The first player's class of the position after each ply from `from_ply` on (none
    // is finished: the records' sequences were checked), then the game's result.
    let mut classes = Vec::with_capacity(sequence.len() - from_ply + 1);
    let malformed = |_| ReviewError::Malformed {
        source: "records".to_string(),
        line: game.line,
        reason: format!("{}: not a Connect Four game", game.sequence),
    };
    let mut position = ConnectFour::parse_position(&game.sequence[..from_ply]).map_err(malformed)?;
    for ply in from_ply..sequence.len() {
        let (score, _) = solver.solve_score(&position, true).map_err(ReviewError::Solver)?;
        let first_to_move = ply.is_multiple_of(2);
        classes.push(if first_to_move { score.signum() } else { -score.signum() });
        position.play_sequence(&game.sequence[ply..=ply]).map_err(malformed)?;
    }
    classes.push(game.first_result);
    verdict.first_class = Some(classes[0]);
    for (i, pair) in classes.windows(2).enumerate() {
        let ply = from_ply + i;
        let mover = if ply.is_multiple_of(2) { 1 } else { -1 };
        if (pair[1] - pair[0]) * mover < 0 {
            verdict.errors.push(ply);
        }
    }
    Ok(verdict)
}
