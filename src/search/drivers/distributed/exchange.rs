//! One rank's side of the shares: the books of what it added from the other ranks and
//! what of its own it sent ([`Exchange`]), the fixed all-reduce of the root and its
//! children, the gathered move paths below them, and the results recorded ahead of the
//! share that brings them ([`Early`]). The scheme is described in the parent module.

use std::collections::{BTreeMap, HashMap};

use mpi::collective::SystemOperation;
use mpi::datatype::PartitionMut;
use mpi::request::{Request, Scope};
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives};

use super::rank_protocol::poll;
use crate::games::Move;
use crate::search::drivers::Summed;
use crate::search::iteration::child_by_move;
use crate::search::result::{root_children, RootChild};
use crate::tree::{Arena, Expansion, NodeId, Proof, SharedTree, Stats, TreeOps};

/// Words of the fixed share before the root: ranks done, rank 0's stop.
const HEADER: usize = 2;

/// A node's books: what this rank added from the others, and what of its own it sent.
#[derive(Clone, Copy, Debug, Default)]
struct Book {
    foreign: Stats,
    sent: Stats,
}

/// This rank's side of the shares.
#[derive(Debug)]
pub(in crate::search) struct Exchange {
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
    pub(super) fn new(arena: &Arena, rank: usize, depth: u32, share_percent: f32) -> Exchange {
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
    pub(super) fn share(
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

    /// The path entries (nodes below the root's children) the last share sent.
    pub(super) fn entries_sent(&self) -> usize {
        self.entries.len() / 2
    }

    /// Takes the foreign parts out again (the workers have joined): the tree then holds
    /// exactly this rank's own playouts.
    pub(super) fn withdraw(&mut self, arena: &mut Arena) {
        for (node, stats) in self.early.drain() {
            self.books.entry(node).or_default().foreign += stats;
        }
        for (&node, book) in &mut self.books {
            let node = arena.node_mut(node);
            let stats = node.stats_plain();
            node.set_stats_plain(Stats {
                visits: stats.visits - book.foreign.visits,
                half_points: stats.half_points - book.foreign.half_points,
            });
            book.foreign = Stats::default();
        }
    }

    /// The last all-reduce: every rank's own root children summed (and the proofs'
    /// strongest), with the playouts, root visits and nodes of all ranks.
    pub(super) fn total(&self, world: &SimpleCommunicator, arena: &mut Arena, playouts: u64) -> Summed {
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
        Summed { children, playouts: sums[0], root_visits: sums[1], nodes: sums[2], stats: None }
    }
}

/// Results of other ranks that this rank recorded in its tree before the share that
/// brings them (a split search: the owner of a walk's end answers with its result, and
/// the walk's starter records it on its path at once rather than a share later). Each is
/// booked under the share that will bring it, which then adds only the rest; until then
/// it is not this rank's own, so no share sends it back.
#[derive(Debug, Default)]
pub(in crate::search) struct Early {
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
    pub(super) fn record(&mut self, arena: &Arena, share: u32, path: impl Iterator<Item = (NodeId, Stats)>) {
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
