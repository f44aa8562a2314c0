//! The distributed driver's farm scheme (`mode=dist`, `dist-scheme=farm`): one tree on
//! rank 0, whose leaves the other ranks value. Cazenave & Jouandeau's "at-the-leaves"
//! parallelisation over MPI (2007, "On the parallelization of UCT"), Kato & Takeuchi's
//! simulation servers (2008, "Parallel Monte-Carlo tree search with simulation servers").
//!
//! MoGo's scheme ([`super::share`]) gives each rank its own tree, and the deep parts of the
//! trees repeat each other's work; here there is one tree, so every playout of every rank
//! counts in it as in a tree-parallel search. Rank 0 walks down the tree, adding virtual
//! loss as a tree-parallel thread does, and sends each other rank `dist-batch` leaves at a
//! time (each leaf as the moves from the root); that rank replays them, values each as a
//! local search would (the evaluator and/or a playout: [`Worker::value_leaf`]) and sends
//! the outcomes back, which rank 0 backs up. Two batches per rank are in flight, so a rank
//! has the next batch while its outcomes travel back; between batches rank 0 values
//! leaves itself. The tree thus has up to `2 · dist-batch` walks in flight per other
//! rank, each on its own [`Worker`] (its path, its virtual loss), as the virtual-thread
//! driver's logical workers have.
//!
//! Rank 0 is the only rank that touches a tree: its one thread does every descent and
//! backup of all ranks' leaves, so the scheme pays where valuing a leaf costs as much as
//! walking to it or more (a playout, an evaluator), and stops scaling when rank 0's tree
//! work fills its core. One thread a rank (the thread that makes the MPI calls).
//!
//! Rank 0 decides everything: which leaves, when to stop (budget, clock, a proven root:
//! the [`Stopper`](crate::search::stop::Stopper) as every driver uses it). With `dist-local=L` it
//! values exactly `L` leaves itself per round and then waits for the oldest batch of
//! every other rank, so the tree sees the same operations in the same order whatever the
//! machines' speeds: the search is reproducible from its seed. Without it rank 0 values
//! leaves while no outcomes have arrived, which keeps its core busy.
//!
//! Messages (point to point, eager-sized): rank 0 sends `LEAVES` (per leaf its number of
//! moves, then the moves) and `STOP`; the others answer `OUTCOMES` (per leaf, in order,
//! the first player's half points, and with RAVE the playout's moves as 16 words). MPI
//! keeps the order of messages between two ranks.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use mpi::datatype::Equivalence;
use mpi::point_to_point::{Destination, Source};
use mpi::topology::SimpleCommunicator;
use mpi::traits::Communicator;
use mpi::Tag;
use rand_core::RngCore;

use crate::games::{Move, MovesPlayed, SearchGame};
use crate::tree::{Arena, SharedTree};

use super::rank_protocol;
use crate::search::drivers::worker_loop::run_worker;
use crate::search::drivers::Job;
use crate::search::iteration::Worker;
use crate::search::params::IterationParams;

use super::budget::Claims;
use super::stats::FarmStats;
use super::walks::RemoteWalk;

/// Rank 0 to a helper: a batch of leaves.
const LEAVES: Tag = 1;
/// A helper to rank 0: the outcomes of its oldest batch.
const OUTCOMES: Tag = 2;
/// Rank 0 to a helper: the search is over.
const STOP: Tag = 3;

/// How long rank 0 values leaves itself between two polls for outcomes. A poll over TCP
/// costs a system call or two, about a leaf's time: polling after every leaf took 40 % of
/// rank 0's time in Othello (`perf`); 10-30 µs gave the same rates, 100 µs less.
const POLL_EVERY: Duration = Duration::from_micros(20);

/// Batches in flight per helper: one being valued, one waiting (or its answer
/// travelling back).
const IN_FLIGHT: usize = 2;

/// Runs this rank's part of a farm search on `arena` (rank 0) with `worker`. Returns what
/// it did; the playouts of all the walks are added to `worker.playouts` on rank 0.
pub(super) fn run<G: SearchGame>(
    job: &Job<'_, G>,
    arena: &Arena,
    worker: &mut Worker,
    world: &SimpleCommunicator,
) -> FarmStats {
    let (rank, size) = (world.rank() as usize, world.size() as usize);
    let tree = &mut SharedTree(arena);
    if size == 1 {
        // No one to farm out to: the tree-parallel search at one thread.
        run_worker(tree, job, worker, &job.stopper.shared());
        return FarmStats { valued_here: worker.playouts, ..FarmStats::default() };
    }
    match (rank, job.params.solver) {
        (0, true) => master::<G, true>(job, tree, worker, world),
        (0, false) => master::<G, false>(job, tree, worker, world),
        _ => helper(job, worker, world),
    }
}

/// Rank 0: walks the tree, sends leaves, backs up their outcomes, values leaves between.
fn master<G: SearchGame, const SOLVER: bool>(
    job: &Job<'_, G>,
    tree: &mut SharedTree<'_>,
    local: &mut Worker,
    world: &SimpleCommunicator,
) -> FarmStats {
    let helpers = world.size() as usize - 1;
    let batch = job.config.dist_batch as usize;
    // A worker per walk in flight (its path holds the walk's virtual loss until its outcome
    // comes back), seeded from this rank's generator.
    let seed = local.rng.next_u64();
    let walkers: Vec<Worker> = (0..helpers * IN_FLIGHT * batch).map(|i| Worker::new(seed, i)).collect();
    let mut farm = Master {
        job,
        world,
        idle: (0..walkers.len()).rev().collect(),
        walkers,
        outstanding: vec![VecDeque::new(); helpers],
        spare: Vec::new(),
        claims: Claims::new(job.stopper.share(0, 1)),
        message: Vec::new(),
        outcomes: vec![0; batch * words_per_leaf(job.params)],
        stats: FarmStats::default(),
    };
    loop {
        farm.top_up::<SOLVER>(tree);
        match job.config.dist_local {
            Some(own) => farm.reproducible_round::<SOLVER>(tree, local, own),
            None => farm.eager_round::<SOLVER>(tree, local),
        }
        if farm.claims.over() && farm.outstanding.iter().all(VecDeque::is_empty) {
            break;
        }
    }
    for h in 0..helpers {
        world.process_at_rank(h as i32 + 1).send_with_tag(&[0u16; 0][..], STOP);
    }
    // The walks' workers' counts go to the rank's one worker, which the search reports.
    for walker in &farm.walkers {
        local.playouts += walker.playouts;
        local.max_depth = local.max_depth.max(walker.max_depth);
        local.arena_full |= walker.arena_full;
    }
    farm.stats
}

/// Rank 0's side of a farm search.
struct Master<'a, 'j, G: crate::games::Game> {
    job: &'a Job<'j, G>,
    world: &'a SimpleCommunicator,
    /// A worker per walk that can be in flight, and those not in flight now.
    walkers: Vec<Worker>,
    idle: Vec<usize>,
    /// Per helper, its batches in flight (the walkers of each), oldest first.
    outstanding: Vec<VecDeque<Vec<usize>>>,
    /// Emptied batches' vectors, for the next batches (no allocation once warm).
    spare: Vec<Vec<usize>>,
    /// The budget: once it is over, no walk starts any more.
    claims: Claims,
    /// Reused buffers: a batch to send, the outcomes received.
    message: Vec<u16>,
    outcomes: Vec<u64>,
    stats: FarmStats,
}

impl<G: SearchGame> Master<'_, '_, G> {
    /// One more iteration of the budget, if the stopper allows it.
    fn claim(&mut self, tree: &mut SharedTree<'_>) -> bool {
        self.claims.claim(&self.job.stopper, tree)
    }

    /// Sends every helper batches until it has [`IN_FLIGHT`] (fewer once stopping).
    fn top_up<const SOLVER: bool>(&mut self, tree: &mut SharedTree<'_>) {
        let (root, params, batch) = (self.job.root, self.job.params, self.job.config.dist_batch as usize);
        for h in 0..self.outstanding.len() {
            while self.outstanding[h].len() < IN_FLIGHT {
                self.message.clear();
                let mut walks = self.spare.pop().unwrap_or_else(|| Vec::with_capacity(batch));
                while walks.len() < batch && self.claim(tree) {
                    let w = self.idle.pop().expect("a worker per walk in flight");
                    let walker = &mut self.walkers[w];
                    let walk = walker.start_walk::<G, _, SOLVER>(tree, root, params);
                    if walk.exact.is_some() {
                        // Known without a playout (a proven node, a finished game): not sent.
                        walker.finish_walk::<G, _, SOLVER>(tree, params, walk);
                        self.idle.push(w);
                        continue;
                    }
                    let at = self.message.len();
                    self.message.push(0);
                    walker.walk_moves(tree, &mut self.message);
                    self.message[at] = (self.message.len() - at - 1) as u16;
                    walks.push(w);
                }
                if walks.is_empty() {
                    break;
                }
                self.world.process_at_rank(h as i32 + 1).send_with_tag(&self.message[..], LEAVES);
                self.stats.sent += walks.len() as u64;
                self.outstanding[h].push_back(walks);
            }
        }
    }

    /// A round with `dist-local=own`: `own` leaves valued here with `local`, then the
    /// oldest batch of every helper backed up (waiting for it).
    fn reproducible_round<const SOLVER: bool>(&mut self, tree: &mut SharedTree<'_>, local: &mut Worker, own: u32) {
        let (job, helpers) = (self.job, self.outstanding.len());
        // Reproducible: `own` leaves here, then the oldest batch of every helper.
        for _ in 0..own {
            if !self.claim(tree) {
                break;
            }
            local.iterate::<G, _, SOLVER, 1>(tree, job.root, job.params);
            self.stats.valued_here += 1;
        }
        let waiting = Instant::now();
        for h in 0..helpers {
            if !self.outstanding[h].is_empty() {
                self.back_up::<SOLVER>(tree, h);
            }
        }
        self.stats.waited += waiting.elapsed();
    }

    /// A round without `dist-local`: backs up the outcomes that have arrived; if none
    /// has, values leaves here with `local` until the next poll, or once the budget is
    /// over waits for the answers in flight.
    fn eager_round<const SOLVER: bool>(&mut self, tree: &mut SharedTree<'_>, local: &mut Worker) {
        let (job, world, helpers) = (self.job, self.world, self.outstanding.len());
        let mut arrived = false;
        for h in 0..helpers {
            if !self.outstanding[h].is_empty()
                && world.process_at_rank(h as i32 + 1).immediate_probe_with_tag(OUTCOMES).is_some()
            {
                self.back_up::<SOLVER>(tree, h);
                arrived = true;
            }
        }
        if !arrived && !self.claims.over() {
            // Leaves here until the next poll is due: a poll over TCP is a system
            // call or two, as long as a leaf or two.
            let due = Instant::now() + POLL_EVERY;
            while self.claim(tree) {
                local.iterate::<G, _, SOLVER, 1>(tree, job.root, job.params);
                self.stats.valued_here += 1;
                if Instant::now() >= due {
                    break;
                }
            }
        } else if !arrived && self.claims.over() {
            // Only the answers in flight are left: wait for them.
            let waiting = Instant::now();
            for h in 0..helpers {
                while !self.outstanding[h].is_empty() {
                    self.back_up::<SOLVER>(tree, h);
                }
            }
            self.stats.waited += waiting.elapsed();
        }
    }

    /// Receives helper `h`'s outcomes of its oldest batch (waiting for them) and backs
    /// them up.
    fn back_up<const SOLVER: bool>(&mut self, tree: &mut SharedTree<'_>, h: usize) {
        let mut walks = self.outstanding[h].pop_front().expect("an answer to a batch in flight");
        let status = self.world.process_at_rank(h as i32 + 1).receive_into_with_tag(&mut self.outcomes[..], OUTCOMES);
        let words = words_per_leaf(self.job.params);
        assert_eq!(status.count(u64::equivalent_datatype()) as usize, walks.len() * words, "an answer per leaf sent");
        for (&w, answer) in walks.iter().zip(self.outcomes.chunks_exact(words)) {
            let played = match answer[1..].try_into() {
                Ok(moves) => MovesPlayed::from_words(moves),
                Err(_) => MovesPlayed::default(),
            };
            self.walkers[w].finish_walk_with::<_, SOLVER>(
                tree,
                self.job.params,
                rank_protocol::decode(answer[0]),
                played,
            );
            self.idle.push(w);
        }
        walks.clear();
        self.spare.push(walks);
    }
}

/// Another rank: values the leaves rank 0 sends until it says stop.
fn helper<G: SearchGame>(job: &Job<'_, G>, worker: &mut Worker, world: &SimpleCommunicator) -> FarmStats {
    let master = world.process_at_rank(0);
    let mut stats = FarmStats::default();
    let rave = words_per_leaf(job.params) > 1;
    let (mut leaves, mut outcomes): (Vec<u16>, Vec<u64>) = (Vec::new(), Vec::new());
    loop {
        let waiting = Instant::now();
        let (message, status) = master.matched_probe();
        stats.waited += waiting.elapsed();
        leaves.resize(status.count(u16::equivalent_datatype()) as usize, 0);
        message.matched_receive_into(&mut leaves[..]);
        if status.tag() == STOP {
            return stats;
        }
        outcomes.clear();
        let mut at = 0;
        while at < leaves.len() {
            let moves = &leaves[at + 1..at + 1 + usize::from(leaves[at])];
            let mut state = job.root.clone();
            for &mv in moves {
                state.play_unchecked(Move(mv));
            }
            outcomes.push(rank_protocol::encode(worker.value_leaf(&mut state, job.params)));
            if rave {
                outcomes.extend(worker.played().to_words());
            }
            at += 1 + moves.len();
            stats.valued_here += 1;
        }
        master.send_with_tag(&outcomes[..], OUTCOMES);
    }
}

/// Words of a helper's answer per leaf: the outcome, and with RAVE the playout's moves.
fn words_per_leaf(params: IterationParams<'_, impl crate::games::Game>) -> usize {
    if params.uct.rave > 0.0 {
        17
    } else {
        1
    }
}
