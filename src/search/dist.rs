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

use std::collections::{BTreeMap, HashMap};
use std::sync::Barrier;
use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;
use mpi::collective::SystemOperation;
use mpi::datatype::PartitionMut;
use mpi::request::{Request, Scope};
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives};

use crate::cluster::ClusterError;
use crate::games::{Move, Outcome, Player, SearchGame};
use crate::sync::{AtomicBool, AtomicU32, Ordering};
// A process-wide static: std's atomic (loom's cannot be built in a constant).
use crate::tree::{Arena, Expansion, NodeId, Proof, SharedTree, Stats, TreeOps};
use std::sync::atomic::AtomicU64 as StdAtomicU64;

use super::drivers::{Driver, Job, Summed};
use super::farm::{self, FarmStats};
use super::iteration::{child_with_move, Worker};
use super::result::{root_children, RootChild};
use super::split::{self, SplitStats};
use super::stop::{run_worker, Budget, SharedBudget, Stopper};
use super::DistScheme;

/// The environment variable that makes a rank panic after its first share (tests: the
/// job must then end rather than hang). Its value is the rank that panics.
pub const PANIC_RANK_VAR: &str = "PARMCTS_DIST_PANIC_RANK";

/// The environment variable that makes each rank print, after each search, its number of
/// shares, their mean time and the entries it sent (measurements: docs/SCALING.md).
pub const STATS_VAR: &str = "PARMCTS_DIST_STATS";

/// How long the calling thread sleeps between two polls of a collective in flight.
const POLL: Duration = Duration::from_micros(100);

/// Words of the fixed share before the root: ranks done, rank 0's stop.
const HEADER: usize = 2;

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
        self.sent += exchange.entries.len() / 2;
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

/// A node's books: what this rank added from the others, and what of its own it sent.
#[derive(Clone, Copy, Debug, Default)]
struct Book {
    foreign: Stats,
    sent: Stats,
}

/// What the calling thread does while a share's collectives are in flight in MoGo's
/// scheme: leaves its core to the workers.
fn pause(_: &mut Early) {
    std::thread::sleep(POLL);
}

/// This rank's side of the shares.
#[derive(Debug)]
pub(super) struct Exchange {
    rank: usize,
    /// Nodes up to this many plies below the root are shared.
    depth: u32,
    /// Below the root's children, a shared node has at least this fraction of the
    /// root's visits.
    share: f64,
    /// The root's children, by move: the fixed share's slots.
    slots: Vec<(u16, NodeId)>,
    books: HashMap<NodeId, Book>,
    /// Per node, the virtual loss of walks in flight that will be taken back rather than
    /// replaced by a result (a split search's walks valued on other ranks): not this
    /// rank's visits, so not shared. Set by the caller before each share.
    pub in_flight: HashMap<NodeId, u32>,
    /// Other ranks' results recorded ahead of the shares that bring them.
    pub early: Early,
    /// Reused buffers: the fixed share and its sum; the entries, their counts and all
    /// ranks' entries.
    fixed: Vec<u64>,
    summed: Vec<u64>,
    entries: Vec<u64>,
    counts: Vec<i32>,
    gathered: Vec<u64>,
    /// The receiving walk's matched nodes per depth.
    path: Vec<Option<NodeId>>,
}

impl Exchange {
    /// The books of a search on `arena`, whose root is expanded (identically on every
    /// rank: the same position and settings).
    fn new(arena: &Arena, rank: usize, depth: u32, share_percent: f32) -> Exchange {
        let mut tree = SharedTree(arena);
        let mut slots: Vec<(u16, NodeId)> = children(&mut tree, NodeId::ROOT).map(|c| (tree.mv(c), c)).collect();
        slots.sort_unstable();
        Exchange {
            rank,
            depth,
            share: f64::from(share_percent) / 100.0,
            slots,
            books: HashMap::new(),
            in_flight: HashMap::new(),
            early: Early::default(),
            fixed: Vec::new(),
            summed: Vec::new(),
            entries: Vec::new(),
            counts: Vec::new(),
            gathered: Vec::new(),
            path: Vec::new(),
        }
    }

    /// One share: sends this rank's changes since the last share, adds the others'.
    /// `done`: this rank's workers have finished; `time_up` (rank 0): the deadline has
    /// passed. Returns whether the search stops (the same answer on every rank).
    fn share(
        &mut self,
        world: &SimpleCommunicator,
        arena: &Arena,
        done: bool,
        time_up: bool,
        meanwhile: &mut dyn FnMut(&mut Early),
    ) -> bool {
        let size = world.size() as usize;
        let mut tree = SharedTree(arena);
        self.early.taken += 1;
        let number = self.early.taken;
        self.fixed.clear();
        self.fixed.extend([u64::from(done), u64::from(time_up)]);
        for i in 0..=self.slots.len() {
            let delta = self.changes(&mut tree, self.fixed_node(i));
            self.fixed.extend([u64::from(delta.visits), u64::from(delta.half_points)]);
        }
        self.entries.clear();
        if self.depth >= 2 {
            let min_visits = (tree.stats(NodeId::ROOT).visits as f64 * self.share).ceil() as u32;
            let mut entries = std::mem::take(&mut self.entries);
            self.publish(&mut tree, NodeId::ROOT, 0, min_visits.max(1), &mut entries);
            self.entries = entries;
        }
        self.summed.clear();
        self.summed.resize(self.fixed.len(), 0);
        self.counts.clear();
        self.counts.resize(size, 0);
        let count = [self.entries.len() as i32];
        let early = &mut self.early;
        let meanwhile = &mut || meanwhile(early);
        mpi::request::scope(|scope| {
            let sum =
                world.immediate_all_reduce_into(scope, &self.fixed[..], &mut self.summed[..], SystemOperation::sum());
            let counts = world.immediate_all_gather_into(scope, &count[..], &mut self.counts[..]);
            poll_with(sum, meanwhile);
            poll_with(counts, meanwhile);
        });
        if self.counts.iter().any(|&c| c > 0) {
            let displs: Vec<i32> = self.counts.iter().scan(0, |at, &c| Some(std::mem::replace(at, *at + c))).collect();
            self.gathered.clear();
            self.gathered.resize(self.counts.iter().map(|&c| c as usize).sum(), 0);
            let mut partition = PartitionMut::new(&mut self.gathered[..], &self.counts[..], &displs[..]);
            mpi::request::scope(|scope| {
                let request = world.immediate_all_gather_varcount_into(scope, &self.entries[..], &mut partition);
                poll_with(request, meanwhile);
            });
        }
        // The others' changes: the sum less this rank's own (less what of them is here already).
        let mut ahead = self.early.take(number);
        for i in 0..=self.slots.len() {
            let (node, at) = (self.fixed_node(i), HEADER + 2 * i);
            let foreign = Stats {
                visits: (self.summed[at] - self.fixed[at]) as u32,
                half_points: (self.summed[at + 1] - self.fixed[at + 1]) as u32,
            };
            self.add(arena, node, foreign, &mut ahead);
        }
        let mut start = 0;
        for (other, &count) in self.counts.clone().iter().enumerate() {
            let end = start + count as usize;
            if other != self.rank {
                self.receive(arena, start, end, &mut ahead);
            }
            start = end;
        }
        self.early.applied(number, ahead);
        self.summed[0] == size as u64 || self.summed[1] > 0
    }

    /// The node of the fixed share's `i`th pair: the root, then its children by move.
    fn fixed_node(&self, i: usize) -> NodeId {
        if i == 0 {
            NodeId::ROOT
        } else {
            self.slots[i - 1].1
        }
    }

    /// `node`'s own statistics changed since the last share (its tree's counts less the
    /// foreign part), now booked as sent.
    fn changes(&mut self, tree: &mut SharedTree<'_>, node: NodeId) -> Stats {
        let now = tree.stats(node);
        let in_flight = self.in_flight.get(&node).copied().unwrap_or(0);
        let ahead = self.early.ahead(node);
        let book = self.books.entry(node).or_default();
        let own = Stats {
            visits: now.visits.saturating_sub(book.foreign.visits + ahead.visits + in_flight),
            half_points: now.half_points.saturating_sub(book.foreign.half_points + ahead.half_points),
        };
        let delta = Stats {
            visits: own.visits.saturating_sub(book.sent.visits),
            half_points: own.half_points.saturating_sub(book.sent.half_points),
        };
        book.sent =
            Stats { visits: book.sent.visits + delta.visits, half_points: book.sent.half_points + delta.half_points };
        delta
    }

    /// Pushes, in preorder, the children of `node` (at `depth`) with at least
    /// `min_visits` visits and below them down to the depth limit, as (depth << 16 | move,
    /// visits | half points << 32) pairs: the root's children as bare keys (their
    /// changes go in the fixed share), deeper nodes with their changes. Subtrees without
    /// a change are left out. Returns whether it pushed anything.
    fn publish(
        &mut self,
        tree: &mut SharedTree<'_>,
        node: NodeId,
        depth: u32,
        min_visits: u32,
        out: &mut Vec<u64>,
    ) -> bool {
        let mut any = false;
        for child in children(tree, node) {
            if tree.stats(child).visits < min_visits {
                continue;
            }
            let at = out.len();
            out.extend([u64::from(depth + 1) << 16 | u64::from(tree.mv(child)), 0]);
            let mut pushed = false;
            if depth + 1 >= 2 {
                let delta = self.changes(tree, child);
                out[at + 1] = u64::from(delta.visits) | u64::from(delta.half_points) << 32;
                pushed = delta.visits > 0;
            }
            if depth + 1 < self.depth {
                pushed |= self.publish(tree, child, depth + 1, min_visits, out);
            }
            if pushed {
                any = true;
            } else {
                out.truncate(at);
            }
        }
        any
    }

    /// Adds another rank's entries, `gathered[start..end]`, into the matching nodes (less
    /// what of them is `ahead`).
    fn receive(&mut self, arena: &Arena, start: usize, end: usize, ahead: &mut HashMap<NodeId, Stats>) {
        let mut tree = SharedTree(arena);
        self.path.clear();
        for i in (start..end).step_by(2) {
            let (key, value) = (self.gathered[i], self.gathered[i + 1]);
            let depth = (key >> 16) as usize;
            if depth == 0 || depth > self.path.len() + 1 {
                continue; // not a preorder list: ignored, never trusted
            }
            self.path.truncate(depth - 1);
            let parent = if depth == 1 { Some(NodeId::ROOT) } else { self.path[depth - 2] };
            let node = parent.and_then(|p| child_by_move(&mut tree, p, key as u16));
            self.path.push(node);
            if let (Some(node), true) = (node, depth >= 2) {
                let stats = Stats { visits: value as u32, half_points: (value >> 32) as u32 };
                self.add(arena, node, stats, ahead);
            }
        }
    }

    /// Adds other ranks' `stats` into `node`, booked as foreign: one atomic add, as a
    /// batch of backups (workers keep searching meanwhile). The part of them `ahead`
    /// records for the node is in the tree already: only the rest is added.
    fn add(&mut self, arena: &Arena, node: NodeId, stats: Stats, ahead: &mut HashMap<NodeId, Stats>) {
        if stats.visits == 0 && stats.half_points == 0 {
            return;
        }
        let here = self.early.consume(node, ahead, stats);
        let rest = Stats { visits: stats.visits - here.visits, half_points: stats.half_points - here.half_points };
        if rest.visits > 0 || rest.half_points > 0 {
            arena.node(node).record_batch(rest.visits, rest.half_points);
        }
        let book = self.books.entry(node).or_default();
        book.foreign.visits += stats.visits;
        book.foreign.half_points += stats.half_points;
    }

    /// Takes the foreign parts out again (the workers have joined): the tree then holds
    /// exactly this rank's own playouts.
    fn withdraw(&mut self, arena: &mut Arena) {
        for (node, stats) in self.early.drain() {
            self.books.entry(node).or_default().foreign += stats;
        }
        for (&node, book) in &mut self.books {
            let node = arena.node_mut(node);
            let stats = node.stats_mut();
            node.set_stats_mut(Stats {
                visits: stats.visits - book.foreign.visits,
                half_points: stats.half_points - book.foreign.half_points,
            });
            book.foreign = Stats::default();
        }
    }

    /// The last all-reduce: every rank's own root children summed (and the proofs'
    /// strongest), with the playouts, root visits and nodes of all ranks.
    fn total(&self, world: &SimpleCommunicator, arena: &mut Arena, playouts: u64) -> Summed {
        let mine = root_children(&mut SharedTree(arena));
        let root = arena.node(NodeId::ROOT).stats_relaxed();
        let mut fixed = vec![playouts, u64::from(root.visits), arena.len() as u64];
        let mut proofs = Vec::with_capacity(self.slots.len());
        for &(mv, _) in &self.slots {
            let child = mine.iter().find(|c| c.mv.0 == mv);
            fixed.extend([child.map_or(0, |c| c.visits), child.map_or(0, |c| c.half_points)]);
            proofs.push(child.map_or(0, |c| c.proof as u64));
        }
        // Typed: the all-reduce takes the send buffer's type and count, and writes that
        // many bytes into the receive buffer, whose element type inference would not tie
        // to it (an untyped `vec![0; n]` here was `i32`: each search wrote past it).
        let mut sums = vec![0u64; fixed.len()];
        let mut best = vec![0u64; proofs.len()];
        mpi::request::scope(|scope| {
            let sum = world.immediate_all_reduce_into(scope, &fixed[..], &mut sums[..], SystemOperation::sum());
            let max = world.immediate_all_reduce_into(scope, &proofs[..], &mut best[..], SystemOperation::max());
            poll(sum);
            poll(max);
        });
        let children = self
            .slots
            .iter()
            .enumerate()
            .map(|(i, &(mv, _))| RootChild {
                mv: Move(mv),
                visits: sums[3 + 2 * i],
                half_points: sums[4 + 2 * i],
                proof: match best[i] {
                    0 => Proof::Unknown,
                    code => Proof::from_half_points(code as u32 - 1),
                },
            })
            .collect();
        Summed { children, playouts: sums[0], root_visits: sums[1], nodes: sums[2] }
    }
}

/// Results of other ranks that this rank recorded in its tree before the share that
/// brings them (a split search: the owner of a walk's end answers with its result, and
/// the walk's starter records it on its path at once rather than a share later). Each is
/// booked under the share that will bring it, which then adds only the rest; until then
/// it is not this rank's own, so no share sends it back.
#[derive(Debug, Default)]
pub(super) struct Early {
    /// Shares this rank has begun (its statistics read for them), and the last it has
    /// applied (the others' changes added). Every rank numbers the shares alike.
    pub taken: u32,
    pub applied: u32,
    /// Per share, by node, the results recorded ahead of it.
    books: BTreeMap<u32, HashMap<NodeId, Stats>>,
    /// Per node, all results recorded ahead of shares not yet applied.
    total: HashMap<NodeId, Stats>,
}

impl Early {
    /// Records one walk's result on each node of its path (`path`: the node and the
    /// result's stats there) now, ahead of share `share`, which will bring them.
    pub fn record(&mut self, arena: &Arena, share: u32, path: impl Iterator<Item = (NodeId, Stats)>) {
        let book = self.books.entry(share).or_default();
        for (node, stats) in path {
            arena.node(node).record_batch(stats.visits, stats.half_points);
            *book.entry(node).or_default() += stats;
            *self.total.entry(node).or_default() += stats;
        }
    }

    /// The results recorded on `node` ahead of shares not yet applied.
    fn ahead(&self, node: NodeId) -> Stats {
        self.total.get(&node).copied().unwrap_or_default()
    }

    /// The book of share `share` (its application consumes it node by node).
    fn take(&mut self, share: u32) -> HashMap<NodeId, Stats> {
        self.books.remove(&share).unwrap_or_default()
    }

    /// Of the others' `stats` for `node` in the share being applied, the part recorded
    /// ahead (taken out of the books: it is then foreign like the rest).
    fn consume(&mut self, node: NodeId, ahead: &mut HashMap<NodeId, Stats>, stats: Stats) -> Stats {
        let Some(booked) = ahead.remove(&node) else { return Stats::default() };
        let here =
            Stats { visits: booked.visits.min(stats.visits), half_points: booked.half_points.min(stats.half_points) };
        let left = Stats { visits: booked.visits - here.visits, half_points: booked.half_points - here.half_points };
        if left.visits > 0 || left.half_points > 0 {
            ahead.insert(node, left);
        }
        if let Some(total) = self.total.get_mut(&node) {
            total.visits -= here.visits;
            total.half_points -= here.half_points;
        }
        here
    }

    /// Share `share` is applied; what of its book it did not bring (its sender's share
    /// had not read it yet) waits for the next.
    fn applied(&mut self, share: u32, left: HashMap<NodeId, Stats>) {
        self.applied = share;
        if !left.is_empty() {
            let next = self.books.entry(share + 1).or_default();
            for (node, stats) in left {
                *next.entry(node).or_default() += stats;
            }
        }
    }

    /// Everything still recorded ahead, by node (the search is over: it is foreign).
    fn drain(&mut self) -> impl Iterator<Item = (NodeId, Stats)> + '_ {
        self.books.clear();
        self.total.drain().filter(|(_, stats)| stats.visits > 0 || stats.half_points > 0)
    }
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

/// Waits for `request`, running `meanwhile` between two tests.
fn poll_with<'a, D: ?Sized, S: Scope<'a>>(mut request: Request<'a, D, S>, meanwhile: &mut dyn FnMut()) {
    loop {
        match request.test() {
            Ok(_) => return,
            Err(pending) => {
                request = pending;
                meanwhile();
            }
        }
    }
}

/// The children of `node` (none unless expanded).
fn children(tree: &mut SharedTree<'_>, node: NodeId) -> impl Iterator<Item = NodeId> {
    let (first, count) = match tree.expansion(node) {
        Expansion::Expanded { first, count } => (first.0, count),
        _ => (0, 0),
    };
    (first..first + count).map(NodeId)
}

/// The child of `parent` entered by move `mv`, if `parent` is expanded and has one.
fn child_by_move(tree: &mut SharedTree<'_>, parent: NodeId, mv: u16) -> Option<NodeId> {
    match tree.expansion(parent) {
        Expansion::Expanded { first, count } => child_with_move(tree, first, count, mv),
        _ => None,
    }
}
