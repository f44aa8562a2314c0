//! The preallocated node arena: one array allocated once, children in contiguous blocks
//! taken from a bump cursor. Nothing is allocated per node.

use crossbeam_utils::CachePadded;

use super::node::{Expansion, Node, NodeId, Stats};
use crate::atomics::{AtomicU32, AtomicU64, Exclusive, Ordering};

/// Bytes per node (pinned by a const assert in `node.rs`).
pub const NODE_BYTES: usize = std::mem::size_of::<Node>();

/// The bytes of memory this process may still have: Linux's `MemAvailable`
/// (`/proc/meminfo`), capped by the cgroup's limit less its use (`memory.max` and
/// `memory.current`, cgroup v2) where one is set; `None` where neither can be read (other
/// systems), and then no arena is refused for its size.
pub(crate) fn available_bytes() -> Option<u64> {
    let read = |path: &str| std::fs::read_to_string(path).ok();
    let meminfo = read("/proc/meminfo").and_then(|text| {
        let line = text.lines().find(|l| l.starts_with("MemAvailable:"))?;
        let kib: u64 = line.split_whitespace().nth(1)?.parse().ok()?;
        Some(kib.saturating_mul(1024))
    });
    let number = |path: &str| read(path).and_then(|t| t.trim().parse::<u64>().ok());
    let cgroup = number("/sys/fs/cgroup/memory.max")
        .map(|max| max.saturating_sub(number("/sys/fs/cgroup/memory.current").unwrap_or(0)));
    match (meminfo, cgroup) {
        (Some(a), Some(b)) => Some(a.min(b)),
        (a, b) => a.or(b),
    }
}

/// A fixed-capacity array of nodes with a lock-free bump allocator. Node 0 is the root.
#[derive(Debug)]
pub(crate) struct Arena {
    nodes: Array<Node>,
    /// Nodes handed out so far (the root included). Padded to its own cache line: every
    /// expanding thread writes it, and it must not share a line with read-mostly data.
    cursor: CachePadded<AtomicU32>,
    /// RAVE's all-moves-as-first statistics of the edge into each node, packed like the
    /// node's own [`Stats`]; allocated only for searches with RAVE on (8 more bytes per
    /// node, outside the 24-byte node so that plain searches do not pay for them).
    amaf: Option<Array<AtomicU64>>,
    /// Implicit minimax values (Lanctot et al. 2014): the evaluator's minimax value of
    /// each node's position for the player who moved into it, a win probability stored
    /// as `f32` bits; allocated only for searches with `implicit` on.
    values: Option<Array<AtomicU32>>,
}

/// Why an arena could not be created. Crate-private: the search turns it into its
/// `ConfigError` in one place (`From<CapacityError> for ConfigError`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct CapacityError {
    /// The requested capacity in nodes.
    pub requested: u64,
}

impl std::fmt::Display for CapacityError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "arena capacity {} nodes is outside 2..=2^32-1", self.requested)
    }
}

impl std::error::Error for CapacityError {}

impl Arena {
    /// The bytes a node takes, with AMAF statistics and implicit values where asked.
    pub(crate) fn bytes_per_node(amaf: bool, values: bool) -> u64 {
        let per_node = NODE_BYTES
            + if amaf { std::mem::size_of::<AtomicU64>() } else { 0 }
            + if values { std::mem::size_of::<AtomicU32>() } else { 0 };
        per_node as u64
    }

    /// An arena of `capacity` nodes holding only a fresh root.
    ///
    /// # Errors
    /// [`CapacityError`] when `capacity` is below 2 or does not fit a `u32` index.
    pub(crate) fn new(capacity: u64) -> Result<Arena, CapacityError> {
        if !(2..=u32::MAX as u64).contains(&capacity) {
            return Err(CapacityError { requested: capacity });
        }
        Ok(Arena {
            nodes: zeroed(capacity as usize),
            cursor: CachePadded::new(AtomicU32::new(1)),
            amaf: None,
            values: None,
        })
    }

    /// Adds the AMAF statistics array (lazily zeroed, like the nodes) if it is missing.
    pub(crate) fn enable_amaf(&mut self) {
        if self.amaf.is_none() {
            self.amaf = Some(zeroed(self.nodes.len()));
        }
    }

    /// Whether the arena keeps AMAF statistics.
    pub(crate) fn has_amaf(&self) -> bool {
        self.amaf.is_some()
    }

    /// Adds the implicit minimax values array if it is missing.
    pub(crate) fn enable_values(&mut self) {
        if self.values.is_none() {
            self.values = Some(zeroed(self.nodes.len()));
        }
    }

    /// Whether the arena keeps implicit minimax values.
    pub(crate) fn has_values(&self) -> bool {
        self.values.is_some()
    }

    /// The implicit minimax value of `id` (0 without values).
    #[inline]
    pub(crate) fn value(&self, id: NodeId) -> f32 {
        // ORDERING: Relaxed: a heuristic value, rewritten whole by every backup through
        // the node; a stale read only steers one selection (docs/CONCURRENCY.md).
        self.values.as_ref().map_or(0.0, |v| f32::from_bits(v[id.index()].load(Ordering::Relaxed)))
    }

    /// Sets the implicit minimax value of `id` (nothing without values).
    #[inline]
    pub(crate) fn set_value(&self, id: NodeId, value: f32) {
        if let Some(values) = &self.values {
            // ORDERING: Relaxed, as `value`; racing backups store values computed from
            // the same children, and the last one wins.
            values[id.index()].store(value.to_bits(), Ordering::Relaxed);
        }
    }

    /// [`Arena::value`] through `&mut` (a plain load).
    #[inline]
    pub(crate) fn value_plain(&mut self, id: NodeId) -> f32 {
        self.values.as_mut().map_or(0.0, |v| f32::from_bits(v[id.index()].with_exclusive(|w| *w)))
    }

    /// [`Arena::set_value`] through `&mut` (a plain store).
    #[inline]
    pub(crate) fn set_value_plain(&mut self, id: NodeId, value: f32) {
        if let Some(values) = &mut self.values {
            values[id.index()].with_exclusive(|w| *w = value.to_bits());
        }
    }

    /// Initialises node `id` as a fresh child (and its AMAF statistics, if kept).
    #[inline]
    pub(crate) fn init_child(&self, id: NodeId, mv: u16, prior: u16) {
        self.node(id).init(mv, prior);
        if let Some(amaf) = &self.amaf {
            // ORDERING: Relaxed; published with the node by the parent's `publish`.
            amaf[id.index()].store(0, Ordering::Relaxed);
        }
    }

    /// [`Arena::init_child`] through `&mut` (plain stores).
    #[inline]
    pub(crate) fn init_child_mut(&mut self, id: NodeId, mv: u16, prior: u16) {
        self.node_mut(id).init_plain(mv, prior);
        if let Some(amaf) = &mut self.amaf {
            amaf[id.index()].with_exclusive(|w| *w = 0);
        }
    }

    /// The AMAF statistics of the edge into `id` (zero without RAVE). Relaxed, like every
    /// counter: statistics, not synchronisation.
    #[inline]
    pub(crate) fn amaf(&self, id: NodeId) -> Stats {
        self.amaf.as_ref().map_or(Stats::default(), |a| Stats::decode(a[id.index()].load(Ordering::Relaxed)))
    }

    /// Total capacity in nodes.
    #[inline]
    pub(crate) fn capacity(&self) -> u32 {
        self.nodes.len() as u32
    }

    /// The allocation cursor's word (for contention counting).
    #[inline(always)]
    pub(crate) fn cursor_word(&self) -> &AtomicU32 {
        &self.cursor
    }

    /// Nodes handed out so far, the root included.
    #[inline]
    pub(crate) fn len(&self) -> u32 {
        self.cursor.load(Ordering::Relaxed)
    }

    /// The node `id`.
    #[inline]
    pub(crate) fn node(&self, id: NodeId) -> &Node {
        &self.nodes[id.index()]
    }

    /// Takes a block of `count` consecutive nodes, or `None` when they do not fit.
    ///
    /// A compare-and-swap loop rather than a bare `fetch_add`, so a failed request never
    /// moves the cursor past the capacity and the count of used nodes stays exact.
    #[inline]
    pub(crate) fn alloc(&self, count: u32) -> Option<NodeId> {
        let capacity = self.capacity();
        // ORDERING: Relaxed: the cursor only hands out disjoint index ranges; the nodes'
        // contents are published by the parent's Release store, not by the cursor.
        self.cursor
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |used| {
                used.checked_add(count).filter(|&end| end <= capacity)
            })
            .ok()
            .map(NodeId)
    }

    /// The child block `first..first + count` (one bounds check for the whole block).
    #[inline]
    pub(crate) fn block(&self, first: NodeId, count: u32) -> &[Node] {
        &self.nodes[first.index()..first.index() + count as usize]
    }

    /// The child block through `&mut`.
    #[inline]
    pub(crate) fn block_mut(&mut self, first: NodeId, count: u32) -> &mut [Node] {
        &mut self.nodes[first.index()..first.index() + count as usize]
    }

    /// The child block through `&mut`, with its side arrays (AMAF counters, implicit
    /// minimax values) where the arena keeps them.
    #[inline]
    #[allow(clippy::type_complexity)]
    pub(crate) fn block_and_side_mut(
        &mut self,
        first: NodeId,
        count: u32,
    ) -> (&mut [Node], Option<&mut [AtomicU64]>, Option<&mut [AtomicU32]>) {
        let range = first.index()..first.index() + count as usize;
        (
            &mut self.nodes[range.clone()],
            self.amaf.as_mut().map(|a| &mut a[range.clone()]),
            self.values.as_mut().map(|v| &mut v[range]),
        )
    }

    /// The child block with its side arrays where the arena keeps them.
    #[inline]
    #[allow(clippy::type_complexity)]
    pub(crate) fn block_and_side(
        &self,
        first: NodeId,
        count: u32,
    ) -> (&[Node], Option<&[AtomicU64]>, Option<&[AtomicU32]>) {
        let range = first.index()..first.index() + count as usize;
        (
            &self.nodes[range.clone()],
            self.amaf.as_ref().map(|a| &a[range.clone()]),
            self.values.as_ref().map(|v| &v[range]),
        )
    }

    /// Exclusive access to node `id`.
    #[inline]
    pub(crate) fn node_mut(&mut self, id: NodeId) -> &mut Node {
        &mut self.nodes[id.index()]
    }

    /// Takes a block through `&mut` (no atomic instruction).
    #[inline]
    pub(crate) fn alloc_mut(&mut self, count: u32) -> Option<NodeId> {
        let capacity = self.nodes.len() as u32;
        self.cursor.with_exclusive(|used| {
            let end = used.checked_add(count).filter(|&end| end <= capacity)?;
            let first = NodeId(*used);
            *used = end;
            Some(first)
        })
    }

    /// Copies the subtree under `from` into `dest` (emptied first), with `from` as the new
    /// root, breadth first so that every child block stays contiguous. Returns the nodes
    /// copied, or `None` if `dest` is smaller than this arena (then it may hold part of
    /// the subtree and must be reset before use). For tree reuse between moves; the tree
    /// must be quiescent.
    pub(crate) fn copy_subtree(&mut self, from: NodeId, dest: &mut Arena) -> Option<u32> {
        self.empty_like(dest)?;
        self.copy_below(from, dest, NodeId::ROOT)?;
        Some(dest.len())
    }

    /// Empties `dest` and gives it this arena's side arrays; `None` if it is smaller.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn empty_like(&self, dest: &mut Arena) -> Option<()> {
        if dest.capacity() < self.capacity() {
            return None;
        }
        dest.reset();
        if self.has_amaf() {
            dest.enable_amaf();
        }
        if self.has_values() {
            dest.enable_values();
        }
        Some(())
    }

    /// Appends the subtree under `from` to `dest` (made by [`Arena::empty_like`]), its
    /// root in a node of its own with its side arrays; that node, or `None` if `dest` ran
    /// out of room. A
    /// distributed tree keeps several subtrees in one arena.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn append_subtree(&mut self, from: NodeId, dest: &mut Arena) -> Option<NodeId> {
        let target = dest.alloc_mut(1)?;
        self.copy_below(from, dest, target)?;
        self.copy_side(from, dest, target);
        Some(target)
    }

    /// Copies `from`'s record (not its side arrays: a new root starts them afresh) onto
    /// `target` of `dest`, and its subtree into new blocks of `dest`.
    fn copy_below(&mut self, from: NodeId, dest: &mut Arena, target: NodeId) -> Option<()> {
        dest.node_mut(target).copy_from_plain(self.node_mut(from));
        let mut queue = std::collections::VecDeque::from([(from, target)]);
        while let Some((source, target)) = queue.pop_front() {
            let Expansion::Expanded { first, count } = self.node_mut(source).expansion_plain() else { continue };
            if count == 0 {
                continue;
            }
            let new_first = dest.alloc_mut(count)?;
            dest.node_mut(target).set_expanded_plain(new_first, count);
            for i in 0..count {
                let (s, t) = (NodeId(first.0 + i), NodeId(new_first.0 + i));
                self.copy_node(s, dest, t);
                queue.push_back((s, t));
            }
        }
        Some(())
    }

    /// Copies node `s`'s record, AMAF statistics and value onto `t` of `dest`.
    fn copy_node(&mut self, s: NodeId, dest: &mut Arena, t: NodeId) {
        dest.node_mut(t).copy_from_plain(self.node_mut(s));
        self.copy_side(s, dest, t);
    }

    /// Copies node `s`'s AMAF statistics and value onto `t` of `dest`.
    fn copy_side(&mut self, s: NodeId, dest: &mut Arena, t: NodeId) {
        if let (Some(from), Some(to)) = (&mut self.amaf, &mut dest.amaf) {
            let value = from[s.index()].with_exclusive(|w| *w);
            to[t.index()].with_exclusive(|w| *w = value);
        }
        let value = self.value_plain(s);
        dest.set_value_plain(t, value);
    }

    /// Forgets every node but a fresh root, keeping the allocation.
    pub(crate) fn reset(&mut self) {
        let used = self.len() as usize;
        for node in &mut self.nodes[..used] {
            *node = Node::default();
        }
        self.cursor = CachePadded::new(AtomicU32::new(1));
    }
}

/// The arena's arrays: zeroed system memory, mapped as it is touched
/// ([`super::zeroed`]); plain boxes under loom, whose atomics are not plain integers.
#[cfg(not(loom))]
type Array<T> = super::zeroed::ZeroedSlice<T>;
#[cfg(loom)]
type Array<T> = Box<[T]>;

/// `capacity` zeroed values (the default value of each: a fresh node, a zero counter).
#[cfg(not(loom))]
fn zeroed<T: super::zeroed::Zeroable>(capacity: usize) -> Array<T> {
    Array::new(capacity)
}

#[cfg(loom)]
fn zeroed<T: Default>(capacity: usize) -> Array<T> {
    (0..capacity).map(|_| T::default()).collect()
}

#[cfg(all(test, not(loom)))]
mod tests {
    use super::*;

    #[test]
    fn alloc_is_exact_and_never_overflows() {
        let mut arena = Arena::new(10).unwrap();
        assert_eq!(arena.alloc(4), Some(NodeId(1)));
        assert_eq!(arena.alloc(6), None, "1 + 4 + 6 > 10");
        assert_eq!(arena.len(), 5);
        assert_eq!(arena.alloc(5), Some(NodeId(5)));
        assert_eq!(arena.alloc(1), None);
        assert_eq!(arena.len(), 10);
        arena.reset();
        assert_eq!(arena.alloc_mut(9), Some(NodeId(1)));
        assert_eq!(arena.alloc_mut(1), None);
    }

    /// Subtrees appended to a non-empty arena keep their shape, moves, statistics and
    /// values, each root in a node of its own (the last bug here: the appended root's
    /// children pointed into the old arena).
    #[test]
    fn appended_subtrees_keep_their_shape() {
        let mut from = Arena::new(16).unwrap();
        from.enable_values();
        // The root's children 1 and 2; node 1's children 3 and 4.
        for (parent, moves) in [(NodeId::ROOT, [10u16, 20]), (NodeId(1), [30, 40])] {
            let first = from.alloc_mut(2).unwrap();
            for (i, mv) in moves.into_iter().enumerate() {
                from.init_child_mut(NodeId(first.0 + i as u32), mv, 0);
            }
            from.node_mut(parent).set_expanded_plain(first, 2);
        }
        for (node, visits) in [(1u32, 3u32), (2, 1), (3, 2), (4, 1)] {
            (0..visits).for_each(|_| from.node(NodeId(node)).record(2, 0));
        }
        from.set_value_plain(NodeId(1), 0.25);
        let mut dest = Arena::new(16).unwrap();
        from.empty_like(&mut dest).unwrap();
        assert!(dest.has_values());
        let a = from.append_subtree(NodeId(1), &mut dest).unwrap();
        let b = from.append_subtree(NodeId(2), &mut dest).unwrap();
        assert_ne!(a, b);
        assert_eq!(dest.len(), 1 + 3 + 1, "the root, node 1 and its 2 children, node 2");
        assert_eq!(dest.node(a).stats_relaxed().visits, 3);
        assert_eq!(dest.value_plain(a), 0.25);
        assert_eq!(dest.node(b).stats_relaxed().visits, 1);
        let Expansion::Expanded { first, count } = dest.node_mut(a).expansion_plain() else { panic!("a has children") };
        assert_eq!(count, 2);
        assert!(first.0 + count <= dest.len(), "the children lie in the new arena");
        let children: Vec<(u16, u32)> = (0..count)
            .map(|i| NodeId(first.0 + i))
            .map(|c| (dest.node(c).mv(), dest.node(c).stats_relaxed().visits))
            .collect();
        assert_eq!(children, [(30, 2), (40, 1)]);
    }

    #[test]
    fn bad_capacity_is_rejected() {
        assert!(Arena::new(0).is_err());
        assert!(Arena::new(1).is_err());
        assert!(Arena::new(1 << 33).is_err());
    }
}
