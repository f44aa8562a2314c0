//! MoGo's scheme ([`DistScheme::Share`], the default of `mode=dist`): MoGo's cluster
//! mode (Gelly, Hoock, Rimmel, Teytaud & Kalemkarian 2008, "The parallelization of
//! Monte-Carlo planning") across MPI processes, one per machine, each running the
//! tree-parallel search with `threads` workers on its own lock-free tree.
//!
//! The calling thread (the one that initialised MPI: every MPI call stays on it) does not
//! search; while the workers run it *shares* every `dist-period` ms. A share sends only
//! what changed since the last one, as each rank's own statistics (its tree's counts minus
//! what it added from others), and adds the other ranks' changes into the matching nodes
//! with the node's atomic add (`record_batch`, the backup's own instruction), so the
//! workers never stop:
//!
//! * the root and its children always, as one fixed-size all-reduce (sum), which also
//!   carries the stop decision: the ranks whose workers are done, and rank 0's clock;
//! * below them, down to `dist-depth` plies, the nodes with at least `dist-share` % of
//!   the root's visits, keyed by their move path (a preorder list of (depth, move)
//!   entries, as the in-process synced driver publishes), gathered from every rank with
//!   an all-gather of the counts and one of the entries. A node a rank lacks is skipped
//!   with its subtree there.
//!
//! With `dist-every=P` the ranks share after every P playouts of each instead: the
//! workers run a round of P playouts and stop, the calling thread shares, the next round
//! starts. The workers wait at every share, but with one thread per rank the search is
//! reproducible (the same seed gives the same result, whatever the load).

use std::sync::Barrier;
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;
use mpi::topology::SimpleCommunicator;
use mpi::traits::Communicator;

use crate::atomics::{AtomicBool, AtomicU32, Ordering};
use crate::games::SearchGame;
use crate::search::drivers::worker_loop::run_worker;
use crate::search::drivers::Job;
use crate::search::iteration::Worker;
use crate::search::stop::{PlayoutBudget, SharedBudget, Stopper};
#[cfg(doc)]
use crate::search::DistScheme;
use crate::tree::{Arena, SharedTree};

use super::exchange::{Early, Exchange};
use super::rank_protocol::{check_panic, past_stop_time, stop_time, POLL};
use super::stats::ShareStats;

/// MoGo's scheme ([`DistScheme::Share`]): this rank's workers search its tree while
/// the calling thread shares.
pub(super) fn run<G: SearchGame>(
    job: &Job<'_, G>,
    arena: &Arena,
    workers: &mut [CachePadded<Worker>],
    world: &SimpleCommunicator,
    exchange: &mut Exchange,
    tally: &mut ShareStats,
) {
    let rank = world.rank() as usize;
    let budget = &job.stopper.shared_part(rank, world.size() as usize);
    match job.config.dist_every {
        Some(every) => {
            // Rounds: the workers run `every` playouts of this rank's budget, stop,
            // and the calling thread shares; the next round starts after the share.
            let round = Stopper::round(every);
            let mut share = |tally: &mut ShareStats| {
                // A round cut short: the budget, the clock or a proof stopped it.
                let done = round.claimed() < u64::from(every);
                let time_up = rank == 0 && past_stop_time(job, &mut SharedTree(arena));
                let stop = tally.share(exchange, world, arena, done, time_up, &mut pause);
                check_panic(job, rank);
                round.restart();
                stop
            };
            if let [worker] = workers {
                // One worker runs on this thread, between the shares.
                loop {
                    run_worker(&mut SharedTree(arena), job, worker, Round { budget, round: &round });
                    if share(tally) {
                        break;
                    }
                }
            } else {
                rounds_on_threads(job, arena, workers, budget, &round, || share(tally));
            }
        }
        None => share_periodically(job, arena, workers, budget, rank, |done, time_up| {
            tally.share(exchange, world, arena, done, time_up, &mut pause)
        }),
    }
}

/// Rounds (`dist-every`) with several workers: each round the workers run this rank's
/// `round` of `budget`, then wait while the calling thread shares (`share`, whether to
/// stop).
fn rounds_on_threads<G: SearchGame>(
    job: &Job<'_, G>,
    arena: &Arena,
    workers: &mut [CachePadded<Worker>],
    budget: &SharedBudget,
    round: &SharedBudget,
    mut share: impl FnMut() -> bool,
) {
    // The workers are started once and wait at a barrier while this thread
    // shares: no thread is started and ended per round (ranks that did so
    // crashed in 3 of 4 Othello matches of 200 games under Open MPI 4.1,
    // each in a worker's exit, in std's `Arc` drops; the cause is not found).
    let barrier = Barrier::new(workers.len() + 1);
    let stop = AtomicBool::new(false);
    std::thread::scope(|scope| {
        for worker in workers.iter_mut() {
            let (barrier, stop) = (&barrier, &stop);
            scope.spawn(move || loop {
                run_worker(&mut SharedTree(arena), job, worker, Round { budget, round });
                // The round is over; then it is shared.
                barrier.wait();
                barrier.wait();
                // ORDERING: Relaxed: the barrier orders it after the store.
                if stop.load(Ordering::Relaxed) {
                    break;
                }
            });
        }
        loop {
            barrier.wait();
            let stop_now = share();
            // ORDERING: Relaxed: the barrier below publishes it.
            stop.store(stop_now, Ordering::Relaxed);
            barrier.wait();
            if stop_now {
                break;
            }
        }
    });
}

/// Without `dist-every`: the workers search this rank's `budget` while the calling thread
/// shares every `dist-period` ms (`share`, given whether the workers are done and whether
/// rank 0's clock is up; whether to stop), until a share says stop.
fn share_periodically<G: SearchGame>(
    job: &Job<'_, G>,
    arena: &Arena,
    workers: &mut [CachePadded<Worker>],
    budget: &SharedBudget,
    rank: usize,
    mut share: impl FnMut(bool, bool) -> bool,
) {
    let threads = workers.len();
    let halt = AtomicBool::new(false);
    let finished = AtomicU32::new(0);
    std::thread::scope(|scope| {
        for worker in workers.iter_mut() {
            let budget = Halting { budget, halt: &halt };
            let finished = &finished;
            scope.spawn(move || {
                run_worker(&mut SharedTree(arena), job, worker, budget);
                // ORDERING: Relaxed: only a count; the results are read after the joins.
                finished.fetch_add(1, Ordering::Relaxed);
            });
        }
        let period = Duration::from_millis(job.config.dist_period.into());
        let stop_at = stop_time(job);
        // ORDERING: Relaxed (both): a count read as a hint to share now; the joins
        // synchronise the results.
        let done = || finished.load(Ordering::Relaxed) as usize == threads;
        loop {
            let next = Instant::now() + period;
            while !done() && Instant::now() < next && stop_at.is_none_or(|t| Instant::now() < t) {
                std::thread::sleep(Duration::from_millis(1).min(next.saturating_duration_since(Instant::now())));
            }
            let time_up = rank == 0 && past_stop_time(job, &mut SharedTree(arena));
            let stop = share(done(), time_up);
            check_panic(job, rank);
            if stop {
                // ORDERING: Relaxed: a flag to stop; the joins synchronise the results.
                halt.store(true, Ordering::Relaxed);
                break;
            }
        }
    });
}

impl ShareStats {
    /// One share ([`Exchange::share`]), counted; whether to stop. `meanwhile` runs
    /// while the collectives are in flight.
    pub(super) fn share(
        &mut self,
        exchange: &mut Exchange,
        world: &SimpleCommunicator,
        arena: &Arena,
        done: bool,
        time_up: bool,
        meanwhile: &mut dyn FnMut(&mut Early),
    ) -> bool {
        let began = Instant::now();
        let stop = exchange.share(world, arena, done, time_up, meanwhile);
        self.shares += 1;
        self.sharing += began.elapsed();
        self.sent += exchange.entries_sent();
        stop
    }
}

/// What the calling thread does while a share's collectives are in flight in MoGo's
/// scheme: leaves its core to the workers.
fn pause(_: &mut Early) {
    std::thread::sleep(POLL);
}
/// The rank's part of the playout budget, drawn a round at a time (`dist-every`).
struct Round<'a> {
    budget: &'a SharedBudget,
    round: &'a SharedBudget,
}

impl PlayoutBudget for Round<'_> {
    #[inline]
    fn claim(&mut self, want: u64) -> u64 {
        let mut round = self.round;
        let granted = round.claim(want);
        let mut budget = self.budget;
        budget.claim(granted)
    }
}

/// The rank's part of the playout budget, which the calling thread can also end.
struct Halting<'a> {
    budget: &'a SharedBudget,
    halt: &'a AtomicBool,
}

impl PlayoutBudget for Halting<'_> {
    #[inline]
    fn claim(&mut self, want: u64) -> u64 {
        // ORDERING: Relaxed: only a stop; the joins synchronise the results.
        if self.halt.load(Ordering::Relaxed) {
            return 0;
        }
        let mut budget = self.budget;
        budget.claim(want)
    }
}
