//! The tree node: 24 bytes, three words grouped by when they change.
//!
//! | field | written | by whom |
//! |---|---|---|
//! | `link` | once, UNEXPANDED → EXPANDING → EXPANDED (forward only) | the one thread that wins the expansion CAS |
//! | `edge` | once, before the parent's `link` is published | the thread that expanded the parent |
//! | `stats`, `unobserved` | every playout through the node | any thread, by atomic read-modify-write |
//!
//! The memory-ordering protocol is written down in `docs/CONCURRENCY.md`.

use crate::atomics::{AtomicU32, AtomicU64, Exclusive, Ordering};

/// Index of a node in the arena. The root is node 0.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub(crate) struct NodeId(pub u32);

impl NodeId {
    /// The root of every tree.
    pub(crate) const ROOT: NodeId = NodeId(0);

    /// The index as `usize`.
    #[inline]
    pub(crate) fn index(self) -> usize {
        self.0 as usize
    }
}

/// Where a node is in its forward-only expansion state machine.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Expansion {
    /// No children yet; playouts start here.
    Unexpanded,
    /// One thread is building the children; others play out from here instead of waiting.
    Expanding,
    /// Children are published. Zero children: a terminal position, or the arena was full.
    Expanded {
        /// First child of the contiguous block.
        first: NodeId,
        /// Number of children.
        count: u32,
    },
}

// Bit layout of the `link` word. `first_child` in the high half, the child count and the
// state in the low half.
const STATE_BITS: u64 = 2;
const STATE_MASK: u64 = (1 << STATE_BITS) - 1;
const STATE_UNEXPANDED: u64 = 0;
const STATE_EXPANDING: u64 = 1;
const STATE_EXPANDED: u64 = 2;
const COUNT_SHIFT: u64 = STATE_BITS;
const COUNT_BITS: u64 = 16;
const COUNT_MASK: u64 = (1 << COUNT_BITS) - 1;
// Bits 18-19: the proven value (MCTS-Solver), set at most once per node, never cleared.
const PROOF_SHIFT: u64 = COUNT_SHIFT + COUNT_BITS;
const PROOF_MASK: u64 = 3 << PROOF_SHIFT;
const FIRST_SHIFT: u64 = 32;
/// The most children one node can have (the child count field's range).
pub(super) const MAX_CHILDREN: u32 = COUNT_MASK as u32;

/// Packs a move and its prior into an edge word.
#[inline]
pub(crate) fn encode_edge(mv: u16, prior: u16) -> u32 {
    mv as u32 | (prior as u32) << 16
}

/// Packs an expanded link word.
#[inline]
pub(crate) fn encode_expanded(first: NodeId, count: u32) -> u64 {
    debug_assert!(count <= MAX_CHILDREN);
    STATE_EXPANDED | (count as u64) << COUNT_SHIFT | (first.0 as u64) << FIRST_SHIFT
}

/// Unpacks a link word.
#[inline]
pub(crate) fn decode_link(word: u64) -> Expansion {
    match word & STATE_MASK {
        STATE_UNEXPANDED => Expansion::Unexpanded,
        STATE_EXPANDING => Expansion::Expanding,
        _ => Expansion::Expanded {
            first: NodeId((word >> FIRST_SHIFT) as u32),
            count: ((word >> COUNT_SHIFT) & COUNT_MASK) as u32,
        },
    }
}

/// A game-theoretic value proven by the search (MCTS-Solver, Winands, Björnsson & Saito
/// 2008), from the perspective of the player who moved into the node.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Proof {
    /// Not proven (yet).
    #[default]
    Unknown = 0,
    /// Lost for the mover whatever they do next.
    Loss = 1,
    /// A draw with best play.
    Draw = 2,
    /// Won for the mover with best play.
    Win = 3,
}

impl Proof {
    /// The proof of a finished game with this result for the mover (half points 0, 1, 2).
    #[inline]
    pub fn from_half_points(half_points: u32) -> Proof {
        match half_points {
            0 => Proof::Loss,
            1 => Proof::Draw,
            _ => Proof::Win,
        }
    }

    /// The same value seen by the other player.
    #[inline]
    pub fn flip(self) -> Proof {
        match self {
            Proof::Win => Proof::Loss,
            Proof::Loss => Proof::Win,
            other => other,
        }
    }

    /// Whether a value is proven.
    #[inline]
    pub fn is_known(self) -> bool {
        self != Proof::Unknown
    }

    /// The proven result in half points for the mover (`None` if unknown).
    #[inline]
    pub fn half_points(self) -> Option<u32> {
        match self {
            Proof::Unknown => None,
            Proof::Loss => Some(0),
            Proof::Draw => Some(1),
            Proof::Win => Some(2),
        }
    }

    #[inline]
    fn decode(word: u64) -> Proof {
        match (word & PROOF_MASK) >> PROOF_SHIFT {
            0 => Proof::Unknown,
            1 => Proof::Loss,
            2 => Proof::Draw,
            _ => Proof::Win,
        }
    }

    #[inline]
    fn encode(self) -> u64 {
        (self as u64) << PROOF_SHIFT
    }
}

// Bit layout of the `stats` word: visits in the low half, the score in half points in
// the high half, so one `fetch_add` records a playout and a reader gets a consistent
// (visits, score) pair from one load. The score is at most 2 * visits, so both halves
// stay in range while visits < 2^31 (the configuration caps the playout budget there).
const VISITS_MASK: u64 = u32::MAX as u64;
const SCORE_SHIFT: u64 = 32;

/// Visit count and summed result of a node, from the perspective of the player who made
/// the move into it.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct Stats {
    /// Completed playouts through the node; while a search runs, plus the virtual loss
    /// of the playouts in flight through it (`V` visits each, scoring nothing).
    pub visits: u32,
    /// Sum of the results in half points (win 2, draw 1, loss 0).
    pub half_points: u32,
}

impl std::ops::AddAssign for Stats {
    fn add_assign(&mut self, other: Stats) {
        self.visits += other.visits;
        self.half_points += other.half_points;
    }
}

impl Stats {
    /// Unpacks a stats word.
    #[inline]
    pub(crate) fn decode(word: u64) -> Stats {
        Stats { visits: (word & VISITS_MASK) as u32, half_points: (word >> SCORE_SHIFT) as u32 }
    }

    /// The increment that records one playout worth `half_points`.
    #[inline]
    pub(crate) fn one_playout(half_points: u32) -> u64 {
        Stats::playouts(1, half_points)
    }

    /// The increment that adds `amount` visits of virtual loss (visits scoring nothing).
    #[inline]
    pub(crate) fn virtual_loss(amount: u32) -> u64 {
        amount as u64
    }

    /// The increment, added with wrapping, that records one playout worth `half_points`
    /// and takes back the `virtual_loss` visits its walk added: `virtual_loss - 1` visits
    /// fewer than it adds. Exact in the packed word because the visits it takes back are
    /// there: the borrow of the visits half is repaid by its carry into the score half.
    #[inline]
    pub(crate) fn one_playout_replacing(half_points: u32, virtual_loss: u32) -> u64 {
        Stats::one_playout(half_points).wrapping_sub(Stats::virtual_loss(virtual_loss))
    }

    /// The increment that records `playouts` playouts worth `half_points` in total (the
    /// packed halves add independently, so batches add like single playouts).
    #[inline]
    pub(crate) fn playouts(playouts: u32, half_points: u32) -> u64 {
        playouts as u64 | (half_points as u64) << SCORE_SHIFT
    }
}

/// One tree node. Holds no game state: the state is replayed from the root.
#[repr(C)]
#[derive(Debug, Default)]
pub(crate) struct Node {
    /// Expansion state, child count and first child (see [`Expansion`]).
    link: AtomicU64,
    /// Visits and score, packed (see [`Stats`]). While a search runs, the visits include
    /// its virtual loss: each playout in flight through the node counts as `V` visits
    /// scoring nothing (the virtual-loss weight), until its backup replaces them with
    /// the real result in the same atomic add. So selection reads one word per child.
    stats: AtomicU64,
    /// WU-UCT's unobserved playouts (`--in-flight wu-uct`): the playouts in flight through
    /// this node, times the virtual-loss weight, kept apart from `stats` because WU-UCT
    /// counts them in the exploration term only. Zero in the default mode, and whenever
    /// no search is running.
    unobserved: AtomicU32,
    /// The edge from the parent: the move (low 16 bits) and its prior probability for
    /// progressive bias in units of 1/65535 (high 16 bits). Set once, before publication.
    edge: AtomicU32,
}

#[cfg(not(loom))]
const _: () = assert!(std::mem::size_of::<Node>() == 24, "Node must stay 24 bytes");

/// Byte offsets of a node's words, for contention counting: the link (expansion state
/// and proof), the stats (with virtual loss), WU-UCT's unobserved count and the edge
/// (move and prior).
pub(crate) const FIELD_OFFSETS: FieldOffsets = FieldOffsets {
    link: std::mem::offset_of!(Node, link),
    stats: std::mem::offset_of!(Node, stats),
    unobserved: std::mem::offset_of!(Node, unobserved),
    edge: std::mem::offset_of!(Node, edge),
};

/// See [`FIELD_OFFSETS`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct FieldOffsets {
    pub link: usize,
    pub stats: usize,
    pub unobserved: usize,
    pub edge: usize,
}

impl Node {
    // ---- expansion state machine -------------------------------------------------

    /// The expansion state.
    #[inline]
    pub(crate) fn expansion(&self) -> Expansion {
        // ORDERING: Acquire pairs with the Release store in `publish`, so a reader that
        // sees EXPANDED also sees the children's `edge` and zeroed counters.
        decode_link(self.link.load(Ordering::Acquire))
    }

    /// Claims the right to expand: UNEXPANDED → EXPANDING. Exactly one caller wins.
    #[inline]
    pub(crate) fn try_claim(&self) -> bool {
        // ORDERING: Relaxed on both paths: claiming publishes nothing, and the loser reads
        // nothing through this node (it plays out from here). The RMW's atomicity alone
        // guarantees a single winner.
        self.link.compare_exchange(STATE_UNEXPANDED, STATE_EXPANDING, Ordering::Relaxed, Ordering::Relaxed).is_ok()
    }

    /// Publishes the children: EXPANDING → EXPANDED.
    #[inline]
    pub(crate) fn publish(&self, first: NodeId, count: u32) {
        // ORDERING: Release pairs with the Acquire load in `expansion`: it publishes the
        // initialised child block (their `edge`, `link`, `stats`, `unobserved`).
        self.link.store(encode_expanded(first, count), Ordering::Release);
    }

    /// The proven value, if any.
    #[inline]
    pub(crate) fn proof(&self) -> Proof {
        // ORDERING: Relaxed: a proof is a self-contained fact about the game (every thread
        // that proves a node proves the same value), so it publishes nothing. A stale read
        // only misses a proof, which the solver tolerates (see docs/CONCURRENCY.md).
        Proof::decode(self.link.load(Ordering::Relaxed))
    }

    /// Records a proven value. Only for a node already EXPANDED (the one state whose link
    /// word never changes again), so the bits cannot be lost to the claim CAS or to the
    /// publishing store.
    #[inline]
    pub(crate) fn prove(&self, proof: Proof) {
        debug_assert!(matches!(self.expansion(), Expansion::Expanded { .. }));
        // ORDERING: Relaxed, as `proof`. An RMW continues the release sequence headed by
        // `publish`, so an Acquire load that reads this value still sees the children.
        self.link.fetch_or(proof.encode(), Ordering::Relaxed);
    }

    /// Resets the node to a fresh child with move `mv` and prior `prior` (units of
    /// 1/65535), before its parent is published.
    #[inline]
    pub(crate) fn init(&self, mv: u16, prior: u16) {
        // ORDERING: Relaxed; made visible to other threads by the parent's `publish`.
        self.link.store(STATE_UNEXPANDED, Ordering::Relaxed);
        self.stats.store(0, Ordering::Relaxed);
        self.unobserved.store(0, Ordering::Relaxed);
        self.edge.store(encode_edge(mv, prior), Ordering::Relaxed);
    }

    /// The move from the parent into this node.
    #[inline]
    pub(crate) fn mv(&self) -> u16 {
        // ORDERING: Relaxed; written before the parent's Release publish, and this node
        // was reached through the parent's Acquire load.
        self.edge.load(Ordering::Relaxed) as u16
    }

    /// Replaces the prior of the move into this node (units of 1/65535): the root
    /// noise of self-play, written before the search's workers start.
    pub(crate) fn set_prior(&self, prior: u16) {
        // ORDERING: Relaxed: written before the workers are spawned, which publishes it.
        let edge = self.edge.load(Ordering::Relaxed);
        self.edge.store(encode_edge(edge as u16, prior), Ordering::Relaxed);
    }

    /// The prior of the move into this node, in units of 1/65535.
    #[inline]
    pub(crate) fn prior(&self) -> u16 {
        // ORDERING: Relaxed, as `mv`.
        (self.edge.load(Ordering::Relaxed) >> 16) as u16
    }

    // ---- hot counters (Relaxed: they are statistics, not synchronisation) --------

    /// Visits and score. The pair is consistent (one load); it may lag other threads.
    #[inline]
    pub(crate) fn stats_relaxed(&self) -> Stats {
        Stats::decode(self.stats.load(Ordering::Relaxed))
    }

    /// WU-UCT's unobserved playouts now on this node (relaxed read: it may lag other
    /// threads).
    #[inline]
    pub(crate) fn unobserved_relaxed(&self) -> u32 {
        self.unobserved.load(Ordering::Relaxed)
    }

    /// Adds virtual loss on the way down: `amount` visits that score nothing.
    #[inline]
    pub(crate) fn add_virtual_loss(&self, amount: u32) {
        self.stats.fetch_add(Stats::virtual_loss(amount), Ordering::Relaxed);
    }

    /// Takes back `amount` visits of virtual loss without a result: a walk that ends
    /// elsewhere (a distributed search's walk valued on another rank). Exact in the
    /// packed word: the visits taken back are there, so nothing borrows from the score.
    #[inline]
    pub(crate) fn remove_virtual_loss(&self, amount: u32) {
        self.stats.fetch_sub(Stats::virtual_loss(amount), Ordering::Relaxed);
    }

    /// Records one finished playout and, in the same atomic add, takes back the
    /// `virtual_loss` visits its walk added on the way down.
    #[inline]
    pub(crate) fn record(&self, half_points: u32, virtual_loss: u32) {
        self.stats.fetch_add(Stats::one_playout_replacing(half_points, virtual_loss), Ordering::Relaxed);
    }

    /// Adds WU-UCT's unobserved playouts on the way down.
    #[inline]
    pub(crate) fn add_unobserved(&self, amount: u32) {
        self.unobserved.fetch_add(amount, Ordering::Relaxed);
    }

    /// Removes WU-UCT's unobserved playouts on the way up.
    #[inline]
    pub(crate) fn remove_unobserved(&self, amount: u32) {
        self.unobserved.fetch_sub(amount, Ordering::Relaxed);
    }

    /// Records a batch of finished playouts with one atomic add.
    #[inline]
    pub(crate) fn record_batch(&self, playouts: u32, half_points: u32) {
        self.stats.fetch_add(Stats::playouts(playouts, half_points), Ordering::Relaxed);
    }

    // ---- exclusive access: the sequential baseline uses no atomic instructions ----

    /// Expansion state through `&mut` (plain load).
    #[inline]
    pub(crate) fn expansion_plain(&mut self) -> Expansion {
        decode_link(self.link.with_exclusive(|w| *w))
    }

    /// Claims the right to expand through `&mut`: UNEXPANDED → EXPANDING (plain load
    /// and store). Returns whether the node was unexpanded.
    #[inline]
    pub(crate) fn claim_plain(&mut self) -> bool {
        self.link.with_exclusive(|w| {
            let unexpanded = *w == STATE_UNEXPANDED;
            if unexpanded {
                *w = STATE_EXPANDING;
            }
            unexpanded
        })
    }

    /// Sets the link through `&mut` (plain store).
    #[inline]
    pub(crate) fn set_expanded_plain(&mut self, first: NodeId, count: u32) {
        self.link.with_exclusive(|w| *w = encode_expanded(first, count));
    }

    /// The proven value through `&mut` (plain load).
    #[inline]
    pub(crate) fn proof_plain(&mut self) -> Proof {
        Proof::decode(self.link.with_exclusive(|w| *w))
    }

    /// Records a proven value through `&mut` (plain or).
    #[inline]
    pub(crate) fn prove_plain(&mut self, proof: Proof) {
        self.link.with_exclusive(|w| *w |= proof.encode());
    }

    /// Stats through `&mut` (plain load).
    #[inline]
    pub(crate) fn stats_plain(&mut self) -> Stats {
        Stats::decode(self.stats.with_exclusive(|w| *w))
    }

    /// [`Node::record`] through `&mut` (one plain add).
    #[inline]
    pub(crate) fn record_plain(&mut self, half_points: u32, virtual_loss: u32) {
        self.stats.with_exclusive(|w| *w = w.wrapping_add(Stats::one_playout_replacing(half_points, virtual_loss)));
    }

    /// [`Node::remove_virtual_loss`] through `&mut` (plain subtraction).
    #[inline]
    pub(crate) fn remove_virtual_loss_plain(&mut self, amount: u32) {
        self.stats.with_exclusive(|w| *w -= Stats::virtual_loss(amount));
    }

    /// WU-UCT's unobserved playouts through `&mut` (plain load).
    #[inline]
    pub(crate) fn unobserved_plain(&mut self) -> u32 {
        self.unobserved.with_exclusive(|v| *v)
    }

    /// [`Node::add_virtual_loss`] through `&mut` (plain add).
    #[inline]
    pub(crate) fn add_virtual_loss_plain(&mut self, amount: u32) {
        self.stats.with_exclusive(|w| *w += Stats::virtual_loss(amount));
    }

    /// [`Node::add_unobserved`] through `&mut` (plain add).
    #[inline]
    pub(crate) fn add_unobserved_plain(&mut self, amount: u32) {
        self.unobserved.with_exclusive(|v| *v += amount);
    }

    /// [`Node::remove_unobserved`] through `&mut` (plain subtraction).
    #[inline]
    pub(crate) fn remove_unobserved_plain(&mut self, amount: u32) {
        self.unobserved.with_exclusive(|v| *v -= amount);
    }

    /// Records a batch through `&mut` (plain add).
    #[inline]
    pub(crate) fn record_batch_plain(&mut self, playouts: u32, half_points: u32) {
        self.stats.with_exclusive(|w| *w += Stats::playouts(playouts, half_points));
    }

    /// Replaces the stats through `&mut` (plain store): for statistics added from
    /// another tree, and taken out again, by the synced driver.
    #[inline]
    pub(crate) fn set_stats_plain(&mut self, stats: Stats) {
        self.stats.with_exclusive(|w| *w = Stats::playouts(stats.visits, stats.half_points));
    }

    /// Copies `source`'s move, counters and link word (quiescent trees only: no virtual
    /// loss is copied). A link with children must be rewritten by the caller.
    pub(crate) fn copy_from_plain(&mut self, source: &mut Node) {
        let link = source.link.with_exclusive(|w| *w);
        let stats = source.stats.with_exclusive(|w| *w);
        let edge = source.edge.with_exclusive(|m| *m);
        *self = Node::default();
        self.link.with_exclusive(|w| *w = link);
        self.stats.with_exclusive(|w| *w = stats);
        self.edge.with_exclusive(|m| *m = edge);
    }

    /// Resets through `&mut` to a fresh child with move `mv` and prior `prior`.
    #[inline]
    pub(crate) fn init_plain(&mut self, mv: u16, prior: u16) {
        *self = Node::default();
        self.edge.with_exclusive(|m| *m = encode_edge(mv, prior));
    }

    /// The move into this node through `&mut`.
    #[inline]
    pub(crate) fn mv_plain(&mut self) -> u16 {
        self.edge.with_exclusive(|m| *m as u16)
    }

    /// The prior of the move into this node through `&mut`.
    #[inline]
    pub(crate) fn prior_plain(&mut self) -> u16 {
        self.edge.with_exclusive(|m| (*m >> 16) as u16)
    }
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn link_round_trips() {
        for (first, count) in [(1u32, 0u32), (7, 7), (u32::MAX, MAX_CHILDREN), (123_456, 82)] {
            let word = encode_expanded(NodeId(first), count);
            assert_eq!(decode_link(word), Expansion::Expanded { first: NodeId(first), count });
        }
        assert_eq!(decode_link(STATE_UNEXPANDED), Expansion::Unexpanded);
        assert_eq!(decode_link(STATE_EXPANDING), Expansion::Expanding);
    }

    #[test]
    fn proofs_sit_beside_the_link() {
        let node = Node::default();
        node.publish(NodeId(12_345), MAX_CHILDREN);
        assert_eq!(node.proof(), Proof::Unknown);
        node.prove(Proof::Draw);
        node.prove(Proof::Draw);
        assert_eq!(node.proof(), Proof::Draw);
        assert_eq!(node.expansion(), Expansion::Expanded { first: NodeId(12_345), count: MAX_CHILDREN });
        for p in [Proof::Win, Proof::Loss, Proof::Draw] {
            assert_eq!(Proof::decode(p.encode()), p);
            assert_eq!(p.flip().flip(), p);
        }
    }

    #[test]
    fn stats_pack_without_carry() {
        let node = Node::default();
        for i in 0..1000u32 {
            node.record(i % 3, 0);
        }
        let s = node.stats_relaxed();
        assert_eq!(s.visits, 1000);
        assert_eq!(s.half_points, (0..1000u32).map(|i| i % 3).sum::<u32>());
        // Near the top of the visits half: no carry into the score half.
        let word = (u32::MAX as u64 - 1) | 5 << SCORE_SHIFT;
        let s = Stats::decode(word + Stats::one_playout(0));
        assert_eq!((s.visits, s.half_points), (u32::MAX, 5));
    }

    #[test]
    fn virtual_loss_is_visits_that_the_backup_replaces() {
        let node = Node::default();
        node.record(1, 0);
        node.add_virtual_loss(3);
        node.add_virtual_loss(3);
        // Two walks in flight: six visits scoring nothing.
        assert_eq!(node.stats_relaxed(), Stats { visits: 7, half_points: 1 });
        // A win, then a loss (the visits half borrows; the carry repays it).
        node.record(2, 3);
        assert_eq!(node.stats_relaxed(), Stats { visits: 5, half_points: 3 });
        node.record(0, 3);
        assert_eq!(node.stats_relaxed(), Stats { visits: 3, half_points: 3 });
        // Weight 1: the backup adds only the score.
        node.add_virtual_loss(1);
        node.record(0, 1);
        assert_eq!(node.stats_relaxed(), Stats { visits: 4, half_points: 3 });
        // A walk valued elsewhere: its virtual loss comes back out, the score untouched.
        node.add_virtual_loss(2);
        node.remove_virtual_loss(2);
        assert_eq!(node.stats_relaxed(), Stats { visits: 4, half_points: 3 });
        // The same through `&mut`, and WU-UCT's separate count.
        let mut node = Node::default();
        node.add_virtual_loss_plain(2);
        node.remove_virtual_loss_plain(1);
        node.add_virtual_loss_plain(1);
        node.add_unobserved_plain(2);
        assert_eq!((node.stats_plain(), node.unobserved_plain()), (Stats { visits: 2, half_points: 0 }, 2));
        node.record_plain(0, 2);
        node.remove_unobserved_plain(2);
        assert_eq!((node.stats_plain(), node.unobserved_plain()), (Stats { visits: 1, half_points: 0 }, 0));
    }
}
