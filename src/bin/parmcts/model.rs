//! `parmcts model`: the contention model (docs/SCALING.md). A counting build
//! (`--features contention`) writes a game's profile (what N threads do to shared lines
//! per iteration, from the simulator); the normal build reads it, measures the machine's
//! costs and the tree-parallel throughput, and prints prediction against measurement.

use std::path::PathBuf;

use clap::Args;

use parmcts::contention;
use parmcts::harness::benchmark::{bench_game, BenchMode};
use parmcts::harness::interrupt::Interrupt;
use parmcts::harness::model::{measure_costs, profile, ContentionProfile, ModelReport};
use parmcts::search::{Mode, SearchConfig};
use parmcts::{with_game, GameKind, SearchGame};

use crate::common::{available_cores, game_parser, out, parse_threads, print_json, Failure};
use crate::flags::{FlagSet, SettingFlags};

/// The settings `model` takes as flags: all but those it sets per row.
#[derive(Clone, Debug)]
pub struct ModelSettings;
impl FlagSet for ModelSettings {
    const EXCLUDED: &'static [&'static str] = &["mode", "threads", "time-ms", "seed"];
}

#[derive(Args, Debug)]
#[command(after_help = "Two steps. 1: a counting build writes the profile: \
`cargo run --release --features contention -- model --game connect4 --threads 1,2,4,8,16 --profile P.json`. \
2: the normal build predicts and measures: `parmcts model --game connect4 --profile P.json`. \
Prediction: t(N) = t_tree(1) + extra atomics(N) * c_rmw + write transfers(N) * c_transfer per \
iteration and thread (c_transfer: half a measured line handoff; transfers made by writes); rate = N / t(N). Measured rows are tree-parallel medians at thread counts up \
to this machine's cores. Run step 2 on an idle machine.")]
pub struct ModelArgs {
    /// The game.
    #[arg(long, value_parser = game_parser())]
    game: GameKind,
    /// Comma-separated thread counts to profile (counting build).
    #[arg(long, default_value = "1,2,4,8,16")]
    threads: String,
    /// The profile file: written by a counting build, read by the normal build.
    #[arg(long)]
    profile: PathBuf,
    /// Repeats per measured row (normal build).
    #[arg(long, default_value_t = 7)]
    repeat: usize,
    #[command(flatten)]
    settings: SettingFlags<ModelSettings>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &ModelArgs) -> Result<(), Failure> {
    let playouts = args.game.bench_playouts();
    let base = args.settings.apply(SearchConfig::builder().playouts(playouts).seed(1))?.build()?;
    with_game!(args.game, G => run_game::<G>(args, &base))
}

fn run_game<G: SearchGame>(args: &ModelArgs, base: &SearchConfig) -> Result<(), Failure> {
    let root = G::new();
    let path = &args.profile;
    if contention::ENABLED {
        return write_profile(&root, args, base);
    }
    let profile = read_profile::<G>(path)?;
    let costs = measure_costs(args.repeat);
    let cores = available_cores();
    let mut threads: Vec<usize> = profile.rows.iter().map(|r| r.threads).filter(|&t| t <= cores).collect();
    threads.sort_unstable();
    let never = Interrupt::default();
    let rows = bench_game(&root, &[BenchMode::Mcts(Mode::TreeParallel)], &threads, args.repeat, base, &|| {}, &never)?;
    let seq = bench_game(&root, &[BenchMode::Mcts(Mode::Sequential)], &[1], args.repeat, base, &|| {}, &never)?;
    let measured: Vec<(usize, f64)> = rows.iter().map(|r| (r.threads, r.playouts_per_sec)).collect();
    let tree_1 = measured.iter().find(|m| m.0 == 1).map_or(f64::NAN, |m| 1e9 / m.1);
    let report = ModelReport::new(&profile, costs, tree_1, seq[0].ns_per_playout(), &measured);
    if args.json {
        return print_json(&report);
    }
    out!(
        "{}: c_rmw {:.1} ns, c_transfer {:.1} ns (half a handoff of {:.1}), tree at 1 thread {:.1} ns per iteration (seq {:.1})",
        report.game,
        costs.rmw_ns,
        costs.transfer_ns,
        costs.handoff_ns,
        report.tree_1_ns,
        report.seq_ns
    );
    out!(
        "{:>7} {:>10} {:>10} {:>10} {:>14} {:>14} {:>8}",
        "threads",
        "transfers",
        "by writes",
        "+atomics",
        "predicted/s",
        "measured/s",
        "error"
    );
    for r in &report.rows {
        let measured = r.measured_playouts_per_sec.map_or("-".to_string(), |m| format!("{m:.0}"));
        let error = r.error.map_or("-".to_string(), |e| format!("{:+.1} %", e * 100.0));
        out!(
            "{:>7} {:>10.2} {:>10.2} {:>10.2} {:>14.0} {:>14} {:>8}",
            r.threads,
            r.transfers,
            r.write_transfers,
            r.extra_rmw,
            r.predicted_playouts_per_sec,
            measured,
            error
        );
    }
    Ok(())
}

/// The counting build's run: measures the contention profile of each thread count and
/// writes it to `--profile`.
fn write_profile<G: SearchGame>(root: &G, args: &ModelArgs, base: &SearchConfig) -> Result<(), Failure> {
    let path = &args.profile;
    let threads = parse_threads("--threads", &args.threads)?;
    let made = profile(root, base, &threads).map_err(Failure::input)?;
    let text = serde_json::to_string_pretty(&made).map_err(Failure::runtime)?;
    std::fs::write(path, text).map_err(|e| Failure::runtime(format!("--profile '{}': {e}", path.display())))?;
    out!(
        "{}: profile of {} playouts per thread count, written to {}",
        made.game,
        base.playouts().unwrap_or(0),
        path.display()
    );
    out!("{:>7} {:>10} {:>10} {:>10} {:>10}", "threads", "atomics", "loads", "transfers", "by writes");
    for r in &made.rows {
        out!("{:>7} {:>10.2} {:>10.2} {:>10.2} {:>10.2}", r.threads, r.rmw, r.loads, r.transfers, r.write_transfers);
    }
    Ok(())
}

/// Reads the contention profile of `G` at `path`, with a 1-thread row.
fn read_profile<G: SearchGame>(path: &std::path::Path) -> Result<ContentionProfile, Failure> {
    let text = std::fs::read_to_string(path).map_err(|e| {
        Failure::flag(
            "--profile",
            format!(
                "cannot read '{}': {e} (a counting build writes it: cargo run --release --features contention -- \
                 model --game {} --profile FILE)",
                path.display(),
                G::NAME
            ),
        )
    })?;
    let profile: ContentionProfile = serde_json::from_str(&text)
        .map_err(|e| Failure::flag("--profile", format!("'{}' is not a profile: {e}", path.display())))?;
    if profile.game != G::NAME {
        let message = format!("'{}' is a profile of {}, not {}", path.display(), profile.game, G::NAME);
        return Err(Failure::flag("--profile", message));
    }
    if profile.rows.iter().all(|r| r.threads != 1) {
        let message = format!("'{}' has no 1-thread row (the model's baseline)", path.display());
        return Err(Failure::flag("--profile", message));
    }
    Ok(profile)
}
