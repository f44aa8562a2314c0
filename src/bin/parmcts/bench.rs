//! `parmcts bench`: the main job, playout throughput per game and mode.

use clap::Args;

use parmcts::games::othello::PlayoutBuild;
use parmcts::harness::benchmark::{bench_game, BenchMode, BenchRow};
use parmcts::harness::report::{BenchReport, BenchRowReport};
use parmcts::search::{Playout, SearchConfig};
use parmcts::{with_game, Game, GameKind};

use crate::common::{
    at_least_one, available_cores, game_parser, out, parse_list, parse_position, parse_threads, print_json,
    progress_bar, BoardFlags, Failure,
};
use crate::flags::{FlagSet, SettingFlags};
use crate::interrupt;

/// The settings `bench` takes as flags: every one but those it sets per row.
#[derive(Clone, Debug)]
pub struct BenchSettings;
impl FlagSet for BenchSettings {
    const EXCLUDED: &'static [&'static str] = &["mode", "threads", "time-ms"];
    const DEFAULTS: &'static [(&'static str, &'static str)] = &[
        ("playouts", "per game: about a quarter second of sequential MCTS"),
        ("seed", "1"),
        ("playout", "random (as the pure rows)"),
        ("prune", "off"),
        ("replies", "off"),
    ];
}

#[derive(Args, Debug)]
#[command(after_help = "Rows: `pure` plays random games with no tree (the game code's own limit); \
`seq`, `tree`, `root` run MCTS in that mode. `x seq` is a row's rate over the sequential MCTS rate \
of the same run; \"tree work per iteration\" is the sequential MCTS time per playout minus the pure \
time per playout. Every row is the median of --repeat runs, interleaved. Parallel ratios need idle \
cores: the run warns when the load average says the machine was busy.")]
pub struct BenchArgs {
    /// One game (default: every game).
    #[arg(long, value_parser = game_parser())]
    game: Option<GameKind>,
    /// Comma-separated modes: pure, seq, tree, root.
    #[arg(long, default_value = "pure,seq,tree,root")]
    modes: String,
    /// Comma-separated thread counts.
    #[arg(long, default_value = "1,2")]
    threads: String,
    /// Repeats per configuration; the median is reported.
    #[arg(long, default_value_t = 5)]
    repeat: usize,
    #[command(flatten)]
    board: BoardFlags,
    #[command(flatten)]
    settings: SettingFlags<BenchSettings>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &BenchArgs) -> Result<(), Failure> {
    let modes: Vec<BenchMode> = parse_list("--modes", &args.modes)?;
    let threads = parse_threads("--threads", &args.threads)?;
    at_least_one("--repeat", args.repeat as u64)?;
    // Each game with its start position's text (a Connect Four board header).
    let games: Vec<(GameKind, String)> = match args.game {
        Some(g) => vec![args.board.resolve(g, "")?],
        None if args.board.given() => return Err(Failure::flag("--width", "a board size needs --game connect4x")),
        None => GameKind::ALL.iter().map(|&g| (g, String::new())).collect(),
    };
    // Every game's configuration is checked before anything is measured.
    let configs = games
        .iter()
        .map(|(game, start)| {
            let game = *game;
            let base = SearchConfig::builder()
                .playouts(game.bench_playouts())
                .seed(1)
                .playout(Playout::Random)
                .prune(false)
                .replies(false);
            Ok((game, start, args.settings.apply(base)?.build()?))
        })
        .collect::<Result<Vec<_>, Failure>>()?;
    let interrupt = interrupt::catch()?;
    let load_before = load_average();
    let bar = progress_bar(None, "{spinner} {elapsed_precise}  {msg}: runs measured: {pos}", args.json);
    let mut rows: Vec<BenchRow> = Vec::new();
    for (game, start, base) in configs.iter().take_while(|_| !interrupt.requested()) {
        bar.set_message(game.name());
        bar.set_position(0);
        let tick = || bar.inc(1);
        let game_rows = with_game!(*game, G => bench_game(&parse_position::<G>(start)?, &modes, &threads, args.repeat, base, &tick, &interrupt))?;
        if !args.json {
            bar.suspend(|| print_table(&game_rows));
        }
        rows.extend(game_rows);
    }
    bar.finish_and_clear();
    if interrupt.requested() && !args.json {
        out!("interrupted: the rows above are those measured, each the median of the repeats it had");
    }
    let load = load_before.zip(load_average()).map(|(a, b)| [a, b]);
    let most_threads = threads.iter().copied().max().unwrap_or(1);
    if let Some([before, after]) = load.filter(|&[before, after]| before >= 1.0 || after > most_threads as f64) {
        eprintln!(
            "warning: the machine was busy (load average {before:.2} before the run, {after:.2} after, with at most \
             {most_threads} threads measured): parallel ratios may be low"
        );
    }
    if args.json {
        let results = rows.iter().map(BenchRowReport::from).collect();
        let report = BenchReport {
            results,
            repeat: args.repeat,
            cores: available_cores(),
            othello_playout_build: PlayoutBuild::detect().name(),
            load_average: load,
            interrupted: interrupt.requested(),
        };
        return print_json(&report);
    }
    Ok(())
}

/// The 1-minute load average (Linux), if it can be read.
fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg").ok()?.split_whitespace().next()?.parse().ok()
}

fn print_table(rows: &[BenchRow]) {
    let Some(first) = rows.first() else { return };
    out!(
        "{} ({} playouts per run, median of repeats, {} cores, {} playout{} in flight per thread)",
        first.game,
        first.playouts,
        available_cores(),
        first.lanes,
        if first.lanes == 1 { "" } else { "s" }
    );
    if first.game == parmcts::Othello::NAME {
        out!("(playouts on the {} build of the Othello kernels)", PlayoutBuild::detect().name());
    }
    out!("{:<6} {:>7} {:>14} {:>12} {:>12}", "mode", "threads", "playouts/s", "ns/playout", "x seq");
    for r in rows {
        out!(
            "{:<6} {:>7} {:>14.0} {:>12.1} {:>12.2}",
            r.mode.name(),
            r.threads,
            r.playouts_per_sec,
            r.ns_per_playout(),
            r.ratio_to_seq.unwrap_or(f64::NAN)
        );
    }
    let pure = rows.iter().find(|r| r.mode == BenchMode::Pure && r.threads == 1);
    let seq = rows.iter().find(|r| r.mode.name() == "seq");
    if let (Some(pure), Some(seq)) = (pure, seq) {
        out!(
            "tree work per iteration (seq MCTS minus pure playout): {:.1} ns; pure/seq rate ratio {:.2}",
            seq.ns_per_playout() - pure.ns_per_playout(),
            pure.playouts_per_sec / seq.playouts_per_sec
        );
    }
    out!("pure: random games, no tree; x seq: rate over this run's sequential MCTS rate; median of repeats");
    out!();
}
