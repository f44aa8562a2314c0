//! The distributed driver's split scheme (`mode=dist`, `dist-scheme=split`): one tree,
//! split between the ranks. Schaefers & Platzner's UCT-Treesplit (2014, "Distributed
//! Monte-Carlo tree search: a novel technique and its application to computer Go"),
//! with a walk moving at most once.
//!
//! MoGo's scheme ([`super::share`]) gives each rank a whole tree, and below the shared top
//! the ranks repeat each other's work; the farm ([`super::farm`]) keeps one tree on rank 0,
//! whose core then does every rank's walks. Here every rank keeps the top of the tree,
//! down to `dist-depth` plies ([`Partition`]), and each node at that depth belongs, with
//! its whole subtree, to one rank, chosen by a hash of the moves from the root: its owner
//! grows it, so deep work is done once, and every rank walks.
//!
//! A rank starts walks from its root as a one-thread search does. A walk that reaches a
//! node another rank owns stops there (its virtual loss stays on the way down) and goes,
//! as its moves, into a batch for that rank; the owner replays the moves in its own tree
//! (expanding what it lacks), walks on below as usual, values the leaf and backs the result
//! up its own path, root included, as a walk of its own; then it answers with the result
//! and the node's value (implicit minimax), and the walk's starter takes its virtual loss
//! back ([`Worker::abandon_walk`]) and records both on its path at once: the result
//! through [`Early`], booked under the share that will bring the owner's statistics, so
//! that share adds only the rest. So each playout is counted once in the end, in the tree
//! of the rank that valued it, and the ranks' trees hold disjoint playouts, as in MoGo's
//! scheme: the top is shared the same way, by the same [`Exchange`] (every node of the
//! top that changed; the virtual loss of the walks in flight left out), and the final
//! move is chosen from the summed root children. Without the answers' results (the
//! starter learning of its walks a share later) 2 ranks played no better than one in
//! Othello at equal playouts (docs/SCALING.md, "The split").
//!
//! The owners of the most visited subtrees would set the pace of every rank (a hash of
//! the moves gives one rank the principal variation), and the answers take a round trip:
//! so a walk whose owner has all of this rank's batches in hand, and the next one full, is
//! valued here instead, walking on below the owner's node in this rank's own copy of that
//! subtree (MoGo's scheme for that walk: its playout counts here, its top is shared).
//!
//! Batches: at most `dist-batch` walks, at most [`MAX_BATCH_WORDS`] moves (a send never
//! waits for its receiver), [`IN_FLIGHT`] batches per pair of ranks; a batch goes as soon
//! as it is full, or at the next poll while the owner has none of this rank's in hand. A
//! rank polls every [`POLL_EVERY`] of walking: it serves the batches it is sent before
//! its own. Shares come every `dist-every` walks started here, or every `dist-period` ms;
//! a rank walks and serves while its share's collectives are in flight. When the share
//! says stop (every rank's budget spent, or rank 0's clock), each rank sends what it
//! holds, waits for its answers while serving, and all meet at a barrier: then no walk is
//! in flight anywhere.
//!
//! Messages (point to point): `WALKS` (per walk its number of moves, then the moves, as
//! u16) and `DONE` (for the oldest batch the receiver sent: the share after which the
//! results are in the owner's statistics, then per walk the first player's half points
//! and the value's bits, as u64). MPI keeps the order of messages between two ranks.

use std::collections::VecDeque;
use std::time::{Duration, Instant};

use mpi::datatype::Equivalence;
use mpi::point_to_point::{Destination, Source};
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives};
use mpi::Tag;
use rand_core::RngCore;

use crate::games::SearchGame;
use crate::tree::{Arena, SharedTree, Stats, TreeOps};

use super::budget::Claims;
use super::exchange::{Early, Exchange};
use super::rank_protocol;
use super::stats::{ShareStats, SplitStats};
use super::walks::{partition, Along, Partition, Partitioned, RemoteWalk};
use crate::search::drivers::Job;
use crate::search::iteration::Worker;

/// A rank to the owner of the walks' ends: a batch of walks.
const WALKS: Tag = 11;
/// The owner back: it has valued the oldest batch it was sent.
const DONE: Tag = 12;

/// How long a rank walks between two polls for messages (as the farm's rank 0: a poll
/// over TCP is a system call or two).
const POLL_EVERY: Duration = Duration::from_micros(20);

/// Batches in flight from one rank to another: one being valued, one waiting.
const IN_FLIGHT: usize = 2;

/// The most moves (u16 words, counts included) in one batch: 2 KiB, under Open MPI's
/// smallest eager limit (4 KiB, shared memory), so that a blocking send returns at once
/// and two ranks sending to each other never wait for each other.
pub(super) const MAX_BATCH_WORDS: usize = 1024;

/// Runs this rank's part of a split search on `arena` with `worker` (which values the
/// walks other ranks send here), sharing the top through `exchange`. Needs 2 ranks or
/// more (`walks::partition` gives one).
pub(super) fn run<G: SearchGame>(
    job: &Job<'_, G>,
    arena: &Arena,
    worker: &mut Worker,
    world: &SimpleCommunicator,
    exchange: &mut Exchange,
    shares: &mut ShareStats,
) -> SplitStats {
    match job.params.solver {
        true => Split::<G, true>::new(job, worker, world).run(arena, exchange, shares),
        false => Split::<G, false>::new(job, worker, world).run(arena, exchange, shares),
    }
}

/// One rank's side of a split search.
struct Split<'a, 'j, G: crate::games::Game, const SOLVER: bool> {
    job: &'a Job<'j, G>,
    world: &'a SimpleCommunicator,
    partition: Partition,
    /// The descent of this rank's own walks: stopping where another rank owns the tree.
    descent: Partitioned,
    /// The rank's worker: it values the walks sent here.
    worker: &'a mut Worker,
    /// A worker per walk that can be in flight (its path holds the walk's virtual loss
    /// until its owner answers), and those not in flight now.
    walkers: Vec<Worker>,
    idle: Vec<usize>,
    /// Walks a batch holds (`dist-batch`, within [`MAX_BATCH_WORDS`]).
    batch: usize,
    /// Per rank: the batch being filled (its walkers, its message), and the batches sent
    /// and not answered, oldest first.
    filling: Vec<Vec<usize>>,
    messages: Vec<Vec<u16>>,
    outstanding: Vec<VecDeque<Vec<usize>>>,
    /// Emptied batches' vectors, for the next batches (no allocation once warm).
    spare: Vec<Vec<usize>>,
    /// This rank's budget: once it is over, the rank starts no walk.
    claims: Claims,
    /// Walks started since the last share.
    since_share: u64,
    /// Reused buffers: a batch received, an answer.
    received: Vec<u16>,
    answer: Vec<u64>,
    /// The moves of a walk valued here in its owner's stead.
    overflow_moves: Vec<u16>,
    stats: SplitStats,
}

impl<'a, 'j, G: SearchGame, const SOLVER: bool> Split<'a, 'j, G, SOLVER> {
    fn new(job: &'a Job<'j, G>, worker: &'a mut Worker, world: &'a SimpleCommunicator) -> Self {
        let partition = partition(job.config).expect("a split search has a partition");
        let ranks = partition.ranks as usize;
        let words_per_walk = partition.depth as usize + 1;
        let batch = (job.config.dist_batch as usize).min(MAX_BATCH_WORDS / words_per_walk).max(1);
        // Per other rank: the batches in flight and the one being filled; and one walk
        // being started.
        let walks = (ranks - 1) * (IN_FLIGHT + 1) * batch + 1;
        let seed = worker.rng.next_u64();
        Split {
            job,
            world,
            partition,
            descent: Partitioned { partition, owner: None },
            claims: Claims::new(job.stopper.share(partition.rank as usize, ranks)),
            worker,
            walkers: (0..walks).map(|i| Worker::new(seed, i)).collect(),
            idle: (0..walks).rev().collect(),
            batch,
            filling: vec![Vec::new(); ranks],
            messages: vec![Vec::new(); ranks],
            outstanding: vec![VecDeque::new(); ranks],
            spare: Vec::new(),
            since_share: 0,
            received: Vec::new(),
            answer: Vec::new(),
            overflow_moves: Vec::new(),
            stats: SplitStats::default(),
        }
    }

    /// The search: walks, serves and shares until the shares say stop; then sends what it
    /// holds, collects its answers and meets the other ranks at a barrier.
    fn run(mut self, arena: &Arena, exchange: &mut Exchange, shares: &mut ShareStats) -> SplitStats {
        let tree = &mut SharedTree(arena);
        let period = Duration::from_millis(self.job.config.dist_period.into());
        // A timed search: every rank shares at its stop time, where rank 0 says stop (a
        // share completes only when every rank has joined it).
        let stop_at = rank_protocol::stop_time(self.job);
        loop {
            let next_period = Instant::now() + period;
            let next_share = stop_at.map_or(next_period, |t| t.min(next_period));
            while !self.claims.over()
                && match self.job.config.dist_every {
                    Some(every) => self.since_share < u64::from(every),
                    // Past the stop time, it walks on until the root has its floor of visits.
                    None => Instant::now() < next_share || !self.job.stopper.floor_reached(tree),
                }
            {
                self.step(tree, true, &mut exchange.early);
            }
            self.since_share = 0;
            self.book_in_flight(exchange);
            let time_up = self.partition.rank == 0 && rank_protocol::past_stop_time(self.job, tree);
            let (done, world) = (self.claims.over(), self.world);
            // While the collectives travel this rank goes on walking and serving.
            let stop = shares.share(exchange, world, arena, done, time_up, &mut |early| self.step(tree, true, early));
            if stop {
                break;
            }
        }
        self.claims.end();
        while self.outstanding.iter().any(|o| !o.is_empty()) || self.filling.iter().any(|f| !f.is_empty()) {
            self.step(tree, false, &mut exchange.early);
        }
        // Every rank gets here with no walk of its own in flight; until all have, the
        // others may still need this one's answers.
        let mut barrier = self.world.immediate_barrier();
        loop {
            match barrier.test() {
                Ok(_) => break,
                Err(pending) => barrier = pending,
            }
            self.step(tree, false, &mut exchange.early);
        }
        // The walks' workers' counts go to the rank's one worker, which the search reports.
        for walker in &self.walkers {
            self.worker.playouts += walker.playouts;
            self.worker.max_depth = self.worker.max_depth.max(walker.max_depth);
            self.worker.arena_full |= walker.arena_full;
        }
        self.stats
    }

    /// One stretch of work: walks from the root for up to [`POLL_EVERY`] (if `walk` and
    /// the budget allows), then sends the batches due and handles the messages that came.
    fn step(&mut self, tree: &mut SharedTree<'_>, walk: bool, early: &mut Early) {
        let due = Instant::now() + POLL_EVERY;
        while walk && self.claim(tree) {
            self.start(tree);
            if Instant::now() >= due {
                break;
            }
        }
        for owner in 0..self.filling.len() {
            // A full batch goes when it may; a partial one when the owner has nothing of
            // this rank's to value.
            let filled = self.filling[owner].len();
            if filled == self.batch || (filled > 0 && self.outstanding[owner].is_empty()) {
                self.send(owner);
            }
        }
        self.handle_messages(tree, early);
    }

    /// One more iteration of this rank's budget, if the stopper allows it.
    fn claim(&mut self, tree: &mut SharedTree<'_>) -> bool {
        self.claims.claim(&self.job.stopper, tree)
    }

    /// Starts a walk from the root: it ends here, or goes into its owner's batch.
    fn start(&mut self, tree: &mut SharedTree<'_>) {
        let (root, params) = (self.job.root, self.job.params);
        // At most a full batch and the batches in flight wait per owner: there are
        // walkers for all of them, and one more for this walk.
        let w = self.idle.pop().expect("an idle walker");
        let walker = &mut self.walkers[w];
        self.descent.owner = None;
        let walk = walker.start_walk_by::<G, _, SOLVER, _>(tree, root, params, &mut self.descent);
        self.since_share += 1;
        match self.descent.owner {
            None => {
                walker.finish_walk::<G, _, SOLVER>(tree, params, walk);
                self.idle.push(w);
                self.stats.local += 1;
            }
            Some(owner) if self.filling[owner as usize].len() == self.batch => {
                // The owner's batches are all in flight and the next is full: rather than
                // wait, this rank values the walk itself, walking on below the owner's node
                // in its own tree (a copy of that subtree, as MoGo's scheme keeps one of
                // every subtree). The ranks that own the most visited subtrees would
                // otherwise set the pace of all.
                let moves = &mut self.overflow_moves;
                moves.clear();
                walker.walk_moves(tree, moves);
                walker.abandon_walk(tree, params);
                let walk = walker.start_walk_by::<G, _, SOLVER, _>(tree, root, params, &mut Along(moves));
                walker.finish_walk::<G, _, SOLVER>(tree, params, walk);
                self.idle.push(w);
                self.stats.overflow += 1;
            }
            Some(owner) => {
                let (owner, message) = (owner as usize, &mut self.messages[owner as usize]);
                let at = message.len();
                message.push(0);
                walker.walk_moves(tree, message);
                message[at] = (message.len() - at - 1) as u16;
                self.filling[owner].push(w);
                if self.filling[owner].len() == self.batch {
                    self.send(owner);
                }
            }
        }
    }

    /// Sends the batch being filled for `owner`, if it may ([`IN_FLIGHT`]).
    fn send(&mut self, owner: usize) {
        if self.outstanding[owner].len() >= IN_FLIGHT {
            return;
        }
        self.world.process_at_rank(owner as i32).send_with_tag(&self.messages[owner][..], WALKS);
        self.messages[owner].clear();
        self.stats.sent += self.filling[owner].len() as u64;
        let batch = std::mem::replace(&mut self.filling[owner], self.spare.pop().unwrap_or_default());
        self.outstanding[owner].push_back(batch);
    }

    /// Values the batches other ranks sent and finishes the walks the owners have
    /// answered, while messages are waiting.
    fn handle_messages(&mut self, tree: &mut SharedTree<'_>, early: &mut Early) {
        while let Some((message, status)) = self.world.any_process().immediate_matched_probe() {
            let from = status.source_rank() as usize;
            match status.tag() {
                WALKS => {
                    self.received.resize(status.count(u16::equivalent_datatype()) as usize, 0);
                    message.matched_receive_into(&mut self.received[..]);
                    // The answer: the share after which the results are in this rank's
                    // statistics, then per walk its result and its end's value.
                    self.answer.clear();
                    self.answer.push(u64::from(early.taken) + 1);
                    self.serve(tree);
                    self.world.process_at_rank(from as i32).send_with_tag(&self.answer[..], DONE);
                }
                DONE => {
                    self.answer.resize(status.count(u64::equivalent_datatype()) as usize, 0);
                    message.matched_receive_into(&mut self.answer[..]);
                    let mut batch = self.outstanding[from].pop_front().expect("an answer to a batch in flight");
                    assert_eq!(self.answer.len(), batch.len() + 1, "an answer for every walk sent");
                    let share = self.answer[0] as u32;
                    for (i, &w) in batch.iter().enumerate() {
                        self.finish(tree, early, w, share, self.answer[1 + i]);
                        self.idle.push(w);
                    }
                    batch.clear();
                    self.spare.push(batch);
                }
                tag => panic!("a split search's message has tag WALKS or DONE (got {tag})"),
            }
        }
    }

    /// Walks on from each walk of the batch received (its moves replayed from the root),
    /// values it and backs it up in this rank's tree, and appends its answer: the first
    /// player's half points, and the value the walk left on the node it was sent for.
    fn serve(&mut self, tree: &mut SharedTree<'_>) {
        let (root, params) = (self.job.root, self.job.params);
        let mut at = 0;
        while at < self.received.len() {
            let moves = &self.received[at + 1..at + 1 + usize::from(self.received[at])];
            let walk = self.worker.start_walk_by::<G, _, SOLVER, _>(tree, root, params, &mut Along(moves));
            let outcome = self.worker.finish_walk_returning::<G, _, SOLVER>(tree, params, walk);
            let value: f32 = self.worker.walk_node_at(moves.len()).map_or(0.0, |node| tree.value(node));
            self.answer.push(rank_protocol::encode(outcome) | u64::from(value.to_bits()) << 32);
            at += 1 + moves.len();
            self.stats.served += 1;
        }
    }

    /// Finishes walker `w`'s walk, valued elsewhere (`word`: [`Split::serve`]'s answer),
    /// whose result is in the owner's statistics after share `share`: takes its virtual
    /// loss back, records the result on its path ahead of that share (unless applied
    /// already) and its end's value (implicit minimax).
    fn finish(&mut self, tree: &mut SharedTree<'_>, early: &mut Early, w: usize, share: u32, word: u64) {
        let params = self.job.params;
        let walker = &mut self.walkers[w];
        walker.abandon_walk(tree, params);
        walker.set_walk_value(tree, params, f32::from_bits((word >> 32) as u32));
        if early.applied < share {
            let outcome = rank_protocol::decode(word & 3);
            let path = walker
                .walk_steps()
                .map(|(node, mover)| (node, Stats { visits: 1, half_points: outcome.half_points(mover) }));
            early.record(tree.0, share, path);
        }
    }

    /// Tells `exchange` the virtual loss the walks in flight hold on the top's nodes, so
    /// that a share leaves it out (it is taken back, never replaced by a result, here).
    fn book_in_flight(&self, exchange: &mut Exchange) {
        let params = self.job.params;
        let weight = if params.uct.wu_uct { 0 } else { params.virtual_loss };
        exchange.in_flight.clear();
        if weight == 0 {
            return;
        }
        let in_flight = self.outstanding.iter().flatten().flatten().chain(self.filling.iter().flatten());
        for &w in in_flight {
            for node in self.walkers[w].walk_nodes_marked() {
                *exchange.in_flight.entry(node).or_default() += weight;
            }
        }
    }
}
