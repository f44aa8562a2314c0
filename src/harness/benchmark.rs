//! The throughput benchmark behind `parmcts bench`: pure random playouts (the physical
//! limit of the same game code, no tree), and MCTS in each mode, measured side by side in
//! one run so every parallel figure is a ratio against the sequential baseline.

use std::time::{Duration, Instant};

use crate::games::{Player, PlayoutPolicy, SearchGame};
use crate::harness::interrupt::Interrupt;
use crate::search::iteration::worker_rng;
use crate::search::{
    resolve_gammas, search_playouts, ConfigError, Mode, Search, SearchConfig, SearchError, MAX_LANES, MAX_THREADS,
};

/// What one benchmark row measures.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum BenchMode {
    /// Random games from the root with no tree.
    Pure,
    /// MCTS in this mode.
    Mcts(Mode),
}

impl BenchMode {
    /// `pure`, `seq`, `tree` or `root`.
    pub fn name(self) -> &'static str {
        match self {
            BenchMode::Pure => "pure",
            BenchMode::Mcts(mode) => mode.name(),
        }
    }
}

/// A bench mode name that is not `pure`, `seq`, `tree`, `root`, `sync` or `virtual`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct UnknownBenchMode(pub String);

impl std::fmt::Display for UnknownBenchMode {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let text = crate::games::one_line(&self.0);
        write!(f, "unknown bench mode '{text}' (expected pure, seq, tree, root, sync or virtual)")
    }
}

impl std::error::Error for UnknownBenchMode {}

impl std::str::FromStr for BenchMode {
    type Err = UnknownBenchMode;
    fn from_str(s: &str) -> Result<BenchMode, UnknownBenchMode> {
        match s {
            "pure" => Ok(BenchMode::Pure),
            // A row measures one mode: `auto` names different ones at 1 and 2 threads.
            _ => match s.parse::<Mode>() {
                Ok(Mode::Auto) | Err(_) => Err(UnknownBenchMode(s.to_string())),
                Ok(mode) => Ok(BenchMode::Mcts(mode)),
            },
        }
    }
}

/// One measured configuration (the median over the repeats).
#[derive(Clone, Debug, PartialEq)]
pub struct BenchRow {
    /// Game name.
    pub game: &'static str,
    /// What was measured.
    pub mode: BenchMode,
    /// Threads used.
    pub threads: usize,
    /// Playouts in flight per thread ([`crate::search::SearchConfigBuilder::lanes`]).
    pub lanes: usize,
    /// Playouts per repeat.
    pub playouts: u64,
    /// Median playouts per second over the repeats.
    pub playouts_per_sec: f64,
    /// Every repeat's playouts per second, in run order.
    pub samples: Vec<f64>,
    /// Median rate divided by the sequential MCTS median of the same game and run.
    pub ratio_to_seq: Option<f64>,
}

impl BenchRow {
    /// Nanoseconds per playout at the median rate.
    pub fn ns_per_playout(&self) -> f64 {
        1e9 / self.playouts_per_sec
    }
}

/// Runs `playouts` games from `root` by `policy` split over `threads`, each thread keeping
/// `lanes` games in flight ([`Playouts::playouts`](crate::games::Playouts::playouts), as a search worker with `leaves = lanes`
/// does); returns the wall time. `lanes` is clamped to 1..=[`MAX_LANES`].
pub fn time_pure_playouts<G: SearchGame>(
    root: &G,
    threads: usize,
    playouts: u64,
    seed: u64,
    lanes: usize,
    policy: PlayoutPolicy<'_>,
) -> Duration {
    let start = Instant::now();
    std::thread::scope(|scope| {
        for t in 0..threads {
            let share = playouts / threads as u64 + u64::from((t as u64) < playouts % threads as u64);
            scope.spawn(move || {
                let points = match lanes {
                    0 | 1 => pure_playouts::<G, 1>(root, share, seed, t, policy),
                    2 => pure_playouts::<G, 2>(root, share, seed, t, policy),
                    3 => pure_playouts::<G, 3>(root, share, seed, t, policy),
                    _ => pure_playouts::<G, 4>(root, share, seed, t, policy),
                };
                std::hint::black_box(points);
            });
        }
    });
    start.elapsed()
}

/// `playouts` games from `root` by `policy`, `N` at a time (the remainder one at a
/// time); returns the first player's half points, so that nothing is optimised away.
fn pure_playouts<G: SearchGame, const N: usize>(
    root: &G,
    playouts: u64,
    seed: u64,
    thread: usize,
    policy: PlayoutPolicy<'_>,
) -> u64 {
    let mut rngs: [_; N] = std::array::from_fn(|lane| worker_rng(seed, thread * MAX_LANES + lane));
    let mut first_player_points = 0u64;
    let mut left = playouts;
    while left > 0 {
        if left >= N as u64 {
            let mut games = std::array::from_fn(|_| root.clone());
            for outcome in G::playouts(&mut games, &mut rngs, policy) {
                first_player_points += u64::from(outcome.half_points(Player::One));
            }
            left -= N as u64;
        } else {
            let mut game = root.clone();
            first_player_points += u64::from(policy.play_out(&mut game, &mut rngs[0]).half_points(Player::One));
            left -= 1;
        }
    }
    first_player_points
}

/// Runs one MCTS search of `playouts` playouts; returns the wall time of the search.
///
/// # Errors
/// [`SearchError`] if the configuration is invalid for this root.
pub fn time_mcts<G: SearchGame>(root: &G, config: &SearchConfig) -> Result<Duration, SearchError> {
    let mut search = Search::new(config.clone())?;
    let result = search.run(root)?;
    debug_assert_eq!(result.playouts, config.playouts().unwrap_or(0));
    Ok(result.elapsed)
}

/// Measures every (mode, threads) pair for one game, interleaving the repeats so that
/// machine noise spreads evenly, and returns the medians with their ratio to `seq`.
///
/// `base` is the full search configuration of every MCTS row (its playout budget
/// included: it must have one); each row only changes its mode, thread count and seed
/// (`base`'s seed plus the repeat). The pure rows play `base`'s playouts (its playout
/// policy, pruning and learned gammas) with the same playouts in flight per thread as
/// the search (`lanes`, resolved for the game), so that the ratio of `seq` to `pure` is
/// exactly the cost of the tree. `parmcts bench` gives `base` uniform playouts and no
/// pruning unless asked otherwise. `seq` always runs at 1 thread, and
/// is added if missing so the ratios have a baseline.
///
/// # Errors
/// [`SearchError`] from the first configuration that cannot run (a `base` without a
/// playout budget is [`crate::ConfigError::NoBudget`], a thread count of 0 or past
/// [`MAX_THREADS`] its [`ConfigError`]). `on_run` is called after each
/// timed run (for progress).
///
/// Once `interrupt` is requested no run starts: each row keeps the repeats it had, and
/// a row never timed is left out (none, when no run was timed).
pub fn bench_game<G: SearchGame>(
    root: &G,
    modes: &[BenchMode],
    threads: &[usize],
    repeats: usize,
    base: &SearchConfig,
    on_run: &dyn Fn(),
    interrupt: &Interrupt,
) -> Result<Vec<BenchRow>, SearchError> {
    let playouts = base.playouts().ok_or(ConfigError::NoBudget)?;
    // The MCTS rows' counts are checked with their configurations; the pure rows' here.
    match threads.iter().find(|&&t| t == 0 || t > MAX_THREADS) {
        Some(0) => return Err(ConfigError::ZeroThreads.into()),
        Some(&got) => return Err(ConfigError::TooManyThreads { got, max: MAX_THREADS }.into()),
        None => {}
    }
    let mut plan: Vec<(BenchMode, usize)> = vec![(BenchMode::Mcts(Mode::Sequential), 1)];
    for &mode in modes {
        for &t in threads {
            let t = if mode == BenchMode::Mcts(Mode::Sequential) { 1 } else { t };
            if !plan.contains(&(mode, t)) {
                plan.push((mode, t));
            }
        }
    }
    // Every row's configuration is checked before any is timed.
    let configs = plan
        .iter()
        .map(|&(mode, t)| match mode {
            BenchMode::Pure => Ok(None),
            BenchMode::Mcts(m) => base.with_mode(m, t).map(Some),
        })
        .collect::<Result<Vec<_>, _>>()?;
    let lanes = base.lanes_for::<G>();
    // The pure rows play the searches' playouts (uniform unless `base` says otherwise),
    // with the same learned gammas, so that `seq` over `pure` is the cost of the tree.
    let mut shipped = None;
    let policy = search_playouts::<G>(base, resolve_gammas::<G>(base, &mut shipped)?);
    let mut samples = vec![Vec::with_capacity(repeats); plan.len()];
    'repeats: for repeat in 0..repeats.max(1) {
        for (i, &(_, t)) in plan.iter().enumerate() {
            if interrupt.requested() {
                break 'repeats;
            }
            let seed = base.seed().wrapping_add(repeat as u64);
            let elapsed = match &configs[i] {
                None => time_pure_playouts(root, t, playouts, seed, lanes, policy),
                Some(config) => time_mcts(root, &config.with_seed(seed))?,
            };
            samples[i].push(playouts as f64 / elapsed.as_secs_f64().max(1e-9));
            on_run();
        }
    }
    // The seq row is timed first in each repeat: a row that was timed comes with it.
    let mut rows: Vec<BenchRow> = plan
        .iter()
        .zip(samples)
        .filter(|(_, samples)| !samples.is_empty())
        .map(|(&(mode, t), samples)| BenchRow {
            game: G::NAME,
            mode,
            threads: t,
            lanes,
            playouts,
            playouts_per_sec: median(&samples),
            samples,
            ratio_to_seq: None,
        })
        .collect();
    let Some(seq) = rows.first().map(|r| r.playouts_per_sec) else { return Ok(rows) };
    for row in &mut rows {
        row.ratio_to_seq = Some(row.playouts_per_sec / seq);
    }
    // Keep the seq row only where it was asked for (it is always measured).
    if !modes.contains(&BenchMode::Mcts(Mode::Sequential)) {
        rows.remove(0);
    }
    Ok(rows)
}

/// The median of `values` (the mean of the middle two for an even count).
pub fn median(values: &[f64]) -> f64 {
    let mut sorted = values.to_vec();
    sorted.sort_by(f64::total_cmp);
    let n = sorted.len();
    match n {
        0 => f64::NAN,
        _ if n % 2 == 1 => sorted[n / 2],
        _ => (sorted[n / 2 - 1] + sorted[n / 2]) / 2.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::{Game, TicTacToe};

    #[test]
    fn thread_counts_out_of_range_are_refused_before_anything_runs() {
        let base = SearchConfig::builder().playouts(10).build().unwrap();
        let run = |threads: &[usize]| {
            let interrupt = Interrupt::default();
            bench_game(
                &TicTacToe::new(),
                &[BenchMode::Pure],
                threads,
                1,
                &base,
                &|| panic!("a run was timed"),
                &interrupt,
            )
        };
        assert!(matches!(run(&[1, 0]), Err(SearchError::Config(ConfigError::ZeroThreads))));
        let too_many = run(&[MAX_THREADS + 1]);
        assert!(matches!(too_many, Err(SearchError::Config(ConfigError::TooManyThreads { .. }))), "{too_many:?}");
        let rows = bench_game(&TicTacToe::new(), &[BenchMode::Pure], &[1], 1, &base, &|| (), &Interrupt::default());
        assert_eq!(rows.unwrap().iter().map(|r| (r.mode, r.threads)).collect::<Vec<_>>(), [(BenchMode::Pure, 1)]);
    }

    #[test]
    fn an_interrupted_bench_keeps_the_repeats_it_timed() {
        let base = SearchConfig::builder().playouts(10).build().unwrap();
        let (interrupt, runs) = (Interrupt::default(), std::cell::Cell::new(0));
        // Stopped after the fourth timed run: the three rows once, then seq again.
        let on_run = || {
            runs.set(runs.get() + 1);
            if runs.get() == 4 {
                interrupt.request();
            }
        };
        let modes = [BenchMode::Mcts(Mode::Sequential), BenchMode::Pure];
        let rows = bench_game(&TicTacToe::new(), &modes, &[1, 2], 5, &base, &on_run, &interrupt).unwrap();
        let timed: Vec<_> = rows.iter().map(|r| (r.mode, r.threads, r.samples.len())).collect();
        assert_eq!(timed, [(modes[0], 1, 2), (BenchMode::Pure, 1, 1), (BenchMode::Pure, 2, 1)]);
        let none = bench_game(&TicTacToe::new(), &[BenchMode::Pure], &[1], 5, &base, &|| (), &interrupt).unwrap();
        assert!(none.is_empty());
    }
}
