//! `parmcts ladder`: what more search is worth. Each rung doubles the playouts per move
//! and plays a match against the rung below; the table gives the Elo of each doubling
//! and their running sum.

use std::sync::{Mutex, PoisonError};

use clap::Args;
use indicatif::ProgressBar;
use parmcts::games::{Evaluate, GameKind};
use parmcts::harness::ladder::{run_ladder, rungs, LadderError, LadderPlan, LadderProgress};
use parmcts::harness::matches::{MatchConfig, Openings, Tally};
use parmcts::harness::report::RungReport;
use parmcts::{with_game, SearchGame};

use crate::common::{at_least_one, game_parser, out, print_json, progress_bar, Failure};
use crate::interrupt;

#[derive(Args, Debug)]
pub struct LadderArgs {
    /// The game.
    #[arg(long, value_parser = game_parser())]
    game: GameKind,
    /// The MCTS player without its budget: `mcts`, or `mcts:key=value,...` (no `playouts` or `time-ms`).
    #[arg(long, default_value = "mcts")]
    player: String,
    /// Playouts per move of the lowest rung.
    #[arg(long, default_value_t = 1000)]
    from: u64,
    /// Playouts per move of the highest rung (rungs double from `--from` while they stay within it).
    #[arg(long, default_value_t = 64_000)]
    to: u64,
    /// Games per rung (colours alternate).
    #[arg(long, default_value_t = 200)]
    games: u64,
    /// `start`; `random:R`: each pair of games starts from the same R random plies; or
    /// `all:R`: every opening of R plies in turn, one per pair (games a multiple of twice
    /// their number play each equally).
    #[arg(long, default_value = "random:4")]
    openings: String,
    /// Games played at the same time.
    #[arg(long = "parallel-games", default_value_t = 1)]
    parallel_games: usize,
    /// Seed for openings and players.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &LadderArgs) -> Result<(), Failure> {
    with_game!(args.game, G => run_game::<G>(args))
}

/// The CLI's message for a ladder that cannot be played, naming the flag.
fn failure(e: LadderError) -> Failure {
    match e {
        LadderError::NoRung { from, to } => Failure::flag("--to", format!("{to} leaves no rung above --from {from}")),
        LadderError::ZeroPlayouts => Failure::flag("--from", "bad value '0' (at least 1)"),
        LadderError::TopRung { error, .. } => Failure::flag("--to", error),
        LadderError::Match(e) => e.into(),
        e => Failure::flag("--player", e),
    }
}

/// The progress bar of the rung playing, and each rung's line when the output is text.
struct Progress {
    bar: Mutex<ProgressBar>,
    games: u64,
    text: bool,
}

impl LadderProgress for Progress {
    fn rung_started(&self, playouts: u64) {
        let template =
            format!("{playouts:>9} vs {:>9} {{bar:30}} {{pos}}/{{len}}  {{msg}}  [{{elapsed_precise}}]", playouts / 2);
        *self.bar.lock().unwrap_or_else(PoisonError::into_inner) = progress_bar(Some(self.games), &template, false);
    }

    fn game_finished(&self, _playouts: u64, tally: &Tally) {
        let bar = self.bar.lock().unwrap_or_else(PoisonError::into_inner);
        bar.inc(1);
        bar.set_message(format!("elo {:+.0}", tally.elo()));
    }

    fn rung_finished(&self, rung: &RungReport) {
        self.bar.lock().unwrap_or_else(PoisonError::into_inner).finish_and_clear();
        if !self.text {
            return;
        }
        let report = &rung.report;
        let ([slo, shi], [elo_lo, elo_hi]) = (report.score_ci95, report.elo_ci95);
        out!(
            "{:>9} vs {:>9}: +{} ={} -{}  score {:.3} [{slo:.3}, {shi:.3}]  elo {:+.0} [{elo_lo:+.0}, {elo_hi:+.0}]  total {:+.0}",
            rung.playouts,
            rung.playouts / 2,
            report.p1_wins,
            report.draws,
            report.p2_wins,
            report.score,
            report.elo,
            rung.elo_total
        );
        if report.interrupted {
            out!("{:>22} interrupted after {} of {} games", "", report.games, self.games);
        }
    }
}

fn run_game<G: Evaluate + SearchGame>(args: &LadderArgs) -> Result<(), Failure> {
    at_least_one("--games", args.games)?;
    at_least_one("--parallel-games", args.parallel_games as u64)?;
    let openings: Openings = args.openings.parse().map_err(Failure::input)?;
    let matches = MatchConfig {
        interrupt: interrupt::catch()?,
        ..MatchConfig::new(args.games, openings, args.parallel_games, args.seed)
    };
    let plan = LadderPlan { player: args.player.clone(), from: args.from, to: args.to, matches };
    // The plan is checked before any game is played: a bad key, or a top rung past the
    // budget a search takes, fails at once.
    let progress = Progress { bar: Mutex::new(ProgressBar::hidden()), games: args.games, text: !args.json };
    let report = run_ladder::<G>(&plan, &progress).map_err(failure)?;
    // An interrupted rung may end without finishing its bar.
    progress.bar.lock().unwrap_or_else(PoisonError::into_inner).finish_and_clear();
    if args.json {
        return print_json(&report);
    }
    if report.interrupted {
        let rungs = rungs(&plan).map_or(0, |r| r.len());
        let complete = report.rungs.iter().filter(|r| !r.report.interrupted).count();
        out!("interrupted after {complete} of {rungs} rungs");
    }
    Ok(())
}
