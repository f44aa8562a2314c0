//! `parmcts gtp`: a GTP engine on stdin and stdout (GUIs, referees). Stdout carries the
//! responses alone; `--log` writes diagnostics to stderr.

use std::time::Duration;

use clap::Args;

use parmcts::gtp::{Engine, EngineConfig, GtpError};
use parmcts::search::{ConfigError, SearchConfig};
use parmcts::GameKind;

use crate::common::{cluster_for, game_parser, rank, Failure};
use crate::flags::{AllSettings, SettingFlags};

/// Time per move when neither `--playouts` nor `--time-ms` is given and there is no clock.
const DEFAULT_TIME: Duration = Duration::from_millis(1000);

#[derive(Args, Debug)]
pub struct GtpArgs {
    /// The game (GTP engines: othello, go, go13, go19, hex, hex9, hex13, hex19; `boardsize`
    /// switches between the Go sizes and between the Hex sizes).
    #[arg(long, value_parser = game_parser())]
    game: GameKind,
    /// Resign when the best move's win rate is below this, a few moves into the game and
    /// with the search confident (0: never).
    #[arg(long = "resign-below", value_name = "R", default_value_t = 0.05)]
    resign_below: f64,
    /// Diagnostics on stderr: each command and each search's figures.
    #[arg(long)]
    log: bool,
    /// Ponder: search on the opponent's time after each move the engine plays, and keep
    /// the subtree of the position the opponent's move reaches.
    #[arg(long)]
    ponder: bool,
    /// The search settings: each move's budget without a clock (default --time-ms 1000);
    /// under a clock (time_settings) the clock gives the time and --playouts, if given,
    /// caps it.
    #[command(flatten)]
    settings: SettingFlags<AllSettings>,
}

pub fn run(args: &GtpArgs) -> Result<(), Failure> {
    let builder = args.settings.apply(SearchConfig::builder())?;
    let search = match builder.clone().build() {
        Err(ConfigError::NoBudget) => builder.time(DEFAULT_TIME).build()?,
        built => built?,
    };
    // With mode=dist: MPI until the session ends.
    let cluster = cluster_for(&search)?;
    let config = EngineConfig { search, resign_below: args.resign_below, ponder: args.ponder };
    let mut engine = Engine::new(args.game, config).map_err(|e| match e {
        GtpError::BadResign(_) => Failure::flag("--resign-below", e),
        GtpError::UnsupportedGame(_) => Failure::flag("--game", e),
        e => Failure::input(e),
    })?;
    if args.log && rank() == 0 {
        engine.set_log(Box::new(std::io::stderr()));
    }
    let outcome = if cluster.is_some() {
        run_relayed(&mut engine)
    } else {
        engine.serve(std::io::BufReader::new(std::io::stdin()), std::io::stdout().lock())
    };
    // A closed stdout (the GUI gone) ends the session quietly.
    match outcome {
        Err(e) if e.kind() != std::io::ErrorKind::BrokenPipe => Err(Failure::runtime(format!("gtp: {e}"))),
        _ => Ok(()),
    }
}

/// A distributed engine (mode=dist): every rank runs the engine in lockstep on rank 0's
/// input (the controller talks to rank 0), and only rank 0 answers.
#[cfg(feature = "mpi")]
fn run_relayed(engine: &mut Engine) -> std::io::Result<()> {
    let input = std::io::BufReader::new(parmcts::search::distributed::Relay::new(std::io::stdin().lock()));
    if rank() == 0 {
        engine.run(input, std::io::stdout().lock())
    } else {
        engine.run(input, std::io::sink())
    }
}

/// Without the `mpi` feature no engine is distributed (the configuration refuses
/// mode=dist before this is reached).
#[cfg(not(feature = "mpi"))]
fn run_relayed(_engine: &mut Engine) -> std::io::Result<()> {
    Err(std::io::Error::other("mode dist needs the mpi feature"))
}
