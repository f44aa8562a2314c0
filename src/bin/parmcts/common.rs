//! What every subcommand shares: failures and their exit codes, output that survives a
//! closed pipe, the game argument, positions, and progress bars that show only on a
//! terminal.

use std::fmt::Display;
use std::io::IsTerminal;

use clap::builder::{PossibleValue, PossibleValuesParser, TypedValueParser};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde::Serialize;

use parmcts::harness::matches::MatchError;
use parmcts::harness::players::{PlayerError, SpecError};
use parmcts::harness::training::TrainError;
use parmcts::search::{ConfigError, SearchError, SettingError, MAX_THREADS};
use parmcts::solver::connect4::SolveError;
use parmcts::weights::WeightsError;
use parmcts::{BoardError, ConnectFourBoard, Game, GameKind};

/// A failure: one line for stderr, and the exit code.
#[derive(Debug)]
pub struct Failure {
    /// What went wrong, naming the bad value.
    pub message: String,
    /// 2 for bad input, 1 for a failure at run time.
    pub code: u8,
}

impl Failure {
    /// Bad input: exit code 2.
    pub fn input(message: impl Display) -> Failure {
        Failure { message: message.to_string(), code: 2 }
    }

    /// A failure at run time (I/O, a violated invariant): exit code 1.
    pub fn runtime(message: impl Display) -> Failure {
        Failure { message: message.to_string(), code: 1 }
    }

    /// Bad input in `flag`.
    pub fn flag(flag: &str, message: impl Display) -> Failure {
        Failure::input(format!("{flag}: {message}"))
    }
}

impl From<ConfigError> for Failure {
    fn from(e: ConfigError) -> Failure {
        match e.key() {
            Some(key) => Failure::flag(&format!("--{key}"), e),
            None => Failure::input(e),
        }
    }
}

impl From<SettingError> for Failure {
    fn from(e: SettingError) -> Failure {
        match &e {
            SettingError::BadValue { key, .. } | SettingError::Repeated(key) => Failure::flag(&format!("--{key}"), e),
            _ => Failure::input(e),
        }
    }
}

impl From<SearchError> for Failure {
    fn from(e: SearchError) -> Failure {
        match e {
            SearchError::Config(e) => e.into(),
            SearchError::Weights(e) => e.into(),
            // The position given is over: bad input.
            e => Failure::input(e),
        }
    }
}

impl From<PlayerError> for Failure {
    fn from(e: PlayerError) -> Failure {
        match e {
            PlayerError::Search(e) => e.into(),
            e => Failure::input(e),
        }
    }
}

impl From<MatchError> for Failure {
    fn from(e: MatchError) -> Failure {
        match e {
            MatchError::Player(e) => e.into(),
            // A pool that would not start, or a player that broke the rules: not the input.
            MatchError::ThreadPool(_) | MatchError::IllegalMove { .. } => Failure::runtime(e),
            e => Failure::input(e),
        }
    }
}

impl From<TrainError> for Failure {
    fn from(e: TrainError) -> Failure {
        match e {
            TrainError::Teacher(e) => e.into(),
            e => Failure::runtime(e),
        }
    }
}

impl From<SpecError> for Failure {
    fn from(e: SpecError) -> Failure {
        Failure::input(e)
    }
}

impl From<SolveError> for Failure {
    fn from(e: SolveError) -> Failure {
        Failure::input(e)
    }
}

impl From<WeightsError> for Failure {
    fn from(e: WeightsError) -> Failure {
        match e {
            // Writing the output failed: a failure at run time. A file the user named that
            // cannot be read is bad input, as `--weights /nonexistent.json` is.
            WeightsError::Unwritable { .. } => Failure::runtime(e),
            e => Failure::input(e),
        }
    }
}

/// `println!` that ignores a closed stdout (`parmcts bench | head` must not panic).
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}
pub(crate) use out;

/// Prints `report` as one JSON object on one line.
pub fn print_json(report: &impl Serialize) -> Result<(), Failure> {
    let text = serde_json::to_string(report).map_err(Failure::runtime)?;
    out!("{text}");
    Ok(())
}

/// The `--game` value parser: the registered games, each with its help line.
pub fn game_parser() -> impl TypedValueParser<Value = GameKind> {
    let values = GameKind::ALL.iter().map(|g| PossibleValue::new(g.name()).help(g.about()));
    PossibleValuesParser::new(values).map(|name| name.parse::<GameKind>().unwrap_or(GameKind::ALL[0]))
}

/// Parses `--moves`.
pub fn parse_position<G: Game>(moves: &str) -> Result<G, Failure> {
    G::parse_position(moves).map_err(|e| Failure::flag("--moves", format!("'{moves}': {e}")))
}

/// Parses a player spec given to `flag`.
pub fn parse_spec(flag: &str, text: &str) -> Result<parmcts::harness::players::PlayerSpec, Failure> {
    parmcts::harness::players::PlayerSpec::parse(text).map_err(|e| Failure::flag(flag, e))
}

/// A progress bar on stderr, drawn only when stderr is a terminal and `quiet` is false.
pub fn progress_bar(len: Option<u64>, template: &str, quiet: bool) -> ProgressBar {
    if quiet || !std::io::stderr().is_terminal() {
        return ProgressBar::hidden();
    }
    let bar = match len {
        Some(len) => ProgressBar::with_draw_target(Some(len), ProgressDrawTarget::stderr()),
        None => ProgressBar::with_draw_target(None, ProgressDrawTarget::stderr()),
    };
    bar.set_style(ProgressStyle::with_template(template).unwrap_or_else(|_| ProgressStyle::default_bar()));
    bar
}

/// Cores available to this process.
pub fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

/// Parses a comma-separated list given to `flag`.
pub fn parse_list<T: std::str::FromStr>(flag: &str, text: &str) -> Result<Vec<T>, Failure>
where
    T::Err: Display,
{
    text.split(',')
        .map(|s| s.trim().parse::<T>().map_err(|e| Failure::flag(flag, format!("bad value '{s}': {e}"))))
        .collect()
}

/// Parses a comma-separated list of thread counts, each 1 to [`MAX_THREADS`].
pub fn parse_threads(flag: &str, text: &str) -> Result<Vec<usize>, Failure> {
    let threads: Vec<usize> = parse_list(flag, text)?;
    match threads.iter().find(|&&t| t == 0 || t > MAX_THREADS) {
        Some(&t) => Err(Failure::flag(flag, format!("bad value '{t}' (threads must be 1 to {MAX_THREADS})"))),
        None => Ok(threads),
    }
}

/// Rejects a count of 0 given to `flag`.
pub fn at_least_one(flag: &str, value: u64) -> Result<(), Failure> {
    match value {
        0 => Err(Failure::flag(flag, "bad value '0' (at least 1)")),
        _ => Ok(()),
    }
}

/// MPI for a distributed search (`mode=dist`): initialised for it here, on the main
/// thread, and finalised when the returned value is dropped (keep it until the search
/// has ended). `None` for any other mode.
#[cfg(feature = "mpi")]
pub fn cluster_for(config: &parmcts::SearchConfig) -> Result<Option<parmcts::search::distributed::Cluster>, Failure> {
    if config.mode() != parmcts::Mode::Dist {
        return Ok(None);
    }
    parmcts::search::distributed::Cluster::init().map(Some).map_err(Failure::runtime)
}

/// Without the `mpi` feature no configuration is distributed (the builder refuses
/// `mode=dist`).
#[cfg(not(feature = "mpi"))]
pub fn cluster_for(_config: &parmcts::SearchConfig) -> Result<Option<()>, Failure> {
    Ok(None)
}

/// This process's MPI rank (0 outside a distributed search): only rank 0 prints text.
pub fn rank() -> usize {
    parmcts::search::distributed::rank()
}

/// The Connect Four board flags (`--width`, `--height`, `--blocked`): they choose the
/// board of `connect4x`; with `--game connect4`, a board other than plain 7x6 plays
/// `connect4x` (the 7x6 type stays as it is).
#[derive(clap::Args, Clone, Debug, Default)]
pub struct BoardFlags {
    /// Connect Four: columns, 4 to 12 [default: 7].
    #[arg(long, help_heading = "Connect Four board")]
    pub width: Option<u32>,
    /// Connect Four: rows, 4 to 12 [default: 6].
    #[arg(long, help_heading = "Connect Four board")]
    pub height: Option<u32>,
    /// Connect Four: a cell nobody may play, `COL,ROW` (from 1; row 1 at the bottom).
    #[arg(long, help_heading = "Connect Four board")]
    pub blocked: Option<String>,
}

impl BoardFlags {
    /// Whether any board flag was given.
    pub fn given(&self) -> bool {
        self.width.is_some() || self.height.is_some() || self.blocked.is_some()
    }

    /// The game to play and the position text for it: `game` and `moves` unchanged
    /// without board flags; else `connect4x` (or `connect4` for a plain 7x6 board) and
    /// the board header before `moves`.
    pub fn resolve(&self, game: GameKind, moves: &str) -> Result<(GameKind, String), Failure> {
        if !self.given() {
            return Ok((game, moves.to_string()));
        }
        let flag = if self.width.is_some() {
            "--width"
        } else if self.height.is_some() {
            "--height"
        } else {
            "--blocked"
        };
        let Some(boards) = game.run_time_boards() else {
            return Err(Failure::flag(flag, format!("only Connect Four has a board size (not '{game}')")));
        };
        if moves.contains(':') {
            return Err(Failure::flag("--moves", format!("'{moves}': the board is given twice (header and flags)")));
        }
        let blocked = match &self.blocked {
            None => None,
            Some(text) => {
                let bad = || Failure::flag("--blocked", format!("bad value '{text}' (expected COL,ROW, both from 1)"));
                let (c, r) = text.split_once(',').ok_or_else(bad)?;
                let c: u32 = c.trim().parse().map_err(|_| bad())?;
                let r: u32 = r.trim().parse().map_err(|_| bad())?;
                if c == 0 || r == 0 {
                    return Err(bad());
                }
                Some((c - 1, r - 1))
            }
        };
        let (width, height) = (self.width.unwrap_or(7), self.height.unwrap_or(6));
        let board = ConnectFourBoard::try_new(width, height, blocked).map_err(|e| match e {
            BoardError::Width(_) => Failure::flag("--width", e),
            BoardError::Height(_) => Failure::flag("--height", e),
            e => Failure::flag("--blocked", e),
        })?;
        if game != boards && width == 7 && height == 6 && blocked.is_none() {
            return Ok((game, moves.to_string()));
        }
        Ok((boards, format!("{}:{moves}", board.board_text())))
    }
}
