//! The distributed driver (`mode=dist`, the `mpi` feature): MoGo's cluster mode (Gelly,
//! Hoock, Rimmel, Teytaud & Kalemkarian 2008, "The parallelization of Monte-Carlo
//! planning") across MPI processes, one per machine, each running the tree-parallel
//! search with `threads` workers on its own lock-free tree.
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
//!
//! The collectives are non-blocking and polled with short sleeps, so a rank that waits
//! for a slower one leaves its core to the workers. Every rank makes the same calls in
//! the same order: the number of shares is decided by the all-reduce itself (stop when
//! every rank's workers are done, or when rank 0's deadline has passed). A timed search
//! ends on time: every rank makes that last share early by the time the searches before
//! took to end once stopped ([`stop_time`]).
//!
//! Counts stay exact: each rank books per node what it added from others (`foreign`) and
//! what of its own it has sent (`sent`); at the end it takes the foreign part out again,
//! so its tree holds exactly its own playouts (the invariants hold per rank), and a last
//! all-reduce sums the ranks' own root children: every rank reports the same visit
//! vector and so the same move, and the root's visits are the playouts of all ranks.
//! With tree reuse a rank keeps its own subtree for the next move (its books start empty,
//! so the next search's first share sends the kept shallow statistics to the others).
//!
//! Playout budgets are split between the ranks as between threads ([`Stopper::share`]);
//! rank `r` seeds its workers from `(seed, r)` ([`rank_seed`]; rank 0 from the seed
//! itself, so one rank searches exactly as `mode=tree`).
//!
//! [`Stopper::share`]: super::stop::Stopper::share

use std::sync::Barrier;
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;
use mpi::collective::SystemOperation;
use mpi::request::{Request, Scope};
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives};

use crate::cluster::ClusterError;
use crate::games::{Outcome, Player, SearchGame};
use crate::sync::{AtomicBool, AtomicU32, Ordering};
// A process-wide static: std's atomic (loom's cannot be built in a constant).
use crate::tree::{Arena, SharedTree, TreeOps};
use std::sync::atomic::AtomicU64 as StdAtomicU64;

use super::drivers::{Driver, Job};
use super::farm::{self, FarmStats};
use super::iteration::Worker;
use super::split::{self, SplitStats};
use super::stop::{run_worker, Budget, SharedBudget, Stopper};
use super::DistScheme;

mod exchange;

pub(super) use exchange::{Early, Exchange};

/// The environment variable that makes a rank panic after its first share (tests: the
/// job must then end rather than hang). Its value is the rank that panics.
pub const PANIC_RANK_VAR: &str = "PARMCTS_DIST_PANIC_RANK";

/// The environment variable that makes each rank print, after each search, its number of
/// shares, their mean time and the entries it sent (measurements: docs/SCALING.md).
pub const STATS_VAR: &str = "PARMCTS_DIST_STATS";

/// How long the calling thread sleeps between two polls of a collective in flight.
const POLL: Duration = Duration::from_micros(100);

/// One process of a distributed search.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Dist;

impl Driver for Dist {
    fn run<G: SearchGame>(
        &self,
        job: &Job<'_, G>,
        arenas: &mut [Arena],
        workers: &mut [CachePadded<Worker>],
    ) -> Vec<u64> {
        let began = Instant::now();
        let world = SimpleCommunicator::world();
        let rank = world.rank() as usize;
        let split = job.params.partition.is_some();
        // A split shares every node of its top that changed: a rank sees the others' part
        // of it only through the shares.
        let share_percent = if split { 0.0 } else { job.params.dist_share };
        let mut exchange = Exchange::new(&arenas[0], rank, job.params.dist_depth, share_percent);
        let arena = &arenas[0];
        let mut tally = Tally::default();
        let report = std::env::var_os(STATS_VAR).is_some();
        if job.params.dist_scheme == DistScheme::Farm {
            // One thread a rank (the configuration says so).
            let stats = farm::run(job, arena, &mut workers[0], &world);
            if report {
                let FarmStats { valued_here, sent, waited } = stats;
                eprintln!("rank {rank}: {valued_here} leaves valued here, {sent} sent, {waited:.1?} waiting");
            }
        } else if split {
            // One thread a rank (the configuration says so); two ranks or more.
            let stats = split::run(job, arena, &mut workers[0], &world, &mut exchange, &mut tally);
            if report {
                let SplitStats { local, sent, overflow, served } = stats;
                let Tally { shares, sharing, .. } = tally;
                eprintln!(
                    "rank {rank}: {local} walks ended here, {sent} sent, {overflow} valued here for their owner, {served} served, {shares} shares ({sharing:.1?})"
                );
            }
        } else {
            share_scheme(job, arena, workers, &world, &mut exchange, &mut tally);
            if report {
                let Tally { shares, sharing, sent } = tally;
                let mean = sharing.as_secs_f64() * 1e6 / shares as f64;
                eprintln!("rank {rank}: {shares} shares, {mean:.1} us each on average, {sent} path entries sent (below the fixed share)");
            }
        }
        let arena = &mut arenas[0];
        exchange.withdraw(arena);
        let playouts = workers.iter().map(|w| w.playouts).sum();
        let summed = exchange.total(&world, arena, playouts);
        learn_end_margin(job, began);
        // Set once: a job is run by one driver once.
        let _ = job.summed.set(summed);
        vec![playouts]
    }
}

/// MoGo's scheme ([`DistScheme::Share`]): this rank's workers search its tree while
/// the calling thread shares.
fn share_scheme<G: SearchGame>(
    job: &Job<'_, G>,
    arena: &Arena,
    workers: &mut [CachePadded<Worker>],
    world: &SimpleCommunicator,
    exchange: &mut Exchange,
    tally: &mut Tally,
) {
    let (rank, threads) = (world.rank() as usize, workers.len());
    let budget = &job.stopper.shared_part(rank, world.size() as usize);
    let panic_rank = std::env::var(PANIC_RANK_VAR).ok().and_then(|r| r.parse::<usize>().ok());
    match job.params.dist_every {
        Some(every) => {
            // Rounds: the workers run `every` playouts of this rank's budget, stop,
            // and the calling thread shares; the next round starts after the share.
            let round = Stopper::round(every);
            let mut share = |tally: &mut Tally| {
                // A round cut short: the budget, the clock or a proof stopped it.
                let done = round.claimed() < u64::from(every);
                let time_up = rank == 0 && past_stop_time(job, &mut SharedTree(arena));
                let stop = tally.share(exchange, world, arena, done, time_up, &mut pause);
                check_panic(panic_rank, rank);
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
                // The workers are started once and wait at a barrier while this thread
                // shares: no thread is started and ended per round (ranks that did so
                // crashed in 3 of 4 Othello matches of 200 games under Open MPI 4.1,
                // each in a worker's exit, in std's `Arc` drops; the cause is not found).
                let barrier = Barrier::new(threads + 1);
                let stop = AtomicBool::new(false);
                std::thread::scope(|scope| {
                    for worker in workers.iter_mut() {
                        let (barrier, stop, round, budget) = (&barrier, &stop, &round, &budget);
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
                        let stop_now = share(tally);
                        // ORDERING: Relaxed: the barrier below publishes it.
                        stop.store(stop_now, Ordering::Relaxed);
                        barrier.wait();
                        if stop_now {
                            break;
                        }
                    }
                });
            }
        }
        None => {
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
                let period = Duration::from_millis(job.params.dist_period.into());
                let stop_at = stop_time(job);
                // ORDERING: Relaxed (both): a count read as a hint to share now; the joins
                // synchronise the results.
                let done = || finished.load(Ordering::Relaxed) as usize == threads;
                loop {
                    let next = Instant::now() + period;
                    while !done() && Instant::now() < next && stop_at.is_none_or(|t| Instant::now() < t) {
                        std::thread::sleep(
                            Duration::from_millis(1).min(next.saturating_duration_since(Instant::now())),
                        );
                    }
                    let time_up = rank == 0 && past_stop_time(job, &mut SharedTree(arena));
                    let stop = tally.share(exchange, world, arena, done(), time_up, &mut pause);
                    check_panic(panic_rank, rank);
                    if stop {
                        // ORDERING: Relaxed: a flag to stop; the joins synchronise the results.
                        halt.store(true, Ordering::Relaxed);
                        break;
                    }
                }
            });
        }
    }
}

/// The shares made, the time they took, and the path entries sent (for [`STATS_VAR`]).
#[derive(Debug, Default)]
pub(super) struct Tally {
    pub shares: u64,
    pub sharing: Duration,
    pub sent: usize,
}

impl Tally {
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

/// How long before its deadline a rank makes the share where rank 0 stops a timed
/// search, in nanoseconds: the time the searches before took to end once stopped (the
/// last share, the walks in flight, the totals), learnt move by move on each rank. A
/// distributed search must be stopped early to end on time: its ranks stop together
/// only at a share, which completes when the last of them joins it. The process's
/// searches run one at a time, on the thread that initialised MPI.
static END_MARGIN_NS: StdAtomicU64 = StdAtomicU64::new(0);

/// When a timed search's ranks make their last share: the deadline less the learnt end
/// margin.
pub(super) fn stop_time<G: SearchGame>(job: &Job<'_, G>) -> Option<Instant> {
    // ORDERING: Relaxed: written and read by the one MPI thread of the process.
    let margin = Duration::from_nanos(END_MARGIN_NS.load(Ordering::Relaxed));
    job.stopper.deadline().map(|d| d.checked_sub(margin).unwrap_or(d))
}

/// Whether it is time for rank 0 to stop the search ([`stop_time`]), its root (`tree`'s)
/// having the visits below which a deadline stops nothing ([`Stopper`]'s floor).
pub(super) fn past_stop_time<G: SearchGame, T: TreeOps>(job: &Job<'_, G>, tree: &mut T) -> bool {
    stop_time(job).is_some_and(|t| Instant::now() >= t) && job.stopper.floor_reached(tree)
}

/// Learns from a search that began at `began` and the clock stopped how long a search
/// takes to end: half of its overrun of the deadline (or of what it ended early) moves
/// the margin, which stays within a quarter of the time budget.
fn learn_end_margin<G: SearchGame>(job: &Job<'_, G>, began: Instant) {
    let (Some(deadline), Some(stop)) = (job.stopper.deadline(), stop_time(job)) else { return };
    let ended = Instant::now();
    if ended < stop {
        return; // the budget or a proof stopped it
    }
    let nanos = |d: Duration| d.as_nanos() as i128;
    let overrun = nanos(ended.saturating_duration_since(deadline)) - nanos(deadline.saturating_duration_since(ended));
    let limit = nanos(deadline.saturating_duration_since(began)) / 4;
    let margin = nanos(deadline - stop);
    let learnt = (margin + overrun / 2).clamp(0, limit);
    // ORDERING: Relaxed: as in `stop_time`.
    END_MARGIN_NS.store(learnt as u64, Ordering::Relaxed);
}

/// The test switch [`PANIC_RANK_VAR`]: panics on the rank it names, after a share.
fn check_panic(panic_rank: Option<usize>, rank: usize) {
    if panic_rank == Some(rank) {
        panic!("{PANIC_RANK_VAR}={rank}: a panic injected on rank {rank}");
    }
}

/// The rank's part of the playout budget, drawn a round at a time (`dist-every`).
struct Round<'a> {
    budget: &'a SharedBudget,
    round: &'a SharedBudget,
}

impl Budget for Round<'_> {
    #[inline]
    fn claim(&mut self, want: u64) -> u64 {
        let mut round = self.round;
        let granted = round.claim(want);
        let mut budget = self.budget;
        budget.claim(granted)
    }
}

/// The seed of this process's workers: `seed` itself on rank 0 (one rank searches as
/// `mode=tree`), a distinct one from `(seed, rank)` on the others.
pub(crate) fn rank_seed(seed: u64) -> u64 {
    let rank = crate::cluster::rank() as u64;
    seed.wrapping_add(rank.wrapping_mul(0x9E37_79B9_7F4A_7C15))
}

/// Checks, with every rank (a collective call), that all search the position hashed
/// `hash`: ranks that play a match in lockstep diverge if a player is not deterministic,
/// and then every rank gets this error, rather than mismatched shares.
pub(crate) fn agree(hash: u64) -> Result<(), ClusterError> {
    let world = SimpleCommunicator::world();
    let mine = [hash, !hash];
    let mut max = [0u64; 2];
    mpi::request::scope(|scope| {
        poll(world.immediate_all_reduce_into(scope, &mine[..], &mut max[..], SystemOperation::max()));
    });
    if max == mine {
        Ok(())
    } else {
        Err(ClusterError::DifferentPositions)
    }
}

/// The rank's part of the playout budget, which the calling thread can also end.
struct Halting<'a> {
    budget: &'a SharedBudget,
    halt: &'a AtomicBool,
}

impl Budget for Halting<'_> {
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

/// What the calling thread does while a share's collectives are in flight in MoGo's
/// scheme: leaves its core to the workers.
fn pause(_: &mut Early) {
    std::thread::sleep(POLL);
}

/// An outcome as a rank sends it: the first player's half points.
pub(super) fn encode(outcome: Outcome) -> u64 {
    u64::from(outcome.half_points(Player::One))
}

/// The outcome sent as `code` ([`encode`]).
pub(super) fn decode(code: u64) -> Outcome {
    match code {
        2 => Outcome::Win(Player::One),
        1 => Outcome::Draw,
        0 => Outcome::Win(Player::Two),
        _ => panic!("an outcome is sent as 0, 1 or 2 half points (got {code})"),
    }
}

/// Waits for `request`, polling every [`POLL`].
fn poll<'a, D: ?Sized, S: Scope<'a>>(request: Request<'a, D, S>) {
    crate::cluster::poll(request, POLL);
}
