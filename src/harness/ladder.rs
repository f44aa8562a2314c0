//! The ladder behind `parmcts ladder`: what more search is worth. Each rung doubles the
//! playouts per move of one MCTS player and plays a match against the rung below; the
//! report gives the Elo of each doubling and their running sum.

use crate::games::{Evaluate, SearchGame};
use crate::harness::matches::{run_match, MatchConfig, MatchError, Tally};
use crate::harness::players::{PlayerSpec, SpecError};
use crate::harness::report::{LadderReport, MatchReport, RungReport};

/// What one ladder plays.
#[derive(Clone, Debug)]
pub struct LadderPlan {
    /// The MCTS player without its budget: `mcts`, or `mcts:key=value,...` (no
    /// `playouts=` or `time-ms=`).
    pub player: String,
    /// Playouts per move of the lowest rung.
    pub from: u64,
    /// The most playouts per move of a rung: rungs double from `from` while they stay
    /// within it.
    pub to: u64,
    /// Each rung's match (games, openings, games at the same time, seed).
    pub matches: MatchConfig,
}

/// A ladder that cannot be played.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum LadderError {
    /// The player is not an `mcts` spec.
    NotMcts(String),
    /// The player's spec sets a budget (`playouts=` or `time-ms=`): the ladder sets it.
    BudgetGiven(String),
    /// The lowest rung has no playouts.
    ZeroPlayouts,
    /// `to` is below twice `from`: there is no rung to play.
    NoRung {
        /// The lowest rung's playouts.
        from: u64,
        /// The most playouts of a rung.
        to: u64,
    },
    /// The player's spec, with the lowest rung's budget, is bad.
    Player(SpecError),
    /// The top rung's budget is one the player cannot take (more playouts than a
    /// search takes).
    TopRung {
        /// The top rung's playouts.
        playouts: u64,
        /// Why the spec refuses them.
        error: SpecError,
    },
    /// A rung's match could not be played.
    Match(MatchError),
}

impl std::fmt::Display for LadderError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            LadderError::NotMcts(player) => write!(f, "'{player}': the ladder takes an mcts player"),
            LadderError::BudgetGiven(_) => write!(f, "the ladder sets the budget (no playouts= or time-ms=)"),
            LadderError::ZeroPlayouts => write!(f, "the lowest rung needs at least 1 playout per move"),
            LadderError::NoRung { from, to } => {
                write!(f, "{to} leaves no rung above {from} (the top must be at least twice the lowest rung)")
            }
            LadderError::Player(e) => e.fmt(f),
            LadderError::TopRung { playouts, error } => write!(f, "the top rung, {playouts} playouts: {error}"),
            LadderError::Match(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for LadderError {}

impl From<MatchError> for LadderError {
    fn from(e: MatchError) -> Self {
        LadderError::Match(e)
    }
}

/// What a ladder's caller sees while it runs (progress, each rung as it finishes);
/// every method does nothing by default. `game_finished` is called from the threads
/// that play the games.
pub trait LadderProgress: Sync {
    /// The rung of `playouts` per move starts its match.
    fn rung_started(&self, _playouts: u64) {}
    /// A game of the rung of `playouts` finished; `tally` counts the rung's games so far.
    fn game_finished(&self, _playouts: u64, _tally: &Tally) {}
    /// A rung finished.
    fn rung_finished(&self, _rung: &RungReport) {}
}

/// No progress shown.
impl LadderProgress for () {}

/// `player` with `playouts=n` added.
pub fn with_playouts(player: &str, n: u64) -> String {
    match player.split_once(':') {
        Some((kind, options)) if !options.is_empty() => format!("{kind}:{options},playouts={n}"),
        _ => format!("{}:playouts={n}", player.trim_end_matches(':')),
    }
}

/// The playouts of each rung of `plan` (the stronger player of each match), checked:
/// the player's spec with the lowest and the highest budget is parsed before any game
/// is played.
///
/// # Errors
/// [`LadderError`] for a player that is not an MCTS spec or sets its own budget, no
/// rung, or a spec the lowest or the top rung's budget makes invalid.
pub fn rungs(plan: &LadderPlan) -> Result<Vec<u64>, LadderError> {
    if !plan.player.starts_with("mcts") {
        return Err(LadderError::NotMcts(plan.player.clone()));
    }
    if plan.player.contains("playouts=") || plan.player.contains("time-ms=") {
        return Err(LadderError::BudgetGiven(plan.player.clone()));
    }
    if plan.from == 0 {
        return Err(LadderError::ZeroPlayouts);
    }
    if plan.to / 2 < plan.from {
        return Err(LadderError::NoRung { from: plan.from, to: plan.to });
    }
    PlayerSpec::parse(&with_playouts(&plan.player, plan.from)).map_err(LadderError::Player)?;
    // `from · 2^k ≤ to` for every k up to this one: no rung overflows.
    let doublings = (plan.to / plan.from).ilog2();
    let top = plan.from << doublings;
    PlayerSpec::parse(&with_playouts(&plan.player, top))
        .map_err(|error| LadderError::TopRung { playouts: top, error })?;
    Ok((1..=doublings).map(|k| plan.from << k).collect())
}

/// Plays the ladder of `plan` on game `G`: each rung's match from the start position,
/// `playouts` per move (first player) against half as many, in increasing order. On
/// `plan.matches.interrupt` it stops with the rungs played, the last one's match cut
/// short ([`LadderReport::interrupted`]).
///
/// # Errors
/// [`LadderError`] from [`rungs`], before any game; a rung's match that cannot be
/// played.
pub fn run_ladder<G: Evaluate + SearchGame>(
    plan: &LadderPlan,
    progress: &dyn LadderProgress,
) -> Result<LadderReport, LadderError> {
    let budgets = rungs(plan)?;
    let mut report = LadderReport {
        game: G::NAME,
        player: plan.player.clone(),
        openings: plan.matches.openings.to_string(),
        rungs: Vec::with_capacity(budgets.len()),
        interrupted: false,
    };
    let mut elo_total = 0.0;
    for playouts in budgets {
        if plan.matches.interrupt.requested() {
            report.interrupted = true;
            break;
        }
        let (p1_text, p2_text) = (with_playouts(&plan.player, playouts), with_playouts(&plan.player, playouts / 2));
        let p1 = PlayerSpec::parse(&p1_text).map_err(LadderError::Player)?;
        let p2 = PlayerSpec::parse(&p2_text).map_err(LadderError::Player)?;
        progress.rung_started(playouts);
        let summary =
            run_match(&G::new(), &p1, &p2, &plan.matches, |_, tally| progress.game_finished(playouts, tally))?;
        // A rung interrupted before any game finished has nothing to report.
        if summary.interrupted && summary.tally.games() == 0 {
            report.interrupted = true;
            break;
        }
        let matched = MatchReport::new::<G>(&p1_text, &p2_text, &summary, [None, None]);
        elo_total += matched.elo;
        let rung = RungReport { playouts, elo_total, report: matched };
        progress.rung_finished(&rung);
        report.rungs.push(rung);
        if summary.interrupted {
            report.interrupted = true;
            break;
        }
    }
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::harness::matches::Openings;

    fn plan(player: &str, from: u64, to: u64) -> LadderPlan {
        let matches = MatchConfig {
            games: 2,
            openings: Openings::Start,
            parallel_games: 1,
            seed: 0,
            sprt: None,
            interrupt: Default::default(),
            referee: None,
            handicap: None,
        };
        LadderPlan { player: player.to_string(), from, to, matches }
    }

    #[test]
    fn the_budget_is_appended_to_any_spec() {
        assert_eq!(with_playouts("mcts", 8), "mcts:playouts=8");
        assert_eq!(with_playouts("mcts:", 8), "mcts:playouts=8");
        assert_eq!(with_playouts("mcts:c=0.5", 8), "mcts:c=0.5,playouts=8");
    }

    #[test]
    fn rungs_double_from_the_lowest_within_the_top() {
        assert_eq!(rungs(&plan("mcts", 100, 800)), Ok(vec![200, 400, 800]));
        assert_eq!(rungs(&plan("mcts", 100, 799)), Ok(vec![200, 400]));
        assert_eq!(rungs(&plan("mcts:c=0.5", 1, 2)), Ok(vec![2]));
    }

    #[test]
    fn bad_plans_are_named_before_any_game() {
        assert_eq!(rungs(&plan("random", 1, 8)), Err(LadderError::NotMcts("random".into())));
        assert!(matches!(rungs(&plan("mcts:playouts=5", 1, 8)), Err(LadderError::BudgetGiven(_))));
        assert!(matches!(rungs(&plan("mcts:time-ms=5", 1, 8)), Err(LadderError::BudgetGiven(_))));
        assert_eq!(rungs(&plan("mcts", 0, 8)), Err(LadderError::ZeroPlayouts));
        assert_eq!(rungs(&plan("mcts", 100, 150)), Err(LadderError::NoRung { from: 100, to: 150 }));
        assert!(matches!(rungs(&plan("mcts:bogus=1", 1, 8)), Err(LadderError::Player(_))));
        let top = rungs(&plan("mcts", 1000, 99_999_999_999_999));
        assert!(matches!(top, Err(LadderError::TopRung { .. })), "{top:?}");
        assert!(rungs(&plan("mcts", u64::MAX / 2, u64::MAX)).is_err());
    }
}
