//! `parmcts simulate-ranks`: the simulator of ranks. A TDS search (`dist-scheme=tds`)
//! over virtual ranks in this one process, with a model of the network: what a cluster
//! of that many ranks would see (messages and bytes per playout, the load's imbalance,
//! the efficiency against one rank).

use std::time::Duration;

use clap::Args;
use serde::Serialize;

use parmcts::search::distributed::{RankModel, SimReport};
use parmcts::{with_game, GameKind, Search, SearchConfig, SearchGame};

use crate::common::{at_least_one, game_parser, out, parse_list, parse_position, print_json, BoardFlags, Failure};
use crate::flags::{AllSettings, SettingFlags};

#[derive(Args, Debug)]
pub struct SimulateArgs {
    /// The game.
    #[arg(long, value_parser = game_parser())]
    game: GameKind,
    /// Start from this position (as `parmcts search --moves`).
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    moves: String,
    #[command(flatten)]
    board: BoardFlags,
    /// The rank counts to simulate, comma-separated (each 1 or more).
    #[arg(long, default_value = "1,2,4,16,64,256,1024")]
    ranks: String,
    /// Playouts per rank: each search's budget is this times its ranks.
    #[arg(long = "playouts-per-rank", default_value_t = 2000)]
    playouts_per_rank: u64,
    /// A message's latency, microseconds.
    #[arg(long = "latency-us", default_value_t = 10.0)]
    latency_us: f64,
    /// The network's bandwidth, gigabits a second.
    #[arg(long = "bandwidth-gbps", default_value_t = 10.0)]
    bandwidth_gbps: f64,
    /// Processor time a rank spends sending one message, microseconds.
    #[arg(long = "message-cost-us", default_value_t = 1.0)]
    message_cost_us: f64,
    /// Search settings (as `parmcts search`): `dist-depth` is the plies per home block,
    /// `dist-batch` the jobs in flight per rank.
    #[command(flatten)]
    settings: SettingFlags<AllSettings>,
    /// Print one JSON object per rank count.
    #[arg(long)]
    json: bool,
}

/// One simulation, as printed.
#[derive(Serialize)]
struct Row {
    game: &'static str,
    ranks: u32,
    latency_us: f64,
    bandwidth_gbps: f64,
    message_cost_us: f64,
    jobs_per_rank: u32,
    plies_per_home: u32,
    playouts: u64,
    makespan_ms: f64,
    one_rank_ms: f64,
    efficiency: f64,
    messages_per_playout: f64,
    bytes_per_playout: f64,
    imbalance: f64,
    busy: f64,
    below_top: f64,
    top_everywhere: bool,
    invariants: String,
}

pub fn run(args: &SimulateArgs) -> Result<(), Failure> {
    let (game, moves) = args.board.resolve(args.game, &args.moves)?;
    with_game!(game, G => run_game::<G>(args, &moves))
}

/// A duration of `micros` given to `flag`: finite and not negative.
fn micros(flag: &str, micros: f64) -> Result<Duration, Failure> {
    Duration::try_from_secs_f64(micros / 1e6)
        .map_err(|_| Failure::flag(flag, format!("bad value '{micros}' (microseconds, 0 or more)")))
}

fn run_game<G: SearchGame>(args: &SimulateArgs, moves: &str) -> Result<(), Failure> {
    let root = parse_position::<G>(moves)?;
    let ranks: Vec<u32> = parse_list("--ranks", &args.ranks)?;
    if let Some(zero) = ranks.iter().find(|&&r| r == 0) {
        return Err(Failure::flag("--ranks", format!("bad value '{zero}' (at least 1)")));
    }
    at_least_one("--playouts-per-rank", args.playouts_per_rank)?;
    let (latency, message_cost) =
        (micros("--latency-us", args.latency_us)?, micros("--message-cost-us", args.message_cost_us)?);
    if !(args.bandwidth_gbps.is_finite() && args.bandwidth_gbps > 0.0) {
        return Err(Failure::flag("--bandwidth-gbps", format!("bad value '{}' (more than 0)", args.bandwidth_gbps)));
    }
    for &count in &ranks {
        let playouts = args.playouts_per_rank.saturating_mul(u64::from(count));
        let config: SearchConfig = args.settings.apply(SearchConfig::builder())?.playouts(playouts).build()?;
        let model = RankModel {
            ranks: count,
            latency,
            bandwidth: args.bandwidth_gbps * 1e9 / 8.0,
            message_cost,
            jobs_per_rank: config.dist_batch(),
        };
        let plies_per_home = config.dist_depth();
        let top_everywhere = config.dist_top_everywhere();
        let report = Search::new(config)?.simulate_ranks(&root, model)?;
        print_row(args, &row::<G>(args, (plies_per_home, top_everywhere), &report))?;
    }
    Ok(())
}

fn row<G: SearchGame>(args: &SimulateArgs, (plies_per_home, top_everywhere): (u32, bool), r: &SimReport) -> Row {
    Row {
        game: G::NAME,
        ranks: r.model.ranks,
        latency_us: args.latency_us,
        bandwidth_gbps: args.bandwidth_gbps,
        message_cost_us: args.message_cost_us,
        jobs_per_rank: r.model.jobs_per_rank,
        plies_per_home,
        playouts: r.playouts,
        makespan_ms: r.makespan.as_secs_f64() * 1e3,
        one_rank_ms: r.one_rank.as_secs_f64() * 1e3,
        efficiency: r.efficiency,
        messages_per_playout: r.messages_per_playout,
        bytes_per_playout: r.bytes_per_playout,
        imbalance: r.imbalance,
        busy: r.busy,
        below_top: r.below_top,
        top_everywhere,
        invariants: match &r.invariants {
            Ok(_) => "ok".into(),
            Err(e) => e.to_string(),
        },
    }
}

fn print_row(args: &SimulateArgs, row: &Row) -> Result<(), Failure> {
    if args.json {
        print_json(row)?;
    } else {
        print_text(row);
    }
    if row.invariants != "ok" {
        return Err(Failure::runtime(format!("{} ranks: {}", row.ranks, row.invariants)));
    }
    Ok(())
}

fn print_text(row: &Row) {
    out!(
        "{} ranks: efficiency {:.3}  {:.3} messages and {:.0} bytes a playout  imbalance {:.2}  busy {:.2}  below the top {:.2}  ({} playouts in {:.1} ms; one rank {:.1} ms)  invariants {}",
        row.ranks,
        row.efficiency,
        row.messages_per_playout,
        row.bytes_per_playout,
        row.imbalance,
        row.busy,
        row.below_top,
        row.playouts,
        row.makespan_ms,
        row.one_rank_ms,
        row.invariants
    );
}
