//! `parmcts ladder`: what more search is worth. Each rung doubles the playouts per move
//! and plays a match against the rung below; the table gives the Elo of each doubling
//! and their running sum.

use clap::Args;
use parmcts::games::{Evaluate, GameKind};
use parmcts::harness::matches::{run_match, MatchConfig, Openings};
use parmcts::harness::report::MatchReport;
use parmcts::{with_game, SearchGame};
use serde::Serialize;

use crate::common::{at_least_one, game_parser, out, parse_spec, print_json, progress_bar, Failure};

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

/// One rung: `playouts` per move against half as many, and the match between them.
#[derive(Serialize)]
struct Rung {
    playouts: u64,
    /// Elo above the lowest rung: the sum of the doublings so far.
    elo_total: f64,
    #[serde(flatten)]
    report: MatchReport,
}

#[derive(Serialize)]
struct LadderReport {
    game: &'static str,
    player: String,
    openings: String,
    rungs: Vec<Rung>,
}

pub fn run(args: &LadderArgs) -> Result<(), Failure> {
    with_game!(args.game, G => run_game::<G>(args))
}

/// `player` with `playouts=n` added.
fn with_playouts(player: &str, n: u64) -> String {
    match player.split_once(':') {
        Some((kind, options)) if !options.is_empty() => format!("{kind}:{options},playouts={n}"),
        _ => format!("{}:playouts={n}", player.trim_end_matches(':')),
    }
}

fn run_game<G: Evaluate + SearchGame>(args: &LadderArgs) -> Result<(), Failure> {
    if !args.player.starts_with("mcts") {
        return Err(Failure::flag("--player", format!("'{}': the ladder takes an mcts player", args.player)));
    }
    if args.player.contains("playouts=") || args.player.contains("time-ms=") {
        return Err(Failure::flag("--player", "the ladder sets the budget (no playouts= or time-ms=)"));
    }
    at_least_one("--from", args.from)?;
    at_least_one("--games", args.games)?;
    at_least_one("--parallel-games", args.parallel_games as u64)?;
    if args.to < 2 * args.from {
        return Err(Failure::flag("--to", format!("{} leaves no rung above --from {}", args.to, args.from)));
    }
    // Checked once up front, so a bad key, or a top rung past the budget a search
    // takes, fails before any game is played.
    parse_spec("--player", &with_playouts(&args.player, args.from))?;
    let top = args.from << (args.to / args.from).ilog2();
    parse_spec("--to", &with_playouts(&args.player, top))?;
    let openings: Openings = args.openings.parse().map_err(Failure::input)?;
    let config =
        MatchConfig { games: args.games, openings, parallel_games: args.parallel_games, seed: args.seed, sprt: None };
    let mut rungs = Vec::new();
    let mut elo_total = 0.0;
    let mut playouts = args.from * 2;
    while playouts <= args.to {
        let (p1_text, p2_text) = (with_playouts(&args.player, playouts), with_playouts(&args.player, playouts / 2));
        let (p1, p2) = (parse_spec("--player", &p1_text)?, parse_spec("--player", &p2_text)?);
        let bar = progress_bar(
            Some(args.games),
            &format!("{playouts:>9} vs {:>9} {{bar:30}} {{pos}}/{{len}}  {{msg}}  [{{elapsed_precise}}]", playouts / 2),
            false,
        );
        let summary = run_match(&G::new(), &p1, &p2, &config, |_, tally| {
            bar.inc(1);
            bar.set_message(format!("elo {:+.0}", tally.elo()));
        })?;
        bar.finish_and_clear();
        let report = MatchReport::new::<G>(&p1_text, &p2_text, &summary, [None, None]);
        elo_total += report.elo;
        if !args.json {
            let ([slo, shi], [elo_lo, elo_hi]) = (report.score_ci95, report.elo_ci95);
            out!(
                "{:>9} vs {:>9}: +{} ={} -{}  score {:.3} [{slo:.3}, {shi:.3}]  elo {:+.0} [{elo_lo:+.0}, {elo_hi:+.0}]  total {:+.0}",
                playouts,
                playouts / 2,
                report.p1_wins,
                report.draws,
                report.p2_wins,
                report.score,
                report.elo,
                elo_total
            );
        }
        let rung = Rung { playouts, elo_total, report };
        rungs.push(rung);
        playouts *= 2;
    }
    if args.json {
        return print_json(&LadderReport {
            game: G::NAME,
            player: args.player.clone(),
            openings: args.openings.clone(),
            rungs,
        });
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::with_playouts;

    #[test]
    fn the_budget_is_appended_to_any_spec() {
        assert_eq!(with_playouts("mcts", 8), "mcts:playouts=8");
        assert_eq!(with_playouts("mcts:", 8), "mcts:playouts=8");
        assert_eq!(with_playouts("mcts:c=0.5", 8), "mcts:c=0.5,playouts=8");
    }
}
