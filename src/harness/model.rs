//! The contention model behind `parmcts model`: what tree-parallel throughput at N
//! threads should be, from what one iteration does to shared cache lines.
//!
//! One tree-parallel iteration at N threads costs its single-thread time plus what
//! sharing adds:
//!
//! ```text
//! t(N) = t_tree(1) + (rmw(N) - rmw(1)) · c_rmw + write_transfers(N) · c_transfer
//! rate(N) = N / t(N)            (N no more than the cores)
//! ```
//!
//! where `rmw(N)` and `write_transfers(N)` are the atomic read-modify-writes and the
//! cache-line transfers made by writes per iteration that N workers cause, counted
//! exactly by the virtual-thread simulator in a counting build (`--features contention`,
//! [`crate::contention`]): a [`ContentionProfile`]. `c_rmw` (an uncontended atomic add)
//! and `c_transfer` are measured on the machine ([`measure_costs`]); `c_transfer` is half
//! the period of two threads handing one line back and forth, since each handoff is two
//! coherence round trips (the waiting core's load pulls the line, its store invalidates
//! the other copy). `t_tree(1)` is the measured single-thread tree-parallel time per
//! iteration. The extra read-modify-writes are virtual loss, which a lone thread does not
//! keep. Transfers made by loads are counted but not charged: a selection's loads of a
//! child block are independent and their misses overlap, while a locked
//! read-modify-write waits for its line.

use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde::{Deserialize, Serialize};

use crate::contention::{self, ContentionCounts};
use crate::games::SearchGame;
use crate::search::{Mode, Search, SearchConfig, SearchError};

/// Per-iteration counts at one thread count, from the simulator.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ProfileRow {
    /// Logical workers (threads modelled).
    pub threads: usize,
    /// Playouts counted.
    pub playouts: u64,
    /// Atomic read-modify-writes per iteration.
    pub rmw: f64,
    /// Loads of node words per iteration.
    pub loads: f64,
    /// Cache-line transfers between workers per iteration.
    pub transfers: f64,
    /// The transfers made by writes (stores and read-modify-writes) per iteration.
    pub write_transfers: f64,
    /// Read-modify-writes per iteration by tree depth (the last entry: batched flushes).
    pub rmw_by_depth: Vec<f64>,
    /// Transfers per iteration by tree depth (the last entry: batched flushes).
    pub transfers_by_depth: Vec<f64>,
}

/// What the counting build measured for one game: the input of [`predict`].
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ContentionProfile {
    /// The game's name.
    pub game: String,
    /// One row per thread count, 1 first.
    pub rows: Vec<ProfileRow>,
}

/// Why a profile could not be made.
#[derive(Debug)]
#[non_exhaustive]
pub enum ProfileError {
    /// This build does not count (built without the `contention` feature).
    NotCounting,
    /// A search could not run.
    Search(SearchError),
}

impl std::fmt::Display for ProfileError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            ProfileError::NotCounting => {
                write!(f, "this build does not count contention: build with `--features contention` to make a profile")
            }
            ProfileError::Search(e) => e.fmt(f),
        }
    }
}

impl std::error::Error for ProfileError {}

/// Counts, with the simulator ([`Mode::Virtual`]), what `threads` workers of `base`'s
/// search do to shared lines per iteration, for each thread count (reproducible for a
/// seed). `base` needs a playout budget.
///
/// # Errors
/// [`ProfileError::NotCounting`] without the `contention` feature; a search error from
/// a configuration that cannot run.
pub fn profile<G: SearchGame>(
    root: &G,
    base: &SearchConfig,
    threads: &[usize],
) -> Result<ContentionProfile, ProfileError> {
    if !contention::ENABLED {
        return Err(ProfileError::NotCounting);
    }
    let mut rows = Vec::new();
    for &t in threads {
        let config = base.with_mode(Mode::Virtual, t).map_err(|e| ProfileError::Search(e.into()))?;
        let mut search = Search::new(config).map_err(ProfileError::Search)?;
        contention::take();
        let result = search.run(root).map_err(ProfileError::Search)?;
        rows.push(ProfileRow::from_counts(t, result.playouts, &contention::take()));
    }
    Ok(ContentionProfile { game: G::NAME.to_string(), rows })
}

impl ProfileRow {
    fn from_counts(threads: usize, playouts: u64, counts: &ContentionCounts) -> ProfileRow {
        let per = |v: &[u64]| v.iter().map(|&c| c as f64 / playouts.max(1) as f64).collect::<Vec<f64>>();
        let trim = |mut v: Vec<f64>| {
            // Keep the flush bucket (last); drop the unused depths before it.
            let flush = v.pop().unwrap_or(0.0);
            while v.last() == Some(&0.0) {
                v.pop();
            }
            v.push(flush);
            v
        };
        let total = |v: &[u64]| ContentionCounts::total(v) as f64 / playouts.max(1) as f64;
        ProfileRow {
            threads,
            playouts,
            rmw: total(&counts.rmw),
            loads: total(&counts.loads),
            transfers: total(&counts.transfers),
            write_transfers: total(&counts.write_transfers),
            rmw_by_depth: trim(per(&counts.rmw)),
            transfers_by_depth: trim(per(&counts.transfers)),
        }
    }
}

/// The machine's costs the model multiplies the counts by, in nanoseconds.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Costs {
    /// An uncontended atomic add on a line this core holds.
    pub rmw_ns: f64,
    /// One coherence round trip: half the period of two threads taking turns on one
    /// atomic (`cargo bench --bench search -- cache_line` measures the whole period).
    pub transfer_ns: f64,
    /// The whole period of one handoff.
    pub handoff_ns: f64,
}

/// At most this long per handoff measurement (a busy machine makes handoffs slow).
const HANDOFF_TIME_LIMIT: Duration = Duration::from_millis(200);

/// Measures [`Costs`] on this machine: medians of `repeats` runs of each microbenchmark.
/// The transfer cost needs two cores free to be meaningful.
pub fn measure_costs(repeats: usize) -> Costs {
    const ADDS: u64 = 2_000_000;
    const HANDOFFS: u64 = 200_000;
    let mut rmw = Vec::new();
    let mut transfer = Vec::new();
    for _ in 0..repeats.max(1) {
        let word = AtomicU64::new(0);
        let start = Instant::now();
        for _ in 0..ADDS {
            // ORDERING: Relaxed: only the instruction's cost is measured.
            word.fetch_add(1, Ordering::Relaxed);
        }
        rmw.push(start.elapsed().as_secs_f64() * 1e9 / ADDS as f64);
        std::hint::black_box(word.load(Ordering::Relaxed));
        let start = Instant::now();
        let handoffs = hand_off_line(HANDOFFS, HANDOFF_TIME_LIMIT).max(1);
        transfer.push(start.elapsed().as_secs_f64() * 1e9 / handoffs as f64);
    }
    let handoff_ns = crate::harness::benchmark::median(&transfer);
    Costs { rmw_ns: crate::harness::benchmark::median(&rmw), transfer_ns: handoff_ns / 2.0, handoff_ns }
}

/// Two threads hand one cache line back and forth, each waiting for the other's
/// increment of a shared atomic, `handoffs` times or until `limit` has passed; returns the
/// handoffs made. Each handoff moves the line from one core to the other, so the time per
/// handoff is the line's round trip (the model's [`Costs::handoff_ns`], and `cargo bench
/// --bench search -- cache_line`).
pub fn hand_off_line(handoffs: u64, limit: Duration) -> u64 {
    let turn = AtomicU64::new(0);
    let stop = AtomicBool::new(false);
    let start = Instant::now();
    std::thread::scope(|s| {
        for me in 0..2 {
            let (turn, stop) = (&turn, &stop);
            s.spawn(move || {
                let mut next = me;
                let mut spins = 0u32;
                loop {
                    // ORDERING: Acquire/Release pair the two threads' turns; each only
                    // needs to see the other's store. The stop flag is Relaxed: it only
                    // ends the loop.
                    while turn.load(Ordering::Acquire) != next {
                        if stop.load(Ordering::Relaxed) {
                            return;
                        }
                        spins += 1;
                        // Sharing one core with the other thread (a busy machine),
                        // spinning would wait out a whole time slice per handoff.
                        if spins.is_multiple_of(4096) {
                            std::thread::yield_now();
                        } else {
                            std::hint::spin_loop();
                        }
                    }
                    if next >= handoffs || (next % 1024 < 2 && start.elapsed() > limit) {
                        stop.store(true, Ordering::Relaxed);
                        return;
                    }
                    turn.store(next + 1, Ordering::Release);
                    next += 2;
                }
            });
        }
    });
    // ORDERING: Relaxed: the threads are joined.
    turn.load(Ordering::Relaxed)
}

/// The model's prediction at one thread count.
#[derive(Clone, Copy, Debug, PartialEq, Serialize)]
pub struct Prediction {
    /// Threads.
    pub threads: usize,
    /// Predicted time per iteration per thread, ns.
    pub ns_per_iteration: f64,
    /// Predicted playouts per second of all threads together.
    pub playouts_per_sec: f64,
}

/// Predicts tree-parallel throughput for each row of `profile` from the single-thread
/// tree-parallel time per iteration `tree_1_ns` and the machine's `costs` (see the
/// module's formula).
pub fn predict(profile: &ContentionProfile, tree_1_ns: f64, costs: Costs) -> Vec<Prediction> {
    let rmw_1 = profile.rows.iter().find(|r| r.threads == 1).map_or(0.0, |r| r.rmw);
    profile
        .rows
        .iter()
        .map(|row| {
            let ns = tree_1_ns + (row.rmw - rmw_1).max(0.0) * costs.rmw_ns + row.write_transfers * costs.transfer_ns;
            Prediction { threads: row.threads, ns_per_iteration: ns, playouts_per_sec: row.threads as f64 * 1e9 / ns }
        })
        .collect()
}

/// One thread count of a model run: predicted and, where measured, measured throughput.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelRow {
    /// Threads.
    pub threads: usize,
    /// Cache-line transfers per iteration (from the profile).
    pub transfers: f64,
    /// The transfers made by writes, which the model charges.
    pub write_transfers: f64,
    /// Extra atomic read-modify-writes per iteration over one thread (from the profile).
    pub extra_rmw: f64,
    /// The prediction.
    pub predicted_playouts_per_sec: f64,
    /// The measured median (threads up to the machine's cores).
    pub measured_playouts_per_sec: Option<f64>,
    /// (predicted - measured) / measured.
    pub error: Option<f64>,
}

/// What `parmcts model` reports: the inputs and, per thread count, prediction against
/// measurement.
#[derive(Clone, Debug, PartialEq, Serialize)]
pub struct ModelReport {
    /// The game.
    pub game: String,
    /// The machine's costs.
    pub costs: Costs,
    /// Measured single-thread tree-parallel time per iteration, ns.
    pub tree_1_ns: f64,
    /// Measured sequential time per iteration, ns (for reference).
    pub seq_ns: f64,
    /// One row per thread count of the profile.
    pub rows: Vec<ModelRow>,
}

impl ModelReport {
    /// Builds the report from the profile, the costs, the single-thread times and the
    /// measured rates (`(threads, playouts per second)`).
    pub fn new(
        profile: &ContentionProfile,
        costs: Costs,
        tree_1_ns: f64,
        seq_ns: f64,
        measured: &[(usize, f64)],
    ) -> ModelReport {
        let rmw_1 = profile.rows.iter().find(|r| r.threads == 1).map_or(0.0, |r| r.rmw);
        let rows = profile
            .rows
            .iter()
            .zip(predict(profile, tree_1_ns, costs))
            .map(|(row, p)| {
                let measured = measured.iter().find(|m| m.0 == row.threads).map(|m| m.1);
                ModelRow {
                    threads: row.threads,
                    transfers: row.transfers,
                    write_transfers: row.write_transfers,
                    extra_rmw: (row.rmw - rmw_1).max(0.0),
                    predicted_playouts_per_sec: p.playouts_per_sec,
                    measured_playouts_per_sec: measured,
                    error: measured.map(|m| (p.playouts_per_sec - m) / m),
                }
            })
            .collect();
        ModelReport { game: profile.game.clone(), costs, tree_1_ns, seq_ns, rows }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn row(threads: usize, rmw: f64, transfers: f64) -> ProfileRow {
        ProfileRow {
            threads,
            playouts: 1,
            rmw,
            loads: 0.0,
            transfers,
            write_transfers: transfers,
            rmw_by_depth: Vec::new(),
            transfers_by_depth: Vec::new(),
        }
    }

    #[test]
    fn the_prediction_adds_extra_atomics_and_transfers_to_the_lone_thread() {
        let profile = ContentionProfile { game: "g".into(), rows: vec![row(1, 10.0, 0.0), row(4, 30.0, 2.0)] };
        let costs = Costs { rmw_ns: 5.0, transfer_ns: 50.0, handoff_ns: 100.0 };
        let p = predict(&profile, 400.0, costs);
        assert_eq!(p[0].ns_per_iteration, 400.0);
        assert_eq!(p[1].ns_per_iteration, 400.0 + 20.0 * 5.0 + 2.0 * 50.0);
        assert!((p[1].playouts_per_sec - 4e9 / 600.0).abs() < 1e-6);
    }
}
