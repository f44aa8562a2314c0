//! `parmcts quality`: how often a player's move keeps a Connect Four position's exact
//! class (won stays won, drawn stays drawn or better), judged by the solver.

use std::path::PathBuf;

use clap::Args;

use parmcts::harness::connect4::quality::{measure, read_positions, QualityConfig, QualityError, QualityReport};
use parmcts::solver::DEFAULT_TT_ENTRIES;
use parmcts::GameKind;

use crate::common::{at_least_one, game_parser, out, parse_spec, print_json, progress_bar, Failure};
use crate::play::SPEC_HELP;

/// Failures listed in the text output (`--json` lists them all).
const TEXT_FAILURES: usize = 20;

/// What `--help` says about the positions, before the player specs.
const POSITIONS_HELP: &str = "Positions: Pascal Pons's format, `<moves> <score>` per line (columns 1-7, the exact \
score for the side to move), e.g. tests/data/connect4/Test_L1_R1. Lost positions are counted apart and not \
played. The solver checks every file score. Each position's player is seeded from --seed and its index, so \
playout-budget players give the same report at any --parallel; move times grow with more workers than \
cores.";

#[derive(Args, Debug)]
#[command(after_help = format!("{POSITIONS_HELP}\n\n{SPEC_HELP}"))]
pub struct QualityArgs {
    /// The game (connect4: the game with an exact solver for any position).
    #[arg(long, value_parser = game_parser())]
    game: GameKind,
    /// A file of positions with exact scores (Pons's format).
    #[arg(long)]
    positions: PathBuf,
    /// The player spec (see below).
    #[arg(long)]
    player: String,
    /// Only the first N positions of the file.
    #[arg(long)]
    limit: Option<usize>,
    /// Positions judged at the same time.
    #[arg(long, default_value_t = 1)]
    parallel: usize,
    /// Seed for the players.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Solver transposition table entries per worker.
    #[arg(long = "tt-entries", default_value_t = DEFAULT_TT_ENTRIES)]
    tt_entries: usize,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

impl From<QualityError> for Failure {
    fn from(e: QualityError) -> Failure {
        match e {
            QualityError::Unreadable { .. } | QualityError::Malformed { .. } | QualityError::NoPositions { .. } => {
                Failure::flag("--positions", e)
            }
            QualityError::Spec(_) => Failure::flag("--player", e),
            QualityError::Player { error, line: 0 } => Failure::from(error),
            QualityError::Solver(_) => Failure::flag("--tt-entries", e),
            QualityError::ZeroParallel => Failure::flag("--parallel", e),
            // A file score the solver refutes is bad input; the rest fail at run time.
            QualityError::ScoreMismatch { .. } => Failure::flag("--positions", e),
            e => Failure::runtime(e),
        }
    }
}

pub fn run(args: &QualityArgs) -> Result<(), Failure> {
    if args.game != GameKind::ConnectFour {
        return Err(Failure::flag("--game", format!("{}: move quality needs an exact solver (connect4)", args.game)));
    }
    parse_spec("--player", &args.player)?;
    at_least_one("--parallel", args.parallel as u64)?;
    if args.limit == Some(0) {
        return Err(Failure::flag("--limit", "bad value '0' (at least 1)"));
    }
    let positions = read_positions(&args.positions, args.limit)?;
    let config = QualityConfig { parallel: args.parallel, seed: args.seed, tt_entries: args.tt_entries };
    let bar = progress_bar(
        Some(positions.len() as u64),
        "{bar:40} {pos}/{len} positions  [{elapsed_precise} < {eta_precise}]",
        args.json,
    );
    let report = measure(&positions, &args.player, &config, |_| bar.inc(1))?;
    bar.finish_and_clear();
    if args.json {
        return print_json(&report);
    }
    print_text(&report);
    Ok(())
}

fn print_text(r: &QualityReport) {
    out!("{} on {} connect4 positions (seed {})", r.player, r.positions, r.seed);
    out!("judged {} (won {}, drawn {}), lost {} (not played)", r.judged, r.won.positions, r.drawn.positions, r.lost);
    match (r.fraction, r.ci95) {
        (Some(f), Some([lo, hi])) => out!("kept {}/{} = {f:.3} [{lo:.3}, {hi:.3}] (95 %, Wilson)", r.kept, r.judged),
        _ => out!("kept -: no won or drawn position"),
    }
    if let (Some(mean), Some(max)) = (r.mean_move_ms, r.max_move_ms) {
        out!("move time: mean {mean:.3} ms, max {max:.3} ms");
    }
    for f in r.failures.iter().take(TEXT_FAILURES) {
        out!(
            "  line {}: {} (score {}) played {} -> {}, keeping: {}",
            f.line,
            f.moves,
            f.score,
            f.chosen,
            f.score_after,
            f.keeping
        );
    }
    if r.failures.len() > TEXT_FAILURES {
        out!("  ... {} more (--json lists them all)", r.failures.len() - TEXT_FAILURES);
    }
}
