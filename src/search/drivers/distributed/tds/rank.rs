//! One rank's part of a TDS search ([`TdsRank`]): the nodes it is home to, the jobs
//! staying on it, and the messages it has for the other ranks. It sends and receives
//! nothing itself: whoever runs it (the MPI transport, the simulator) takes its
//! outgoing words from [`TdsRank::out`] and gives it what came ([`TdsRank::receive`]).
//! One thread runs a rank: its arena is searched through an exclusive tree that keeps
//! virtual loss ([`ExclusiveTree`](crate::tree::ExclusiveTree)), as a worker with several walks in flight does.

use std::time::Duration;

use rustc_hash::FxHashMap;

use crate::games::{Move, Player, SearchGame};
use crate::policy::uct::select_child;
use crate::search::iteration::{back_up_values, expand, Expanded, Step, Worker};
use crate::search::params::IterationParams;
use crate::tree::{Expansion, NodeId, TreeOps};

use super::allowance::keeps_best;
use super::copy::{TopCopy, SYNC};
use super::{child_hash, home, Root};

/// A job going down: `[DOWN | moves << 8, key, hash, allowance, moves packed 4 a word]`.
pub(crate) const DOWN: u64 = 1;
/// A job's playouts going up: `[UP, key, playouts | half points << 32, value bits]`.
pub(crate) const UP: u64 = 2;
/// The words of an `UP` message.
const UP_WORDS: usize = 4;
/// The sender of a job started here: it reports to no rank.
const ORIGIN: u32 = u32::MAX;

/// What one rank of a TDS search did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TdsStats {
    /// Walks run on this rank (each from a node it is home to, down to a leaf or to a
    /// node whose home is another rank).
    pub walks: u64,
    /// Leaves valued here (playouts or evaluations): its share of the search's playouts.
    pub valued: u64,
    /// Of those, the leaves inside the root's block (its copy's, or on the root's home).
    pub valued_in_top: u64,
    /// Jobs sent down to other ranks.
    pub downs: u64,
    /// Reports of playouts sent up to other ranks.
    pub ups: u64,
    /// Messages sent (each a batch of the above for one rank).
    pub messages: u64,
    /// Words (`u64`) those messages held.
    pub words: u64,
    /// Nodes it is home to whose parent's home is another rank.
    pub fragments: u64,
    /// Time its loop found nothing to do (no walk run): waiting for the other ranks (under
    /// MPI; the simulator of ranks leaves it zero).
    pub idle: Duration,
}

/// A job's stay on this rank: the walks it runs from one node this rank is home to.
#[derive(Debug)]
struct Stay<G> {
    /// The job's number and its hop count (`job << 16 | hop`): unique among the stays of
    /// all ranks.
    key: u64,
    /// The rank it reports to (`ORIGIN`: none, the job started here).
    from: u32,
    /// The node its walks start from, the player who moved into it, its path's hash, its
    /// position and the moves from the root to it.
    node: NodeId,
    mover: Player,
    hash: u64,
    state: G,
    moves: Vec<u16>,
    /// The playouts it may take here, those it has (and their first player's half points).
    allowance: u32,
    done: u32,
    half_points: u64,
    /// The walk in flight: the nodes from `node` to the one whose home it was sent to,
    /// and their path hashes.
    walk: Vec<Step>,
    hashes: Vec<u64>,
}

/// One rank's part of a TDS search of `G`.
pub(crate) struct TdsRank<'a, G: SearchGame> {
    pub rank: u32,
    pub ranks: u32,
    /// Plies per home block: a node at a depth that is a multiple of it has the home its
    /// hash names, the others their parent's (`dist-depth`).
    block: u32,
    /// Where the root is (its hash, depth and home), and its position.
    root_at: Root,
    root: &'a G,
    params: IterationParams<'a, G>,
    /// Values the leaves (its generator also shuffles the children at expansion).
    pub worker: &'a mut Worker,
    /// The fragments: a node of this rank's arena for each node it is home to whose
    /// parent's home is another rank, by path hash.
    pub fragments: FxHashMap<u64, NodeId>,
    stays: Vec<Stay<G>>,
    free: Vec<usize>,
    by_key: FxHashMap<u64, usize>,
    /// Words for each rank, sent by the transport.
    pub out: Vec<Vec<u64>>,
    next_job: u64,
    /// Jobs started here and not finished (the root's home).
    pub in_flight: u32,
    /// Playouts reported to the jobs' origin, here.
    pub finished: u64,
    /// Stopping: each job reports after the walk it is in.
    halting: bool,
    /// The moves of the job arriving, reused (no allocation per message).
    arriving: Vec<u16>,
    /// Per rank: the jobs this one sent it that have not reported back.
    pub waiting_on: Vec<u32>,
    /// This rank's copy of the root's block (`dist-top-everywhere=on`).
    copy: Option<TopCopy>,
    /// The search is over (the root's home said so).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub stopped: bool,
    pub stats: TdsStats,
}

impl<'a, G: SearchGame> TdsRank<'a, G> {
    /// Rank `rank` of `ranks`, with home blocks of `block` plies, searching `root` (its
    /// place `root_at`) with the `fragments` kept from the last search (none afresh); a
    /// copy of the root's block tells the others every `sync_every` playouts.
    pub(crate) fn new(
        (rank, ranks, block, sync_every): (u32, u32, u32, u32),
        (root, root_at): (&'a G, Root),
        fragments: FxHashMap<u64, NodeId>,
        params: IterationParams<'a, G>,
        worker: &'a mut Worker,
    ) -> Self {
        TdsRank {
            rank,
            ranks,
            block: block.max(1),
            root_at,
            root,
            params,
            worker,
            fragments,
            stays: Vec::new(),
            free: Vec::new(),
            by_key: FxHashMap::with_capacity_and_hasher(1 << 10, Default::default()),
            out: vec![Vec::new(); ranks as usize],
            next_job: 0,
            in_flight: 0,
            finished: 0,
            halting: false,
            arriving: Vec::new(),
            waiting_on: vec![0; ranks as usize],
            stopped: false,
            copy: root_at.everywhere.then(|| TopCopy::new(root_at.hash, sync_every)),
            stats: TdsStats::default(),
        }
    }

    /// The nodes this rank is home to whose parent's home is another rank, by path hash:
    /// its fragments, and on its home the root.
    pub(crate) fn fragment_list(&self) -> Vec<(u64, NodeId)> {
        super::check::fragment_list(&self.fragments, self.root_at, self.rank)
    }

    /// Where the root is.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn root_at(&self) -> Root {
        self.root_at
    }

    /// From now on each job reports after the walk it is in.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn halt(&mut self) {
        self.halting = true;
    }

    /// Starts a job from the root (this rank is its home, or keeps a copy of the top) that may take `allowance`
    /// playouts.
    pub(crate) fn start_job<T: TreeOps>(&mut self, tree: &mut T, allowance: u32) {
        // The root's home starts jobs, or with copies of the top every rank.
        debug_assert!(self.root_at.kept_on(self.rank));
        // Unique over the ranks that start jobs.
        let key = (self.next_job * u64::from(self.ranks) + u64::from(self.rank)) << 16;
        self.next_job += 1;
        self.in_flight += 1;
        if let Some(copy) = &mut self.copy {
            copy.root_grown(tree);
        }
        let (root, mover) = (self.root.clone(), self.root.side_to_move().other());
        let at = self.stay(key, ORIGIN, (NodeId::ROOT, mover, self.root_at.hash), root, &[], allowance);
        self.run(tree, at);
        self.settle(tree);
    }

    /// Handles `words`, the messages another rank sent.
    pub(crate) fn receive<T: TreeOps>(&mut self, tree: &mut T, from: u32, words: &[u64]) {
        self.handle(tree, from, words);
        self.settle(tree);
    }

    /// Handles the messages this rank sent itself (with `dist-top-everywhere=on`, a job leaving
    /// its copy of the root's block for a node it is home to), until none is left.
    fn settle<T: TreeOps>(&mut self, tree: &mut T) {
        let me = self.rank as usize;
        while !self.out[me].is_empty() {
            let words = std::mem::take(&mut self.out[me]);
            self.handle(tree, self.rank, &words);
            if self.out[me].is_empty() {
                // Keep the buffer's room for the next round.
                self.out[me] = words;
                self.out[me].clear();
            }
        }
    }

    /// Handles `words`, messages from rank `from`.
    fn handle<T: TreeOps>(&mut self, tree: &mut T, from: u32, words: &[u64]) {
        let mut at = 0;
        while at < words.len() {
            let header = words[at];
            match header & 0xFF {
                DOWN => {
                    let count = (header >> 8) as usize;
                    let (key, hash, allowance) = (words[at + 1], words[at + 2], words[at + 3] as u32);
                    let packed = &words[at + 4..at + 4 + count.div_ceil(4)];
                    self.arrive(tree, from, key, hash, allowance, unpack(packed, count));
                    at += 4 + count.div_ceil(4);
                }
                UP => {
                    let (key, counts, value) = (words[at + 1], words[at + 2], f32::from_bits(words[at + 3] as u32));
                    self.waiting_on[from as usize] -= 1;
                    self.report_received(tree, key, (counts & 0xFFFF_FFFF) as u32, counts >> 32, value);
                    at += UP_WORDS;
                }
                SYNC => {
                    let length = TopCopy::message_words(header);
                    let copy = self.copy.as_mut().expect("a SYNC only to a rank with a copy of the top");
                    copy.receive(tree, &words[at + 1..at + length]);
                    at += length;
                }
                kind => panic!("a TDS message is DOWN, UP or SYNC (got kind {kind} from rank {from})"),
            }
        }
    }

    /// A job sent down to this rank: its stay at the node (the fragment, made if new).
    fn arrive<T: TreeOps>(
        &mut self,
        tree: &mut T,
        from: u32,
        key: u64,
        hash: u64,
        allowance: u32,
        moves: impl Iterator<Item = u16>,
    ) {
        let mut state = self.root.clone();
        let mut path = std::mem::take(&mut self.arriving);
        path.clear();
        let mut mover = state.side_to_move().other();
        for mv in moves {
            mover = state.side_to_move();
            state.play_unchecked(Move(mv));
            path.push(mv);
        }
        let node = match self.fragments.get(&hash) {
            Some(&node) => Some(node),
            None => tree.alloc(1).inspect(|&node| {
                tree.init_child(node, path.last().copied().unwrap_or(0), 0);
                self.fragments.insert(hash, node);
                self.stats.fragments += 1;
            }),
        };
        let Some(node) = node else {
            // No room for the fragment: the node is valued as a leaf, as in a full arena.
            self.worker.arena_full = true;
            let half_points = self.value(&mut state);
            self.send_up(from, key - 1, 1, half_points, f32::NAN);
            return;
        };
        let at = self.stay(key, from, (node, mover, hash), state, &path, allowance);
        self.arriving = path;
        self.run(tree, at);
    }

    /// A report of `playouts` worth `half_points` (the first player's) from below the
    /// stay `key`'s walk in flight, with the value of the node it was sent to.
    fn report_received<T: TreeOps>(&mut self, tree: &mut T, key: u64, playouts: u32, half_points: u64, value: f32) {
        let at = *self.by_key.get(&key).expect("a report to a stay of this rank");
        let walk = std::mem::take(&mut self.stays[at].walk);
        self.back_up(tree, &walk, playouts, half_points, value);
        self.note_copy(tree, at, &walk, (playouts, half_points));
        let stay = &mut self.stays[at];
        stay.walk = walk;
        stay.done += playouts;
        stay.half_points += half_points;
        self.run(tree, at);
    }

    /// A stay in a free slot.
    fn stay(
        &mut self,
        key: u64,
        from: u32,
        (node, mover, hash): (NodeId, Player, u64),
        state: G,
        moves: &[u16],
        allowance: u32,
    ) -> usize {
        let fresh = Stay {
            key,
            from,
            node,
            mover,
            hash,
            state,
            moves: Vec::new(),
            allowance,
            done: 0,
            half_points: 0,
            walk: Vec::new(),
            hashes: Vec::new(),
        };
        let at = match self.free.pop() {
            Some(at) => {
                let old = &mut self.stays[at];
                let (moves, walk, hashes) =
                    (std::mem::take(&mut old.moves), std::mem::take(&mut old.walk), std::mem::take(&mut old.hashes));
                self.stays[at] = Stay { moves, walk, hashes, ..fresh };
                at
            }
            None => {
                self.stays.push(fresh);
                self.stays.len() - 1
            }
        };
        self.stays[at].moves.clear();
        self.stays[at].moves.extend_from_slice(moves);
        self.by_key.insert(key, at);
        at
    }

    /// Runs the stay's walks until one goes to another rank or the allowance is spent
    /// (then reports).
    fn run<T: TreeOps>(&mut self, tree: &mut T, at: usize) {
        loop {
            let stay = &self.stays[at];
            if stay.done >= stay.allowance || (self.halting && stay.done > 0) {
                self.report(tree, at);
                return;
            }
            if !self.walk(tree, at) {
                return;
            }
        }
    }

    /// One walk from the stay's node: selection and expansion down this rank's nodes;
    /// the leaf valued and backed up here (true), or the walk sent to the home of the
    /// node it reached (false).
    fn walk<T: TreeOps>(&mut self, tree: &mut T, at: usize) -> bool {
        let (vl, params) = (self.params.virtual_loss, self.params);
        let mut walk = std::mem::take(&mut self.stays[at].walk);
        walk.clear();
        let stay = &mut self.stays[at];
        let (mut state, mut hash, prefix) = (stay.state.clone(), stay.hash, stay.moves.len());
        tree.add_virtual_loss(stay.node, vl);
        walk.push(Step { node: stay.node, mover: stay.mover, batched: false, chance: false });
        stay.hashes.clear();
        stay.hashes.push(hash);
        self.stats.walks += 1;
        loop {
            let node = walk[walk.len() - 1].node;
            match tree.expansion(node) {
                Expansion::Expanded { first, count } if count > 0 => {
                    let child = select_child::<T, false>(tree, node, first, count, params.uct, vl);
                    let (mover, mv) = (state.side_to_move(), tree.mv(child));
                    state.play_unchecked(Move(mv));
                    tree.add_virtual_loss(child, vl);
                    walk.push(Step { node: child, mover, batched: false, chance: false });
                    hash = child_hash(hash, mv);
                    self.stays[at].moves.push(mv);
                    self.stays[at].hashes.push(hash);
                    let at_block = self.root_at.starts_block(self.stays[at].moves.len() as u32, self.block);
                    let to = if at_block { home(hash, self.ranks) } else { self.rank };
                    // A job leaving a copy of the root's block goes to the node's home even
                    // where that is this rank: the node's statistics are its fragment's.
                    let leaves_copy = at_block && self.root_at.everywhere && self.stays[at].from == ORIGIN;
                    if to != self.rank || leaves_copy {
                        let stay = &self.stays[at];
                        let left = stay.allowance.saturating_sub(stay.done).max(1);
                        let allowance = match self.halting {
                            true => 1,
                            false => keeps_best(tree, node, (first, count), child, params.uct, vl).min(left),
                        };
                        self.send_down(to, stay.key + 1, hash, allowance, at);
                        let stay = &mut self.stays[at];
                        stay.moves.truncate(prefix);
                        stay.walk = walk;
                        return false;
                    }
                }
                // A leaf for good (a finished game, or the arena was full).
                Expansion::Expanded { .. } | Expansion::Expanding => break,
                Expansion::Unexpanded => {
                    if tree.stats(node).visits - vl < params.expand_threshold || !tree.try_claim(node) {
                        break;
                    }
                    let (priors, implicit) = (params.priors(), params.implicit_evaluator());
                    let layout = params.child_layout();
                    match expand(tree, node, &state, Some(&mut self.worker.rng), priors, implicit, layout) {
                        Expanded::Children => {
                            if let (Some(copy), ORIGIN) = (&mut self.copy, self.stays[at].from) {
                                if let Expansion::Expanded { first, count } = tree.expansion(node) {
                                    copy.expanded(tree, hash, (first, count));
                                }
                            }
                        }
                        Expanded::Leaf => break,
                        Expanded::ArenaFull => {
                            self.worker.arena_full = true;
                            break;
                        }
                    }
                }
            }
        }
        self.worker.max_depth = self.worker.max_depth.max(self.stays[at].moves.len() as u32);
        self.stats.valued_in_top += u64::from(self.stays[at].from == ORIGIN);
        self.stays[at].moves.truncate(prefix);
        let half_points = self.value(&mut state);
        self.back_up(tree, &walk, 1, half_points, f32::NAN);
        self.note_copy(tree, at, &walk, (1, half_points));
        let stay = &mut self.stays[at];
        stay.walk = walk;
        stay.done += 1;
        stay.half_points += half_points;
        true
    }

    /// A leaf's value (playout or evaluator): the first player's half points.
    fn value(&mut self, state: &mut G) -> u64 {
        self.stats.valued += 1;
        self.worker.playouts += 1;
        u64::from(self.worker.value_leaf(state, self.params).half_points(Player::One))
    }

    /// A walk of a job started here (within this rank's copy of the root's block): what
    /// it added goes to the copy's tally for the others, told when due.
    fn note_copy<T: TreeOps>(&mut self, tree: &mut T, at: usize, walk: &[Step], (playouts, half_points): (u32, u64)) {
        let Some(copy) = &mut self.copy else { return };
        let stay = &self.stays[at];
        if stay.from != ORIGIN {
            return;
        }
        let steps =
            walk.iter().zip(&stay.hashes).map(|(step, &hash)| (hash, points(step.mover, playouts, half_points)));
        if copy.note(steps, playouts) {
            self.send_copy(tree);
        }
    }

    /// Tells the other ranks what this rank's jobs added to its copy of the root's block
    /// since it last did (the search's end: all of it).
    pub(crate) fn send_copy<T: TreeOps>(&mut self, tree: &mut T) {
        if let Some(copy) = self.copy.as_mut().filter(|copy| copy.has_unsent()) {
            copy.send(tree, &mut self.out, self.rank as usize, self.params.uct.implicit > 0.0);
        }
    }

    /// Records `playouts` worth `half_points` (the first player's) on `walk`, taking its
    /// virtual loss back; with implicit minimax, gives its last node `value` (unless NaN:
    /// none came) and backs the values up.
    fn back_up<T: TreeOps>(&mut self, tree: &mut T, walk: &[Step], playouts: u32, half_points: u64, value: f32) {
        let vl = self.params.virtual_loss;
        for step in walk {
            let points = points(step.mover, playouts, half_points);
            if playouts == 1 {
                tree.record(step.node, points, vl);
            } else {
                tree.remove_virtual_loss(step.node, vl);
                tree.record_batch(step.node, playouts, points);
            }
        }
        if self.params.uct.implicit > 0.0 {
            if !value.is_nan() {
                tree.set_value(walk[walk.len() - 1].node, value);
            }
            back_up_values(tree, walk);
        }
    }

    /// Ends the stay: its playouts go up to the rank that sent it (or finish its job).
    fn report<T: TreeOps>(&mut self, tree: &mut T, at: usize) {
        let stay = &self.stays[at];
        let (key, from, done, half_points) = (stay.key, stay.from, stay.done, stay.half_points);
        let expanded = matches!(tree.expansion(stay.node), Expansion::Expanded { count, .. } if count > 0);
        let value = if expanded && self.params.uct.implicit > 0.0 { tree.value(stay.node) } else { f32::NAN };
        self.by_key.remove(&key);
        self.free.push(at);
        if from == ORIGIN {
            self.in_flight -= 1;
            self.finished += u64::from(done);
        } else {
            self.send_up(from, key - 1, done, half_points, value);
        }
    }

    /// Appends a `DOWN` message for rank `to`: the stay `at`'s job, now at the node
    /// hashed `hash` (reached by the stay's moves).
    fn send_down(&mut self, to: u32, key: u64, hash: u64, allowance: u32, at: usize) {
        let moves = &self.stays[at].moves;
        let out = &mut self.out[to as usize];
        out.extend_from_slice(&[DOWN | (moves.len() as u64) << 8, key, hash, u64::from(allowance)]);
        out.extend(moves.chunks(4).map(|chunk| chunk.iter().rev().fold(0u64, |word, &mv| word << 16 | u64::from(mv))));
        self.waiting_on[to as usize] += 1;
        self.stats.downs += 1;
    }

    /// Appends an `UP` message for rank `to`.
    fn send_up(&mut self, to: u32, key: u64, playouts: u32, half_points: u64, value: f32) {
        let counts = u64::from(playouts) | half_points << 32;
        self.out[to as usize].extend_from_slice(&[UP, key, counts, u64::from(value.to_bits())]);
        self.stats.ups += 1;
    }
}

/// The half points of `playouts` worth `half_points` to the first player, to the player
/// who moved into a node (`mover`).
fn points(mover: Player, playouts: u32, half_points: u64) -> u32 {
    let points = match mover {
        Player::One => half_points,
        Player::Two => 2 * u64::from(playouts) - half_points,
    };
    points as u32
}

/// The words of the message whose first word is `header`.
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) fn message_words(header: u64) -> usize {
    match header & 0xFF {
        DOWN => 4 + ((header >> 8) as usize).div_ceil(4),
        SYNC => TopCopy::message_words(header),
        _ => UP_WORDS,
    }
}

/// The `count` moves packed 4 to a word (the first in the low bits).
fn unpack(packed: &[u64], count: usize) -> impl Iterator<Item = u16> + '_ {
    packed.iter().flat_map(|&word| (0..4).map(move |i| (word >> (16 * i)) as u16)).take(count)
}
