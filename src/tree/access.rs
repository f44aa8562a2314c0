//! [`TreeOps`]: the operations one search iteration performs on the tree, implemented
//! twice over the same [`Arena`]:
//!
//! * [`ExclusiveTree`] holds `&mut Arena` and uses plain loads and stores (no atomic
//!   instruction; virtual loss only when its `VIRTUAL_LOSS` parameter asks, for a worker
//!   with several playouts in flight) — the sequential baseline;
//! * [`SharedTree`] holds `&Arena` and uses the lock-free protocol of
//!   `docs/CONCURRENCY.md` — one handle per tree-parallel worker.
//!
//! The search iteration is generic over this trait, so both paths run the same algorithm
//! and the ratio between them is exactly the cost of sharing.

use std::ops::ControlFlow;

use super::arena::Arena;
use super::contention::{self, Access};
use super::node::{Expansion, Node, NodeId, Proof, Stats};
use crate::atomics::{Exclusive, Ordering};

/// What a search iteration needs from the tree. Methods take `&mut self` so that the
/// exclusive implementation can use `&mut` access; a shared handle is cheap to copy.
pub(crate) trait TreeOps {
    /// Whether this tree is shared between threads.
    const SHARED: bool;
    /// Whether this tree keeps virtual loss (a shared tree always does; an exclusive one
    /// when a worker keeps several playouts in flight).
    const VIRTUAL_LOSS: bool;
    /// The node's expansion state.
    fn expansion(&mut self, id: NodeId) -> Expansion;
    /// Claims the node for expansion; `false` if another thread got there first.
    fn try_claim(&mut self, id: NodeId) -> bool;
    /// Takes a block of `count` nodes, or `None` when the arena is full.
    fn alloc(&mut self, count: u32) -> Option<NodeId>;
    /// Initialises a fresh child with its move and prior (before its parent is published).
    fn init_child(&mut self, id: NodeId, mv: u16, prior: u16);
    /// Publishes a claimed node's children (`count` may be 0: a leaf for good).
    fn publish(&mut self, id: NodeId, first: NodeId, count: u32);
    /// The node's visits and score.
    fn stats(&mut self, id: NodeId) -> Stats;
    /// WU-UCT's unobserved playouts on the node (always 0 without `VIRTUAL_LOSS`).
    fn unobserved(&mut self, id: NodeId) -> u32;
    /// The move into the node.
    fn mv(&mut self, id: NodeId) -> u16;
    /// The node's proven value ([`Proof::Unknown`] if none).
    fn proof(&mut self, id: NodeId) -> Proof;
    /// Records a proven value on an EXPANDED node.
    fn prove(&mut self, id: NodeId, proof: Proof);
    /// Adds `increment(i, move)` ([`Stats`] bits: playouts and half points; often 0) to
    /// the AMAF statistics of the `i`-th child of the block (RAVE).
    fn add_amaf(&mut self, first: NodeId, count: u32, increment: impl Fn(usize, u16) -> u64);
    /// The node's implicit minimax value (0 when the arena keeps none).
    fn value(&mut self, id: NodeId) -> f32;
    /// Sets the node's implicit minimax value (nothing when the arena keeps none).
    fn set_value(&mut self, id: NodeId, value: f32);
    /// Calls `f(index, view)` for each child of the block, in order, until `f` breaks.
    /// Fields the flags leave out are not read: without `PROOFS` the proof is unknown,
    /// without `SIDE` the side arrays' fields (AMAF statistics, implicit minimax value)
    /// are zero, and without `unobserved` (WU-UCT's count) that count is zero.
    fn scan_children<const PROOFS: bool, const SIDE: bool>(
        &mut self,
        first: NodeId,
        count: u32,
        unobserved: bool,
        f: impl FnMut(u32, ChildView) -> ControlFlow<()>,
    );
    /// Adds virtual loss on the way down: `amount` visits that score nothing.
    fn add_virtual_loss(&mut self, id: NodeId, amount: u32);
    /// Takes back `amount` visits of virtual loss without a result (a walk valued elsewhere).
    fn remove_virtual_loss(&mut self, id: NodeId, amount: u32);
    /// Records a finished playout on the way up and, in the same add, takes back the
    /// `virtual_loss` visits its walk added on the way down.
    fn record(&mut self, id: NodeId, half_points: u32, virtual_loss: u32);
    /// Adds WU-UCT's unobserved playouts on the way down.
    fn add_unobserved(&mut self, id: NodeId, amount: u32);
    /// Removes WU-UCT's unobserved playouts on the way up.
    fn remove_unobserved(&mut self, id: NodeId, amount: u32);
    /// Records `playouts` finished playouts worth `half_points` in total at once.
    fn record_batch(&mut self, id: NodeId, playouts: u32, half_points: u32);
    /// The arena's identity (its address): which of a search's trees this is.
    fn arena_id(&self) -> usize;
}

/// What selection reads of one child.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct ChildView {
    /// Visits (virtual loss included) and score.
    pub stats: Stats,
    /// WU-UCT's unobserved playouts on it (0 unless the scan was asked to read them).
    pub unobserved: u32,
    /// Prior of its move for progressive bias, in units of 1/65535.
    pub prior: u16,
    /// Its proven value, if read.
    pub proof: Proof,
    /// Its AMAF statistics, if read.
    pub amaf: Stats,
    /// Its implicit minimax value for its mover, if read.
    pub value: f32,
}

/// Exclusive access for the sequential baseline: no atomic instructions. With
/// `VIRTUAL_LOSS`, plain adds keep the virtual loss of a worker's playouts in flight
/// (`leaves > 1`); without it (one playout at a time) there is none to keep, and
/// selection reads no counter for it.
#[derive(Debug)]
pub(crate) struct ExclusiveTree<'a, const VIRTUAL_LOSS: bool = false>(pub &'a mut Arena);

impl<const VIRTUAL_LOSS: bool> TreeOps for ExclusiveTree<'_, VIRTUAL_LOSS> {
    const SHARED: bool = false;
    const VIRTUAL_LOSS: bool = VIRTUAL_LOSS;
    #[inline]
    fn expansion(&mut self, id: NodeId) -> Expansion {
        self.0.node_mut(id).expansion_plain()
    }
    #[inline]
    fn try_claim(&mut self, id: NodeId) -> bool {
        // Nobody else can see the node, but a walk of this worker's may leave it claimed
        // until an evaluator's answer comes (batched evaluation): EXPANDING marks it.
        self.0.node_mut(id).claim_plain()
    }
    #[inline]
    fn alloc(&mut self, count: u32) -> Option<NodeId> {
        self.0.alloc_mut(count)
    }
    #[inline]
    fn init_child(&mut self, id: NodeId, mv: u16, prior: u16) {
        self.0.init_child_mut(id, mv, prior);
    }
    #[inline]
    fn publish(&mut self, id: NodeId, first: NodeId, count: u32) {
        self.0.node_mut(id).set_expanded_plain(first, count);
    }
    #[inline]
    fn stats(&mut self, id: NodeId) -> Stats {
        self.0.node_mut(id).stats_plain()
    }
    #[inline]
    fn unobserved(&mut self, id: NodeId) -> u32 {
        if VIRTUAL_LOSS {
            self.0.node_mut(id).unobserved_plain()
        } else {
            0
        }
    }
    #[inline]
    fn mv(&mut self, id: NodeId) -> u16 {
        self.0.node_mut(id).mv_plain()
    }
    #[inline]
    fn proof(&mut self, id: NodeId) -> Proof {
        self.0.node_mut(id).proof_plain()
    }
    #[inline]
    fn prove(&mut self, id: NodeId, proof: Proof) {
        self.0.node_mut(id).prove_plain(proof);
    }
    #[inline]
    fn add_amaf(&mut self, first: NodeId, count: u32, increment: impl Fn(usize, u16) -> u64) {
        let (nodes, Some(amaf), _) = self.0.block_and_side_mut(first, count) else { return };
        // Branch-free: adding 0 costs less than a branch that about half the children
        // take at random (Go 9x9: sequential MCTS 11 % faster than with the branch).
        for (i, (node, amaf)) in nodes.iter_mut().zip(amaf).enumerate() {
            let credit = increment(i, node.mv_plain());
            amaf.with_exclusive(|w| *w += credit);
        }
    }
    #[inline]
    fn value(&mut self, id: NodeId) -> f32 {
        self.0.value_plain(id)
    }
    #[inline]
    fn set_value(&mut self, id: NodeId, value: f32) {
        self.0.set_value_plain(id, value);
    }
    #[inline]
    fn scan_children<const PROOFS: bool, const SIDE: bool>(
        &mut self,
        first: NodeId,
        count: u32,
        unobserved: bool,
        mut f: impl FnMut(u32, ChildView) -> ControlFlow<()>,
    ) {
        let (nodes, mut amaf, mut values) =
            if SIDE { self.0.block_and_side_mut(first, count) } else { (self.0.block_mut(first, count), None, None) };
        for (i, node) in nodes.iter_mut().enumerate() {
            let view = ChildView {
                stats: node.stats_plain(),
                unobserved: if VIRTUAL_LOSS && unobserved { node.unobserved_plain() } else { 0 },
                prior: node.prior_plain(),
                proof: if PROOFS { node.proof_plain() } else { Proof::Unknown },
                amaf: match &mut amaf {
                    Some(amaf) => Stats::decode(amaf[i].with_exclusive(|w| *w)),
                    None => Stats::default(),
                },
                value: match &mut values {
                    Some(values) => f32::from_bits(values[i].with_exclusive(|w| *w)),
                    None => 0.0,
                },
            };
            if f(i as u32, view).is_break() {
                return;
            }
        }
    }
    #[inline]
    fn add_virtual_loss(&mut self, id: NodeId, amount: u32) {
        if VIRTUAL_LOSS {
            self.0.node_mut(id).add_virtual_loss_plain(amount);
        }
    }
    #[inline]
    fn remove_virtual_loss(&mut self, id: NodeId, amount: u32) {
        if VIRTUAL_LOSS {
            self.0.node_mut(id).remove_virtual_loss_plain(amount);
        }
    }
    #[inline]
    fn record(&mut self, id: NodeId, half_points: u32, virtual_loss: u32) {
        self.0.node_mut(id).record_plain(half_points, if VIRTUAL_LOSS { virtual_loss } else { 0 });
    }
    #[inline]
    fn add_unobserved(&mut self, id: NodeId, amount: u32) {
        if VIRTUAL_LOSS {
            self.0.node_mut(id).add_unobserved_plain(amount);
        }
    }
    #[inline]
    fn remove_unobserved(&mut self, id: NodeId, amount: u32) {
        if VIRTUAL_LOSS {
            self.0.node_mut(id).remove_unobserved_plain(amount);
        }
    }
    #[inline]
    fn record_batch(&mut self, id: NodeId, playouts: u32, half_points: u32) {
        self.0.node_mut(id).record_batch_plain(playouts, half_points);
    }
    fn arena_id(&self) -> usize {
        std::ptr::from_ref::<Arena>(self.0) as usize
    }
}

/// Shared access for tree-parallel workers: the lock-free protocol.
#[derive(Clone, Copy, Debug)]
pub(crate) struct SharedTree<'a>(pub &'a Arena);

impl TreeOps for SharedTree<'_> {
    const SHARED: bool = true;
    const VIRTUAL_LOSS: bool = true;
    #[inline]
    fn expansion(&mut self, id: NodeId) -> Expansion {
        count(self.0.node(id), F.link, Access::Load);
        self.0.node(id).expansion()
    }
    #[inline]
    fn try_claim(&mut self, id: NodeId) -> bool {
        count(self.0.node(id), F.link, Access::Rmw);
        self.0.node(id).try_claim()
    }
    #[inline]
    fn alloc(&mut self, count: u32) -> Option<NodeId> {
        contention::access(self.0.cursor_word(), 0, Access::Rmw);
        self.0.alloc(count)
    }
    #[inline]
    fn init_child(&mut self, id: NodeId, mv: u16, prior: u16) {
        count(self.0.node(id), F.stats, Access::Store);
        self.0.init_child(id, mv, prior);
    }
    #[inline]
    fn publish(&mut self, id: NodeId, first: NodeId, count: u32) {
        self::count(self.0.node(id), F.link, Access::Store);
        self.0.node(id).publish(first, count);
    }
    #[inline]
    fn stats(&mut self, id: NodeId) -> Stats {
        count(self.0.node(id), F.stats, Access::Load);
        self.0.node(id).stats_relaxed()
    }
    #[inline]
    fn unobserved(&mut self, id: NodeId) -> u32 {
        count(self.0.node(id), F.unobserved, Access::Load);
        self.0.node(id).unobserved_relaxed()
    }
    #[inline]
    fn mv(&mut self, id: NodeId) -> u16 {
        count(self.0.node(id), F.edge, Access::Load);
        self.0.node(id).mv()
    }
    #[inline]
    fn proof(&mut self, id: NodeId) -> Proof {
        count(self.0.node(id), F.link, Access::Load);
        self.0.node(id).proof()
    }
    #[inline]
    fn prove(&mut self, id: NodeId, proof: Proof) {
        count(self.0.node(id), F.link, Access::Rmw);
        self.0.node(id).prove(proof);
    }
    #[inline]
    fn add_amaf(&mut self, first: NodeId, count: u32, increment: impl Fn(usize, u16) -> u64) {
        let (nodes, Some(amaf), _) = self.0.block_and_side(first, count) else { return };
        // An atomic add of 0 would still take the cache line, so only the others are
        // added: first a mask of them per 64 children (no branch), then one add per set
        // bit (a branch per child, taken at random, cost more than the adds).
        for (chunk, (nodes, amaf)) in nodes.chunks(64).zip(amaf.chunks(64)).enumerate() {
            let mut credits = [0u64; 64];
            let mut mask = 0u64;
            for (i, node) in nodes.iter().enumerate() {
                credits[i] = increment(chunk * 64 + i, node.mv());
                mask |= u64::from(credits[i] != 0) << i;
            }
            while mask != 0 {
                let i = mask.trailing_zeros() as usize;
                amaf[i].fetch_add(credits[i], Ordering::Relaxed);
                mask &= mask - 1;
            }
        }
    }
    #[inline]
    fn value(&mut self, id: NodeId) -> f32 {
        self.0.value(id)
    }
    #[inline]
    fn set_value(&mut self, id: NodeId, value: f32) {
        self.0.set_value(id, value);
    }
    #[inline]
    fn scan_children<const PROOFS: bool, const SIDE: bool>(
        &mut self,
        first: NodeId,
        count: u32,
        unobserved: bool,
        mut f: impl FnMut(u32, ChildView) -> ControlFlow<()>,
    ) {
        let (nodes, amaf, values) =
            if SIDE { self.0.block_and_side(first, count) } else { (self.0.block(first, count), None, None) };
        for (i, node) in nodes.iter().enumerate() {
            self::count(node, F.stats, Access::Load);
            let view = ChildView {
                // One word per child: the virtual loss is in the visits.
                stats: node.stats_relaxed(),
                unobserved: if unobserved { node.unobserved_relaxed() } else { 0 },
                prior: node.prior(),
                proof: if PROOFS { node.proof() } else { Proof::Unknown },
                // ORDERING: Relaxed, as every counter.
                amaf: amaf.map_or(Stats::default(), |a| Stats::decode(a[i].load(Ordering::Relaxed))),
                // ORDERING: Relaxed, as `Arena::value`.
                value: values.map_or(0.0, |v| f32::from_bits(v[i].load(Ordering::Relaxed))),
            };
            if f(i as u32, view).is_break() {
                return;
            }
        }
    }
    #[inline]
    fn add_virtual_loss(&mut self, id: NodeId, amount: u32) {
        count(self.0.node(id), F.stats, Access::Rmw);
        self.0.node(id).add_virtual_loss(amount);
    }
    #[inline]
    fn remove_virtual_loss(&mut self, id: NodeId, amount: u32) {
        count(self.0.node(id), F.stats, Access::Rmw);
        self.0.node(id).remove_virtual_loss(amount);
    }
    #[inline]
    fn record(&mut self, id: NodeId, half_points: u32, virtual_loss: u32) {
        count(self.0.node(id), F.stats, Access::Rmw);
        self.0.node(id).record(half_points, virtual_loss);
    }
    #[inline]
    fn add_unobserved(&mut self, id: NodeId, amount: u32) {
        count(self.0.node(id), F.unobserved, Access::Rmw);
        self.0.node(id).add_unobserved(amount);
    }
    #[inline]
    fn remove_unobserved(&mut self, id: NodeId, amount: u32) {
        count(self.0.node(id), F.unobserved, Access::Rmw);
        self.0.node(id).remove_unobserved(amount);
    }
    #[inline]
    fn record_batch(&mut self, id: NodeId, playouts: u32, half_points: u32) {
        count(self.0.node(id), F.stats, Access::Rmw);
        self.0.node(id).record_batch(playouts, half_points);
    }
    fn arena_id(&self) -> usize {
        std::ptr::from_ref::<Arena>(self.0) as usize
    }
}

/// The node field offsets, for [`count`].
const F: super::node::FieldOffsets = super::node::FIELD_OFFSETS;

/// Counts an access to a field of `node` (a no-op without the `contention` feature).
#[inline(always)]
fn count(node: &Node, offset: usize, access: Access) {
    contention::access(node, offset, access);
}
