//! A rank's copy of the root's block (`dist-top-everywhere=on`, [`TopCopy`]): every rank
//! keeps the nodes from the root down to the end of the root's block and starts jobs
//! from them, so that no one rank walks the top of every playout. Each copy records its
//! own jobs' playouts at once and tells the other ranks what they added every
//! `dist-every` of its playouts (default [`SYNC_EVERY`]) and at the search's end, so
//! that once the search is over every copy holds every rank's playouts: the root's
//! visits on each rank are the search's, and a record at the block's end the visits of
//! its home's fragment. What comes for a node a copy has not grown yet waits until the
//! copy expands its parent.
//!
//! Messages: `SYNC` (`[SYNC | entries << 8, then per entry: the node's path hash, its
//! added visits and half points, its implicit minimax value's bits]`), at most
//! [`SYNC_ENTRIES`] entries a message, batched with the jobs' messages.

use rustc_hash::FxHashMap;

use crate::tree::{Expansion, NodeId, TreeOps};

use super::child_hash;

/// A copy's additions going to every other rank.
pub(crate) const SYNC: u64 = 3;
/// The most entries in one `SYNC` message (241 words: within the transport's cut).
pub(crate) const SYNC_ENTRIES: usize = 80;
/// A rank's own playouts between two of its `SYNC`s, unless `dist-every` says otherwise.
pub(crate) const SYNC_EVERY: u32 = 256;

/// Visits, half points and the latest implicit minimax value (NaN: none) of a node.
type Added = (u32, u32, f32);

/// One rank's copy of the root's block.
#[derive(Debug, Default)]
pub(crate) struct TopCopy {
    /// The copy's nodes by path hash (the root's and the records at the block's end too).
    nodes: FxHashMap<u64, NodeId>,
    /// What this rank's jobs added since it last told the others.
    unsent: FxHashMap<u64, Added>,
    /// What the others told of nodes this copy does not have yet.
    pending: FxHashMap<u64, Added>,
    /// This rank's playouts in `unsent`, and how many make a `SYNC`.
    unsent_playouts: u32,
    every: u32,
    /// The root's path hash, and whether its children are in `nodes`
    /// ([`TopCopy::root_grown`]).
    root_hash: u64,
    root_seen: bool,
}

impl TopCopy {
    /// A copy whose root (hashed `hash`) is `NodeId::ROOT`, told every `every` playouts.
    pub(crate) fn new(hash: u64, every: u32) -> TopCopy {
        let mut copy = TopCopy { every: every.max(1), root_hash: hash, ..TopCopy::default() };
        copy.nodes.insert(hash, NodeId::ROOT);
        copy
    }

    /// Takes in the root's children, where the root was expanded before the search (as
    /// it is when prepared): once.
    pub(crate) fn root_grown<T: TreeOps>(&mut self, tree: &mut T) {
        if self.root_seen {
            return;
        }
        self.root_seen = true;
        if let Expansion::Expanded { first, count } = tree.expansion(NodeId::ROOT) {
            self.expanded(tree, self.root_hash, (first, count));
        }
    }

    /// The children `first..first + count` of the copy's node hashed `hash`, just
    /// expanded: they join the copy, with what the others told of them.
    pub(crate) fn expanded<T: TreeOps>(&mut self, tree: &mut T, hash: u64, (first, count): (NodeId, u32)) {
        for child in (first.0..first.0 + count).map(NodeId) {
            let child_hash = child_hash(hash, tree.mv(child));
            self.nodes.insert(child_hash, child);
            if let Some(added) = self.pending.remove(&child_hash) {
                add(tree, child, added);
            }
        }
    }

    /// Notes what this rank's walk added to its copy's nodes (`hashes`, the walk's
    /// steps within the copy, each with its `points`), `playouts` in all; whether a
    /// `SYNC` is due.
    pub(crate) fn note(&mut self, steps: impl Iterator<Item = (u64, u32)>, playouts: u32) -> bool {
        for (hash, points) in steps {
            let entry = self.unsent.entry(hash).or_insert((0, 0, f32::NAN));
            (entry.0, entry.1) = (entry.0 + playouts, entry.1 + points);
        }
        self.unsent_playouts += playouts;
        self.unsent_playouts >= self.every
    }

    /// Whether this rank has added playouts it has not told.
    pub(crate) fn has_unsent(&self) -> bool {
        !self.unsent.is_empty()
    }

    /// Appends `SYNC` messages with what this rank added (and each node's value on
    /// `tree`) to `out` (one buffer per rank; `me` gets none), and forgets it.
    pub(crate) fn send<T: TreeOps>(&mut self, tree: &mut T, out: &mut [Vec<u64>], me: usize, values: bool) {
        let mut words = Vec::with_capacity(1 + 3 * self.unsent.len().min(SYNC_ENTRIES));
        let mut entries: Vec<(u64, Added)> = self.unsent.drain().collect();
        entries.sort_unstable_by_key(|&(hash, _)| hash);
        for chunk in entries.chunks(SYNC_ENTRIES) {
            words.clear();
            words.push(SYNC | (chunk.len() as u64) << 8);
            for &(hash, (visits, half_points, _)) in chunk {
                let value = match (values, self.nodes.get(&hash)) {
                    (true, Some(&node)) => tree.value(node),
                    _ => f32::NAN,
                };
                words.extend_from_slice(&[hash, u64::from(visits) | u64::from(half_points) << 32]);
                words.push(u64::from(value.to_bits()));
            }
            for (_, buffer) in out.iter_mut().enumerate().filter(|&(to, _)| to != me) {
                buffer.extend_from_slice(&words);
            }
        }
        self.unsent_playouts = 0;
    }

    /// Adds what another rank's `SYNC` entries (`words`, after the header) tell.
    pub(crate) fn receive<T: TreeOps>(&mut self, tree: &mut T, words: &[u64]) {
        for entry in words.chunks_exact(3) {
            let (hash, counts) = (entry[0], entry[1]);
            let added = (counts as u32, (counts >> 32) as u32, f32::from_bits(entry[2] as u32));
            match self.nodes.get(&hash) {
                Some(&node) => add(tree, node, added),
                None => {
                    let held = self.pending.entry(hash).or_insert((0, 0, f32::NAN));
                    (held.0, held.1) = (held.0 + added.0, held.1 + added.1);
                    if !added.2.is_nan() {
                        held.2 = added.2;
                    }
                }
            }
        }
    }

    /// The words of the `SYNC` message whose first word is `header`.
    pub(crate) fn message_words(header: u64) -> usize {
        1 + 3 * (header >> 8) as usize
    }
}

/// Adds `added` to `node`'s statistics (no virtual loss: the other rank's walks are
/// over), and its value if it has one.
fn add<T: TreeOps>(tree: &mut T, node: NodeId, (visits, half_points, value): Added) {
    tree.record_batch(node, visits, half_points);
    if !value.is_nan() {
        tree.set_value(node, value);
    }
}
