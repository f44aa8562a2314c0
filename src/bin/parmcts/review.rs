//! `parmcts review`: where a match's Connect Four games were decided, from its records,
//! every position from a given ply on solved by the exact solver.

use std::path::PathBuf;

use clap::Args;

use parmcts::harness::connect4::review::{read_records, review, ReviewConfig, ReviewError, ReviewReport, PLY_BAND};
use parmcts::solver::DEFAULT_TT_ENTRIES;
use parmcts::GameKind;

use crate::common::{at_least_one, game_parser, out, print_json, progress_bar, Failure};

/// What `--help` says after the flags.
const REVIEW_HELP: &str = "Records: the file `parmcts match --game connect4 --records FILE` writes, one match's \
games. Each position from --from-ply on is solved weakly (win, draw or loss); a move that leaves its mover a \
worse class is value-losing and charged to the spec that made it. The first ply sets the cost: about a second a \
position at ply 12 on one core, minutes at ply 2.";

#[derive(Args, Debug)]
#[command(after_help = REVIEW_HELP)]
pub struct ReviewArgs {
    /// The game (connect4: the game with an exact solver for any position).
    #[arg(long, value_parser = game_parser())]
    game: GameKind,
    /// A `match --records` file.
    #[arg(long)]
    records: PathBuf,
    /// The first ply judged: the position after this many plies is the first solved.
    #[arg(long = "from-ply", default_value_t = 12)]
    from_ply: usize,
    /// Games reviewed at the same time.
    #[arg(long, default_value_t = 1)]
    parallel: usize,
    /// Solver transposition table entries per worker.
    #[arg(long = "tt-entries", default_value_t = DEFAULT_TT_ENTRIES)]
    tt_entries: usize,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

impl From<ReviewError> for Failure {
    fn from(e: ReviewError) -> Failure {
        match e {
            ReviewError::Unreadable { .. }
            | ReviewError::Malformed { .. }
            | ReviewError::NoGames { .. }
            | ReviewError::MixedPlayers { .. } => Failure::flag("--records", e),
            ReviewError::Solver(_) => Failure::flag("--tt-entries", e),
            ReviewError::ZeroParallel => Failure::flag("--parallel", e),
            e => Failure::runtime(e),
        }
    }
}

pub fn run(args: &ReviewArgs) -> Result<(), Failure> {
    if args.game != GameKind::ConnectFour {
        return Err(Failure::flag("--game", format!("{}: a review needs an exact solver (connect4)", args.game)));
    }
    at_least_one("--parallel", args.parallel as u64)?;
    let games = read_records(&args.records)?;
    let config = ReviewConfig { from_ply: args.from_ply, parallel: args.parallel, tt_entries: args.tt_entries };
    let bar = progress_bar(
        Some(games.len() as u64),
        "{bar:40} {pos}/{len} games  [{elapsed_precise} < {eta_precise}]",
        args.json,
    );
    let report = review(&games, &config, |_| bar.inc(1))?;
    bar.finish_and_clear();
    if args.json {
        return print_json(&report);
    }
    print_text(&report);
    Ok(())
}

fn print_text(r: &ReviewReport) {
    let [p1, p2] = &r.players;
    out!("{p1} (p1) vs {p2} (p2): {} connect4 games, {} judged from ply {}", r.games, r.judged, r.from_ply);
    out!("the class at ply {} against the result, p1's side:", r.from_ply);
    out!("  {:<22} {:>7} {:>7} {:>7}", "with perfect play", "p1 won", "drawn", "p2 won");
    for (name, row) in ["p1 wins", "drawn", "p2 wins"].iter().zip(r.outcomes) {
        out!("  {name:<22} {:>7} {:>7} {:>7}", row[0], row[1], row[2]);
    }
    if r.judged > 0 {
        let share = r.as_solved() as f64 / r.judged as f64;
        out!("results as perfect play from ply {} gives: {}/{} = {share:.3}", r.from_ply, r.as_solved(), r.judged);
    }
    for (spec, name) in ["p1", "p2"].iter().enumerate() {
        out!("value-losing moves of {name}: {} of {} moves judged", r.errors[spec], r.moves[spec]);
    }
    for (band, p1, p2) in &r.errors_by_ply {
        out!("  plies {band}-{}: p1 {p1}, p2 {p2}", band + PLY_BAND - 1);
    }
}
