//! `parmcts analysis`: the JSON-lines analysis engine on stdin and stdout
//! (docs/ANALYSIS.md): queries in, one JSON reply a line out, many turns searched at once.

use std::time::Duration;

use clap::Args;

use parmcts::analysis::{serve, AnalysisConfig};
use parmcts::search::{Mode, SearchConfig};
use parmcts::GameKind;

use crate::common::{available_cores, game_parser, Failure};
use crate::flags::{FlagSet, SettingFlags};

/// A query's budget when neither the command line nor the query gives one.
const DEFAULT_PLAYOUTS: u64 = 10_000;

/// The analysis engine's flags: every search setting, the budget a query's default.
#[derive(Clone, Debug)]
pub struct AnalysisSettings;
impl FlagSet for AnalysisSettings {
    const DEFAULTS: &'static [(&'static str, &'static str)] = &[("playouts", "10000 (a query's maxVisits overrides)")];
}

#[derive(Args, Debug)]
pub struct AnalysisArgs {
    /// The game of a query without a `game` field.
    #[arg(long, value_parser = game_parser(), default_value = "go")]
    game: GameKind,
    /// Turns searched at once, each by a search of --threads threads [default: the cores].
    #[arg(long = "analysis-threads", value_name = "N")]
    analysis_threads: Option<usize>,
    /// Refuse queries asking for more playouts than this (a service's cap per turn).
    #[arg(long = "max-visits", value_name = "N")]
    max_visits: Option<u64>,
    /// Refuse queries asking for more time than this, in seconds.
    #[arg(long = "max-time", value_name = "SECONDS")]
    max_time: Option<f64>,
    /// At the end of the input, stop the running searches and drop the queued turns
    /// instead of finishing them.
    #[arg(long = "quit-without-waiting")]
    quit_without_waiting: bool,
    /// The search settings of every query; a query overrides its budget and its search
    /// parameters (overrideSettings), not the threads, the mode or the memory.
    #[command(flatten)]
    settings: SettingFlags<AnalysisSettings>,
}

pub fn run(args: &AnalysisArgs) -> Result<(), Failure> {
    let search: SearchConfig =
        args.settings.apply(SearchConfig::builder())?.default_playouts(DEFAULT_PLAYOUTS).build()?;
    if search.mode() == Mode::Dist {
        return Err(Failure::flag("--mode", "dist: the analysis engine's searches run in one process"));
    }
    if search.until_stopped() {
        return Err(Failure::flag("--until-stopped", "on: every turn needs a budget to end"));
    }
    let threads = args.analysis_threads.unwrap_or_else(available_cores);
    if threads == 0 {
        return Err(Failure::flag("--analysis-threads", "0 (at least one)"));
    }
    if args.max_visits == Some(0) {
        return Err(Failure::flag("--max-visits", "0 (at least one playout)"));
    }
    let max_time = match args.max_time {
        None => None,
        Some(s) if s.is_finite() && s > 0.0 && s < 1e9 => Some(Duration::from_secs_f64(s)),
        Some(s) => return Err(Failure::flag("--max-time", format!("{s} (a positive number of seconds)"))),
    };
    let config = AnalysisConfig {
        game: args.game,
        search,
        threads,
        max_visits: args.max_visits,
        max_time,
        quit_without_waiting: args.quit_without_waiting,
    };
    let input = std::io::BufReader::new(std::io::stdin());
    serve(&config, input, std::io::stdout()).map_err(|e| Failure::runtime(format!("analysis: {e}")))
}
