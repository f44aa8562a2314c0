//! When workers stop: the [`Stopper`] combines the playout budget, the deadline and the
//! solver's proven root, and hands out the [`PlayoutBudget`]s workers draw playouts from (the
//! worker loop that draws them is the drivers' `worker_loop`).

use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;

use crate::atomics::{AtomicBool, AtomicU64, Ordering};
use crate::tree::{NodeId, TreeOps};

use super::limits::MAX_PLAYOUTS;
use super::snapshot::Control;
use crate::policy::uct::UctParams;

/// Iterations run between two looks at the clock and the shared budget: long enough that
/// `Instant::now` and the budget's atomic cost well under 1 % of the time, short enough
/// that a time budget is overrun by microseconds.
pub(crate) const CHUNK: u64 = 16;

/// The one place that decides when a search stops: its playout budget is spent, its
/// deadline has passed (once the root has its floor of visits), or (with the solver)
/// some worker's root is proven, which stops every worker of the search.
#[derive(Debug)]
pub(crate) struct Stopper {
    /// Playouts the whole search may run.
    playouts: u64,
    /// The deadline, if the search has one (read by the distributed driver too).
    pub(super) deadline: Option<Instant>,
    /// When the workers were about to start: a timed halving search's rounds are shares
    /// of the time from here to the deadline.
    began: Instant,
    /// Root visits below which the deadline does not stop the search: a search whose
    /// threads got no CPU before the deadline (a loaded host, a deadline already spent
    /// on tree reuse) still looks at each root move once on average, rather than ending
    /// with no playouts and playing the first move in the list.
    floor: u64,
    /// Whether proven roots stop the search (MCTS-Solver).
    solver: bool,
    /// Set once a worker finds its root proven.
    proven: AtomicBool,
    /// The handle of a started search ([`super::Search::start`]): its stop, and the
    /// snapshots the workers answer between chunks.
    control: Option<Arc<Control>>,
}

impl Stopper {
    /// A stopper for `playouts` playouts (`None`: [`MAX_PLAYOUTS`]) until `deadline`,
    /// stopping at a proven root when `solver` is on, or when `control`'s handle says
    /// stop. The deadline stops no tree whose root has fewer than `floor` visits (the
    /// playout budget still does).
    pub(super) fn new(
        playouts: Option<u64>,
        deadline: Option<Instant>,
        floor: u64,
        solver: bool,
        control: Option<Arc<Control>>,
    ) -> Stopper {
        let playouts = playouts.unwrap_or(MAX_PLAYOUTS);
        Stopper { playouts, deadline, began: Instant::now(), floor, solver, proven: AtomicBool::new(false), control }
    }

    /// Paces sequential halving's rounds ([`crate::policy::uct::UctParams::halving_budget`])
    /// in a timed search: `uct`'s budget becomes the root's playouts to come, estimated from
    /// its rate so far, so round `r` of `R` ends at `r / R` of the time (with `spent`
    /// playouts after `elapsed` of `total`, the estimate is `spent · total / elapsed`, and
    /// halving's round `spent · R / budget` is `R · elapsed / total`). `fixed` is the tree's
    /// playout share, which still caps it; `now`, the clock read at this chunk's start.
    /// Called between chunks: off the hot path.
    #[inline]
    fn pace_halving<T: TreeOps>(&self, tree: &mut T, uct: &mut UctParams, fixed: u32, now: Instant) {
        let Some(deadline) = self.deadline else { return };
        if fixed == 0 {
            return;
        }
        let spent = u64::from(tree.stats(NodeId::ROOT).visits.saturating_sub(uct.halving_start));
        if spent == 0 {
            return; // no rate yet: the playout share (round 0 until the next chunk)
        }
        let elapsed = now.saturating_duration_since(self.began).as_nanos().max(1);
        let total = deadline.saturating_duration_since(self.began).as_nanos();
        let estimate = (u128::from(spent) * total / elapsed).max(u128::from(spent) + 1);
        uct.halving_budget = estimate.min(u128::from(fixed)) as u32;
    }

    /// Share `index` of `parts` of the playout budget, for a worker that owns it (the
    /// first `playouts % parts` shares get one more playout).
    pub(super) fn share(&self, index: usize, parts: usize) -> LocalBudget {
        let parts = parts as u64;
        LocalBudget(self.playouts / parts + u64::from((index as u64) < self.playouts % parts))
    }

    /// The whole playout budget, for workers that draw from it together.
    pub(super) fn shared(&self) -> SharedBudget {
        SharedBudget::new(self.playouts)
    }

    /// Whether `tree`'s root has the visits below which the deadline stops nothing.
    pub(super) fn floor_reached<T: TreeOps>(&self, tree: &mut T) -> bool {
        u64::from(tree.stats(NodeId::ROOT).visits) >= self.floor
    }

    /// How many iterations the worker on `tree` may run next (at most [`CHUNK`]; 0:
    /// stop), drawn from `budget`. A granted chunk of a timed search first paces `uct`'s
    /// halving rounds by the clock ([`Stopper::pace_halving`]; `fixed`: the tree's playout
    /// share), with the one clock read that checked the deadline.
    #[inline]
    pub(super) fn next_paced_chunk<T: TreeOps, B: PlayoutBudget>(
        &self,
        tree: &mut T,
        budget: &mut B,
        uct: &mut UctParams,
        fixed: u32,
    ) -> u64 {
        let now = self.deadline.map(|_| Instant::now());
        let granted = self.next_chunk_at(tree, budget, now);
        if let (true, Some(now)) = (granted > 0, now) {
            self.pace_halving(tree, uct, fixed, now);
        }
        granted
    }

    /// The chunk [`Stopper::next_paced_chunk`] grants, with the clock read at `now`
    /// (`None`: no deadline).
    #[inline]
    pub(super) fn next_chunk_at<T: TreeOps, B: PlayoutBudget>(
        &self,
        tree: &mut T,
        budget: &mut B,
        now: Option<Instant>,
    ) -> u64 {
        // The root's visits are read only once the deadline has passed: off the hot path.
        if self.deadline.zip(now).is_some_and(|(d, now)| now >= d) && self.floor_reached(tree) {
            return 0;
        }
        if self.solver {
            // ORDERING: Relaxed: a flag to stop; the results are read after the joins.
            if tree.proof(NodeId::ROOT).is_known() {
                self.proven.store(true, Ordering::Relaxed);
            }
            // ORDERING: Relaxed: pairs with the store above (in any worker); only a stop.
            if self.proven.load(Ordering::Relaxed) {
                return 0;
            }
        }
        if let Some(control) = &self.control {
            if control.stop_requested() {
                return 0;
            }
            control.serve(tree);
        }
        budget.claim(CHUNK)
    }
}

/// Timed runs whose lag the process remembers.
const LAG_RUNS: usize = 64;

/// How late timed searches returned after their workers' deadline, over the process's
/// last [`LAG_RUNS`] timed runs (of any search: the lag is the machine's, and a player
/// builds a new search for each game), oldest overwritten first.
static STOP_LAG: Mutex<StopLag> = Mutex::new(StopLag { recent: [Duration::ZERO; LAG_RUNS], next: 0 });

/// The lags of the last timed runs, and where the next one goes.
#[derive(Debug)]
struct StopLag {
    recent: [Duration; LAG_RUNS],
    next: usize,
}

/// How much earlier than a `budget` of time a search's workers stop, so that the search
/// returns within it: the largest lag of the last timed runs (standing for a high
/// quantile of it), at most a quarter of the budget (a lag that large is a machine too
/// loaded to keep any time; the search still gets three quarters of it). The lag is the
/// operating system's: on a quiet machine tens of microseconds (the joins), but on a
/// loaded one a worker or the caller may be off the CPU at the deadline and run again
/// only at a scheduler tick, several milliseconds later.
pub(crate) fn stop_margin(budget: Duration) -> Duration {
    STOP_LAG.lock().unwrap_or_else(PoisonError::into_inner).margin(budget)
}

/// Records a timed run whose workers' deadline was `deadline` and that returned at
/// `returned`; a run that ended before its deadline (its playouts spent, its root
/// proven, its handle's stop) says nothing of the lag.
pub(crate) fn record_stop(deadline: Instant, returned: Instant) {
    if returned >= deadline {
        STOP_LAG.lock().unwrap_or_else(PoisonError::into_inner).record(returned - deadline);
    }
}

impl StopLag {
    /// [`stop_margin`] of these lags.
    fn margin(&self, budget: Duration) -> Duration {
        self.recent.iter().max().copied().unwrap_or_default().min(budget / 4)
    }

    /// Remembers `lag` in place of the oldest.
    fn record(&mut self, lag: Duration) {
        self.recent[self.next] = lag;
        self.next = (self.next + 1) % LAG_RUNS;
    }
}

/// A playout budget that workers draw from in chunks.
pub(crate) trait PlayoutBudget {
    /// Up to `want` more iterations may run; 0 means stop.
    fn claim(&mut self, want: u64) -> u64;
}

/// A budget owned by one worker.
#[derive(Debug)]
pub(crate) struct LocalBudget(pub u64);

impl PlayoutBudget for LocalBudget {
    #[inline]
    fn claim(&mut self, want: u64) -> u64 {
        let granted = want.min(self.0);
        self.0 -= granted;
        granted
    }
}

/// A budget shared by the workers of one tree. Padded: every worker writes it.
#[derive(Debug)]
pub(crate) struct SharedBudget {
    /// The playouts granted so far (the distributed driver's rounds restart it).
    pub(super) claimed: CachePadded<AtomicU64>,
    limit: u64,
}

impl SharedBudget {
    /// A budget of `limit` playouts, none granted yet.
    pub(super) fn new(limit: u64) -> SharedBudget {
        SharedBudget { claimed: CachePadded::new(AtomicU64::new(0)), limit }
    }
}

impl PlayoutBudget for &SharedBudget {
    #[inline]
    fn claim(&mut self, want: u64) -> u64 {
        let limit = self.limit;
        // ORDERING: Relaxed: the counter only divides the playout budget; no data is
        // published through it. The thread joins at the end synchronise the results.
        match self
            .claimed
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| (c < limit).then(|| c + want.min(limit - c)))
        {
            Ok(before) => want.min(limit - before),
            Err(_) => 0,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shares_add_up_to_the_budget() {
        let stopper = Stopper::new(Some(10), None, 0, false, None);
        let shares: Vec<u64> = (0..3).map(|i| stopper.share(i, 3).0).collect();
        assert_eq!(shares, [4, 3, 3]);
        let shared = stopper.shared();
        let mut budget = &shared;
        assert_eq!((budget.claim(8), budget.claim(8), budget.claim(8)), (8, 2, 0));
    }

    /// The margin is the largest lag of the last [`LAG_RUNS`] timed runs, capped at a
    /// quarter of the budget; older lags are forgotten.
    #[test]
    fn the_margin_is_the_largest_recent_lag() {
        let ms = Duration::from_millis;
        let mut lag = StopLag { recent: [Duration::ZERO; LAG_RUNS], next: 0 };
        assert_eq!(lag.margin(ms(100)), Duration::ZERO);
        lag.record(ms(8));
        lag.record(ms(3));
        assert_eq!(lag.margin(ms(100)), ms(8));
        assert_eq!(lag.margin(ms(20)), ms(5));
        (0..LAG_RUNS - 1).for_each(|_| lag.record(ms(1)));
        assert_eq!(lag.margin(ms(100)), ms(3), "the 8 ms lag is {LAG_RUNS} runs old: forgotten");
        lag.record(ms(1));
        assert_eq!(lag.margin(ms(100)), ms(1));
    }
}
