//! The scaling experiment behind `parmcts scale`: for each parallel mode and thread
//! count, measured in one run,
//!
//! * **throughput speedup**: playouts per second against the sequential search
//!   ([`crate::harness::benchmark::bench_game`]: interleaved repeats, medians);
//! * **search overhead**: the parallel search against the sequential one at *equal
//!   playouts* (a score below 0.5 is what the parallel tree loses per playout);
//! * **strength speedup** (Chaslot, Winands & van den Herik 2008, "Parallel Monte-Carlo
//!   Tree Search"): the parallel search at `T` ms per move against the sequential search
//!   at `k·T` for `k = 1, 2, 4, …`; the speedup is the `k` at which the score crosses
//!   0.5, interpolated in `log k`, with the interval where the scores' 95 % intervals
//!   cross it.
//!
//! Efficiency is a speedup over the thread count. Games are played one at a time, so that
//! the searches being compared have the machine's cores to themselves.

use std::time::Duration;

use serde::Serialize;

use crate::games::{Evaluate, GameKind, SearchGame};
use crate::harness::benchmark::{bench_game, BenchMode};
use crate::harness::interrupt::Interrupt;
use crate::harness::matches::{run_match, MatchConfig, MatchError, Openings, Tally};
use crate::harness::players::PlayerSpec;
use crate::harness::report::BenchRowReport;
use crate::search::{ConfigError, Mode, SearchConfig, SearchError};

/// What one `parmcts scale` run measures.
#[derive(Clone, Debug)]
pub struct ScalePlan {
    /// Parallel modes (tree, root).
    pub modes: Vec<Mode>,
    /// Thread counts (1 is measured for throughput only).
    pub threads: Vec<usize>,
    /// Time per move `T` of the parallel player in the strength matches.
    pub time: Duration,
    /// The factors `k` of the sequential player's time `k·T`.
    pub time_factors: Vec<u32>,
    /// Games per match (colours alternate, openings paired).
    pub games: u64,
    /// Random plies opening each pair of games.
    pub opening_plies: u32,
    /// Repeats per throughput row.
    pub repeats: usize,
    /// Playouts per throughput run.
    pub bench_playouts: u64,
    /// Seed of the openings and players.
    pub seed: u64,
}

/// The sizes of a scale run that `--quick` replaces.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScaleSizes {
    /// Time per move `T` of the parallel player, in milliseconds.
    pub time_ms: u64,
    /// The factors `k` of the sequential player's time `k·T`.
    pub time_factors: Vec<u32>,
    /// Games per match.
    pub games: u64,
    /// Repeats per throughput row.
    pub repeats: usize,
}

impl ScaleSizes {
    /// `--quick`'s sizes: the whole run in seconds, a smoke test rather than a measurement.
    pub fn quick() -> ScaleSizes {
        ScaleSizes { time_ms: 5, time_factors: vec![1, 2], games: 10, repeats: 3 }
    }
}

impl ScalePlan {
    /// The plan for `game` of `sizes` (with `quick`, [`ScaleSizes::quick`] instead): two
    /// random plies opening each pair of games, and half the game's benchmark budget per
    /// throughput run (a tenth when quick).
    pub fn new(
        game: GameKind,
        modes: Vec<Mode>,
        threads: Vec<usize>,
        sizes: ScaleSizes,
        quick: bool,
        seed: u64,
    ) -> Self {
        let ScaleSizes { time_ms, time_factors, games, repeats } = if quick { ScaleSizes::quick() } else { sizes };
        ScalePlan {
            modes,
            threads,
            time: Duration::from_millis(time_ms),
            time_factors,
            games,
            opening_plies: 2,
            repeats,
            bench_playouts: game.bench_playouts() / if quick { 10 } else { 2 },
            seed,
        }
    }
}

/// A scale run that cannot go on.
#[derive(Debug)]
#[non_exhaustive]
pub enum ScaleError {
    /// A configuration of the plan is invalid.
    Search(SearchError),
    /// A match could not be played.
    Match(MatchError),
    /// The plan has nothing to measure (named).
    EmptyPlan(&'static str),
    /// A mode of the plan is not a parallel one (tree, root, sync).
    NotParallel(Mode),
    /// The time factors are not increasing factors of at least 1.
    TimeFactors(Vec<u32>),
}

impl std::fmt::Display for ScaleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ScaleError::Search(e) => e.fmt(f),
            ScaleError::Match(e) => e.fmt(f),
            ScaleError::EmptyPlan(what) => write!(f, "nothing to measure: {what}"),
            ScaleError::NotParallel(mode) => {
                write!(
                    f,
                    "mode '{mode}': the parallel modes are tree, root and sync (the sequential search is the baseline)"
                )
            }
            ScaleError::TimeFactors(k) => write!(f, "time factors {k:?}: increasing factors of at least 1"),
        }
    }
}

impl std::error::Error for ScaleError {}

impl From<SearchError> for ScaleError {
    fn from(e: SearchError) -> Self {
        ScaleError::Search(e)
    }
}

impl From<ConfigError> for ScaleError {
    fn from(e: ConfigError) -> Self {
        ScaleError::Search(e.into())
    }
}

impl From<MatchError> for ScaleError {
    fn from(e: MatchError) -> Self {
        ScaleError::Match(e)
    }
}

/// A match's result from the first player's side.
#[derive(Clone, Debug, Serialize)]
pub struct Score {
    /// Games played.
    pub games: u64,
    /// The first player's score, 0 to 1.
    pub score: f64,
    /// Its 95 % interval (Wilson).
    pub ci95: [f64; 2],
}

impl From<&Tally> for Score {
    fn from(t: &Tally) -> Score {
        let (lo, hi) = t.score_ci95();
        Score { games: t.games(), score: t.score(), ci95: [lo, hi] }
    }
}

/// The parallel search against the sequential one at equal playouts.
#[derive(Clone, Debug, Serialize)]
pub struct OverheadRow {
    /// `tree` or `root`.
    pub mode: &'static str,
    /// Threads.
    pub threads: usize,
    /// Playouts per move of both players (the sequential rate times `T`).
    pub playouts: u64,
    /// The parallel player's score.
    pub result: Score,
}

/// The parallel search at `T` against the sequential one at `k·T`.
#[derive(Clone, Debug, Serialize)]
pub struct StrengthRow {
    /// `tree` or `root`.
    pub mode: &'static str,
    /// Threads.
    pub threads: usize,
    /// The sequential player's time factor.
    pub k: u32,
    /// The parallel player's score.
    pub result: Score,
}

/// Where a score curve crosses 0.5, in time factors `k`.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Crossing {
    /// At this `k` (interpolated in `log k`).
    At(f64),
    /// Below the smallest factor measured (every score under 0.5).
    Below(f64),
    /// Above the largest factor measured (every score over 0.5).
    Above(f64),
}

impl Crossing {
    /// The crossing's `k`, where it was found.
    pub fn at(self) -> Option<f64> {
        match self {
            Crossing::At(k) => Some(k),
            _ => None,
        }
    }
}

impl std::fmt::Display for Crossing {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            Crossing::At(k) => write!(f, "{k:.2}"),
            Crossing::Below(k) => write!(f, "<{k}"),
            Crossing::Above(k) => write!(f, ">{k}"),
        }
    }
}

/// Where the strength scores cross 0.5: the strength speedup.
#[derive(Clone, Debug, Serialize)]
pub struct StrengthSpeedup {
    /// `tree` or `root`.
    pub mode: &'static str,
    /// Threads.
    pub threads: usize,
    /// The speedup: where the scores cross 0.5.
    pub speedup: Crossing,
    /// Its 95 % interval: where the scores' lower and upper 95 % bounds cross 0.5.
    pub ci95: [Crossing; 2],
    /// Speedup over threads, where the speedup was found.
    pub efficiency: Option<f64>,
}

/// Everything one `parmcts scale` run measured.
#[derive(Clone, Debug, Serialize)]
pub struct ScaleReport {
    /// The game's name.
    pub game: &'static str,
    /// Time per move `T` in ms.
    pub time_ms: f64,
    /// Games per match.
    pub games: u64,
    /// Throughput rows (`ratio_to_seq` is the throughput speedup).
    pub throughput: Vec<BenchRowReport>,
    /// Search overhead at equal playouts.
    pub overhead: Vec<OverheadRow>,
    /// Strength matches.
    pub strength: Vec<StrengthRow>,
    /// Strength speedups, each from its row's every match.
    pub strength_speedup: Vec<StrengthSpeedup>,
    /// Whether the run was interrupted (Ctrl-C): the rows are those measured, the last
    /// match counted over its finished games.
    pub interrupted: bool,
}

/// Where the points `(k, y)` (increasing `k`, `y` falling with `k`) cross 0.5: the
/// first crossing, interpolated linearly in `log k`. `points` must not be empty.
pub fn crossing(points: &[(u32, f64)]) -> Crossing {
    let (first, last) = (f64::from(points[0].0), f64::from(points[points.len() - 1].0));
    if points.iter().all(|&(_, y)| y > 0.5) {
        return Crossing::Above(last);
    }
    if points.iter().all(|&(_, y)| y < 0.5) {
        return Crossing::Below(first);
    }
    for pair in points.windows(2) {
        let ((k0, y0), (k1, y1)) = (pair[0], pair[1]);
        if y0 == 0.5 {
            return Crossing::At(f64::from(k0));
        }
        if (y0 - 0.5) * (y1 - 0.5) < 0.0 || y1 == 0.5 {
            let (l0, l1) = (f64::from(k0).log2(), f64::from(k1).log2());
            return Crossing::At((l0 + (y0 - 0.5) / (y0 - y1) * (l1 - l0)).exp2());
        }
    }
    // Only the last point is at 0.5 or beyond it (a single point at 0.5).
    Crossing::At(last)
}

/// Runs `plan` on game `G` with the search settings of `base` (its mode, threads and
/// budgets are set per measurement). `on_game` is called after every match game. Once
/// `interrupt` is requested nothing more starts: the report holds what was measured,
/// a match cut short counted over its finished games ([`ScaleReport::interrupted`]).
///
/// # Errors
/// [`ScaleError`] for an empty plan, a mode that is not parallel, time factors that
/// are not increasing, a configuration that cannot run, or a match that cannot be
/// played; the plan's own faults before anything is measured.
pub fn run_scale<G: Evaluate + SearchGame>(
    plan: &ScalePlan,
    base: &SearchConfig,
    on_game: &(dyn Fn() + Sync),
    interrupt: &Interrupt,
) -> Result<ScaleReport, ScaleError> {
    check_plan(plan)?;
    let root = G::new();
    // The sequential row is kept: it is the baseline of the equal-playout matches.
    let bench_modes: Vec<BenchMode> =
        std::iter::once(Mode::Sequential).chain(plan.modes.iter().copied()).map(BenchMode::Mcts).collect();
    let bench_base = base.with_playouts(plan.bench_playouts)?;
    let rows = bench_game(&root, &bench_modes, &plan.threads, plan.repeats, &bench_base, &|| {}, interrupt)?;
    let seq_rate =
        rows.iter().find(|r| r.mode == BenchMode::Mcts(Mode::Sequential)).map_or(1.0, |r| r.playouts_per_sec);
    let mut report = ScaleReport {
        game: G::NAME,
        time_ms: plan.time.as_secs_f64() * 1e3,
        games: plan.games,
        throughput: rows.iter().map(BenchRowReport::from).collect(),
        overhead: Vec::new(),
        strength: Vec::new(),
        strength_speedup: Vec::new(),
        interrupted: false,
    };
    // Equal playouts: what the sequential search runs in `T`.
    let playouts = ((seq_rate * plan.time.as_secs_f64()).round() as u64).max(1);
    let matches = MatchConfig {
        interrupt: interrupt.clone(),
        ..MatchConfig::new(plan.games, Openings::Random(plan.opening_plies), 1, plan.seed)
    };
    let play = |p1: SearchConfig, p2: SearchConfig| -> Result<Score, ScaleError> {
        let (p1, p2) = (PlayerSpec::Mcts(p1), PlayerSpec::Mcts(p2));
        let summary = run_match(&root, &p1, &p2, &matches, |_, _| on_game())?;
        Ok(Score::from(&summary.tally))
    };
    let sequential = |budget: MoveBudget| budget.apply(base, Mode::Sequential, 1);
    'rows: for &mode in &plan.modes {
        for &threads in plan.threads.iter().filter(|&&t| t > 1) {
            if interrupt.requested() {
                break 'rows;
            }
            let parallel = |budget: MoveBudget| budget.apply(base, mode, threads);
            let result = play(parallel(MoveBudget::Playouts(playouts))?, sequential(MoveBudget::Playouts(playouts))?)?;
            report.overhead.push(OverheadRow { mode: mode.name(), threads, playouts, result });
            let mut points = Vec::new();
            for &k in plan.time_factors.iter().take_while(|_| !interrupt.requested()) {
                let slow = plan.time.saturating_mul(k);
                let result = play(parallel(MoveBudget::Time(plan.time))?, sequential(MoveBudget::Time(slow))?)?;
                points.push((k, result.score, result.ci95));
                report.strength.push(StrengthRow { mode: mode.name(), threads, k, result });
            }
            // A speedup only from every factor's whole match.
            if !interrupt.requested() {
                report.strength_speedup.push(speedup_of(mode, threads, &points));
            }
        }
    }
    report.interrupted = interrupt.requested();
    Ok(report)
}

/// Refuses a plan that measures nothing, a mode that is not parallel, or time factors
/// that do not increase.
fn check_plan(plan: &ScalePlan) -> Result<(), ScaleError> {
    if plan.modes.is_empty() || plan.threads.is_empty() {
        return Err(ScaleError::EmptyPlan("no modes or no thread counts"));
    }
    if plan.time_factors.is_empty() || plan.games == 0 {
        return Err(ScaleError::EmptyPlan("no time factors or no games"));
    }
    // The baseline is always measured; the simulator has no throughput to scale.
    if let Some(&mode) = plan.modes.iter().find(|&&m| matches!(m, Mode::Sequential | Mode::Virtual | Mode::Auto)) {
        return Err(ScaleError::NotParallel(mode));
    }
    if plan.time_factors.contains(&0) || plan.time_factors.windows(2).any(|w| w[0] >= w[1]) {
        return Err(ScaleError::TimeFactors(plan.time_factors.clone()));
    }
    Ok(())
}

/// A player's budget per move in a scale match.
#[derive(Clone, Copy, Debug)]
enum MoveBudget {
    Playouts(u64),
    Time(Duration),
}

impl MoveBudget {
    /// `base` in `mode` with `threads`, under this budget alone.
    fn apply(self, base: &SearchConfig, mode: Mode, threads: usize) -> Result<SearchConfig, ConfigError> {
        let config = match self {
            MoveBudget::Playouts(n) => base.with_playouts(n)?,
            MoveBudget::Time(t) => base.with_time(t)?,
        };
        config.with_mode(mode, threads)
    }
}

/// The strength speedup from the scores at each factor (`(k, score, ci95)`).
fn speedup_of(mode: Mode, threads: usize, points: &[(u32, f64, [f64; 2])]) -> StrengthSpeedup {
    let curve = |pick: fn(&(u32, f64, [f64; 2])) -> f64| points.iter().map(|p| (p.0, pick(p))).collect::<Vec<_>>();
    let speedup = crossing(&curve(|p| p.1));
    StrengthSpeedup {
        mode: mode.name(),
        threads,
        speedup,
        // The lower score bounds cross 0.5 first: the low end of the interval.
        ci95: [crossing(&curve(|p| p.2[0])), crossing(&curve(|p| p.2[1]))],
        efficiency: speedup.at().map(|s| s / threads as f64),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_crossing_is_interpolated_in_log_k() {
        // 0.6 at k = 1, 0.4 at k = 4: halfway in log k is k = 2.
        let k = crossing(&[(1, 0.6), (4, 0.4)]).at().unwrap();
        assert!((k - 2.0).abs() < 1e-9, "{k}");
        // A crossing between the second and third points.
        let k = crossing(&[(1, 0.7), (2, 0.55), (4, 0.45)]).at().unwrap();
        assert!((k - 2.0f64.powf(1.5)).abs() < 1e-9, "{k}");
        // Exactly 0.5 at a factor.
        assert_eq!(crossing(&[(1, 0.6), (2, 0.5), (4, 0.4)]), Crossing::At(2.0));
        assert_eq!(crossing(&[(1, 0.6), (2, 0.55)]), Crossing::Above(2.0));
        assert_eq!(crossing(&[(1, 0.4), (2, 0.3)]), Crossing::Below(1.0));
        assert_eq!(Crossing::Above(4.0).to_string(), ">4");
    }

    #[test]
    fn a_plan_that_measures_nothing_parallel_is_refused_before_it_runs() {
        let plan = |modes: Vec<Mode>, time_factors: Vec<u32>| ScalePlan {
            modes,
            threads: vec![1, 2],
            time: Duration::from_millis(1),
            time_factors,
            games: 2,
            opening_plies: 2,
            repeats: 1,
            bench_playouts: 10,
            seed: 1,
        };
        let base = SearchConfig::builder().playouts(1).build().unwrap();
        let interrupt = Interrupt::default();
        let run =
            |plan: &ScalePlan| run_scale::<crate::TicTacToe>(plan, &base, &|| panic!("a game was played"), &interrupt);
        let err = run(&plan(vec![Mode::TreeParallel, Mode::Sequential], vec![1, 2])).unwrap_err();
        assert!(matches!(err, ScaleError::NotParallel(Mode::Sequential)), "{err}");
        assert!(err.to_string().contains("tree, root and sync"), "{err}");
        for k in [vec![0, 1], vec![2, 2], vec![4, 2]] {
            assert!(matches!(run(&plan(vec![Mode::TreeParallel], k)), Err(ScaleError::TimeFactors(_))));
        }
    }

    #[test]
    fn speedups_come_with_their_interval_and_efficiency() {
        let points = [(1, 0.6, [0.5, 0.7]), (2, 0.5, [0.4, 0.6]), (4, 0.4, [0.3, 0.5])];
        let s = speedup_of(Mode::TreeParallel, 2, &points);
        assert_eq!(s.speedup, Crossing::At(2.0));
        assert_eq!(s.ci95, [Crossing::At(1.0), Crossing::At(4.0)]);
        assert_eq!(s.efficiency, Some(1.0));
        let wide = speedup_of(Mode::RootParallel, 2, &[(1, 0.75, [0.45, 0.9]), (2, 0.5, [0.25, 0.75])]);
        assert_eq!((wide.speedup, wide.ci95), (Crossing::At(2.0), [Crossing::Below(1.0), Crossing::Above(2.0)]));
    }
}
