//! `parmcts scale`: what more cores are worth, per mode and thread count, in one run:
//! throughput speedup, search overhead at equal playouts and strength speedup.

use std::path::{Path, PathBuf};

use clap::Args;

use parmcts::alphabeta::Evaluate;
use parmcts::harness::scale::{run_scale, ScalePlan, ScaleReport, ScaleSizes};
use parmcts::search::{Mode, SearchConfig};
use parmcts::{with_game, GameKind, SearchGame};

use crate::common::{at_least_one, game_parser, out, parse_list, parse_threads, print_json, progress_bar, Failure};
use crate::flags::{FlagSet, SettingFlags};
use crate::{interrupt, plots};

/// The settings `scale` takes as flags: all but those it sets per measurement.
#[derive(Clone, Debug)]
pub struct ScaleSettings;
impl FlagSet for ScaleSettings {
    const EXCLUDED: &'static [&'static str] = &["mode", "threads", "time-ms", "playouts", "seed"];
}

#[derive(Args, Debug)]
#[command(after_help = "Throughput speedup: playouts/s over the sequential search's (bench's interleaved \
medians). Search overhead: the parallel search against the sequential one at equal playouts (what \
the sequential search runs in T). Strength speedup (Chaslot, Winands & van den Herik 2008): the \
parallel search at T ms per move against the sequential one at k*T; the k where the score crosses \
0.5, interpolated in log k, with the interval where the scores' 95 % bounds cross it. Efficiency: \
speedup / threads. Match games run one at a time, openings of 2 random plies paired, colours \
alternating. Run on an idle machine.")]
pub struct ScaleArgs {
    /// The game.
    #[arg(long, value_parser = game_parser())]
    game: GameKind,
    /// Comma-separated parallel modes: tree, root, sync.
    #[arg(long, default_value = "tree,root")]
    modes: String,
    /// Comma-separated thread counts (1 is measured for throughput).
    #[arg(long, default_value = "1,2")]
    threads: String,
    /// Time per move T of the parallel player, in ms.
    #[arg(long = "time-ms", default_value_t = 20)]
    time_ms: u64,
    /// Comma-separated factors k of the sequential player's time k*T.
    #[arg(long, default_value = "1,2,4")]
    k: String,
    /// Games per match.
    #[arg(long, default_value_t = 100)]
    games: u64,
    /// Repeats per throughput row.
    #[arg(long, default_value_t = 5)]
    repeat: usize,
    /// Seed of the openings and players.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// A short run (about 2 minutes): T = 5 ms, k = 1,2, 10 games, 3 repeats.
    #[arg(long)]
    quick: bool,
    #[command(flatten)]
    settings: SettingFlags<ScaleSettings>,
    /// Write every figure as CSV rows to this file.
    #[arg(long)]
    csv: Option<PathBuf>,
    /// Write SVG plots of the speedups against threads into this folder.
    #[arg(long)]
    plot: Option<PathBuf>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

fn plan(args: &ScaleArgs) -> Result<ScalePlan, Failure> {
    let modes: Vec<Mode> = parse_list("--modes", &args.modes)?;
    // The baseline is always measured; the simulator has no throughput to scale.
    if let Some(m) = modes.iter().find(|&&m| matches!(m, Mode::Sequential | Mode::Virtual | Mode::Auto)) {
        return Err(Failure::flag("--modes", format!("bad value '{m}': the parallel modes are tree, root and sync")));
    }
    let threads = parse_threads("--threads", &args.threads)?;
    let time_factors: Vec<u32> = parse_list("--k", &args.k)?;
    if time_factors.contains(&0) || time_factors.windows(2).any(|w| w[0] >= w[1]) {
        return Err(Failure::flag("--k", format!("bad value '{}' (increasing factors of at least 1)", args.k)));
    }
    let sizes = ScaleSizes { time_ms: args.time_ms, time_factors, games: args.games, repeats: args.repeat };
    let plan = ScalePlan::new(args.game, modes, threads, sizes, args.quick, args.seed);
    let time_ms = u64::try_from(plan.time.as_millis()).unwrap_or(u64::MAX);
    for (flag, value) in [("--time-ms", time_ms), ("--games", plan.games), ("--repeat", plan.repeats as u64)] {
        at_least_one(flag, value)?;
    }
    Ok(plan)
}

pub fn run(args: &ScaleArgs) -> Result<(), Failure> {
    let plan = plan(args)?;
    let base = args.settings.apply(SearchConfig::builder().playouts(1).seed(args.seed))?.build()?;
    let report = with_game!(args.game, G => run_game::<G>(&plan, &base, args.json))?;
    if let Some(path) = &args.csv {
        std::fs::write(path, csv(&report)).map_err(|e| Failure::runtime(format!("--csv '{}': {e}", path.display())))?;
    }
    if let Some(dir) = &args.plot {
        plots::write(&report, dir).map_err(|e| Failure::runtime(format!("--plot '{}': {e}", dir.display())))?;
    }
    if args.json {
        return print_json(&report);
    }
    print_text(&report, args.plot.as_deref());
    Ok(())
}

fn run_game<G: Evaluate + SearchGame>(
    plan: &ScalePlan,
    base: &SearchConfig,
    quiet: bool,
) -> Result<ScaleReport, Failure> {
    let parallel_rows = plan.modes.len() * plan.threads.iter().filter(|&&t| t > 1).count();
    let games = parallel_rows as u64 * (1 + plan.time_factors.len() as u64) * plan.games;
    let bar = progress_bar(Some(games), "{bar:40} {pos}/{len} match games  [{elapsed_precise} < {eta_precise}]", quiet);
    let interrupt = interrupt::catch()?;
    let report = run_scale::<G>(plan, base, &|| bar.inc(1), &interrupt).map_err(Failure::input)?;
    bar.finish_and_clear();
    Ok(report)
}

/// Every figure as one CSV row: `metric,mode,threads,k,value,low,high,note`. The numeric
/// columns are empty where a figure lies beyond what was measured; `note` then says where
/// (`>4`: above the largest factor, `<1`: below the smallest).
fn csv(r: &ScaleReport) -> String {
    let mut text = String::from("metric,mode,threads,k,value,low,high,note\n");
    let num = |x: Option<f64>| x.map_or(String::new(), |x| x.to_string());
    for t in &r.throughput {
        text.push_str(&format!("throughput_speedup,{},{},,{},,,\n", t.mode, t.threads, num(t.ratio_to_seq)));
    }
    for o in &r.overhead {
        let [lo, hi] = o.result.ci95;
        let note = format!("{} playouts per move", o.playouts);
        text.push_str(&format!("overhead_score,{},{},,{},{lo},{hi},{note}\n", o.mode, o.threads, o.result.score));
    }
    for s in &r.strength {
        let [lo, hi] = s.result.ci95;
        text.push_str(&format!("strength_score,{},{},{},{},{lo},{hi},\n", s.mode, s.threads, s.k, s.result.score));
    }
    for s in &r.strength_speedup {
        let [lo, hi] = s.ci95;
        let (value, low, high) = (num(s.speedup.at()), num(lo.at()), num(hi.at()));
        let note = format!("{} [{lo} {hi}]", s.speedup);
        text.push_str(&format!("strength_speedup,{},{},,{value},{low},{high},{note}\n", s.mode, s.threads));
    }
    text
}

fn print_text(r: &ScaleReport, plots: Option<&Path>) {
    out!("{}: T = {} ms per move, {} games per match", r.game, r.time_ms, r.games);
    out!("{:<6} {:>7} {:>12} {:>10} {:>11}", "mode", "threads", "playouts/s", "speedup", "efficiency");
    for t in &r.throughput {
        let speedup = t.ratio_to_seq.unwrap_or(f64::NAN);
        out!(
            "{:<6} {:>7} {:>12.0} {:>10.2} {:>11.2}",
            t.mode,
            t.threads,
            t.playouts_per_sec,
            speedup,
            speedup / t.threads as f64
        );
    }
    for o in &r.overhead {
        let [lo, hi] = o.result.ci95;
        out!(
            "overhead {} x{}: score {:.3} [{lo:.3}, {hi:.3}] at {} playouts per move",
            o.mode,
            o.threads,
            o.result.score,
            o.playouts
        );
    }
    for s in &r.strength {
        let [lo, hi] = s.result.ci95;
        out!(
            "strength {} x{} at T vs seq at {}T: score {:.3} [{lo:.3}, {hi:.3}]",
            s.mode,
            s.threads,
            s.k,
            s.result.score
        );
    }
    for s in &r.strength_speedup {
        let [lo, hi] = s.ci95;
        let efficiency = s.efficiency.map_or("-".to_string(), |e| format!("{e:.2}"));
        out!("strength speedup {} x{}: {} [{lo}, {hi}], efficiency {efficiency}", s.mode, s.threads, s.speedup);
    }
    if let Some(dir) = plots {
        out!("plots in {}", dir.display());
    }
    if r.interrupted {
        out!("interrupted: the figures above are those measured (a match cut short counts its finished games)");
    }
}
