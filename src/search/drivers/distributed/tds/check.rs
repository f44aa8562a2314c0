//! The quiescent invariants of a TDS tree, checked over all its ranks: each rank walks
//! its arena from the nodes it is home to and checks what it holds alone ([`dump`]); the
//! dumps, gathered in one place, are checked against each other ([`verify`]).
//!
//! 1. On each rank, an expanded node's visits are its children's plus the playouts that
//!    stopped at it before it had children (at most the expansion threshold), and no
//!    node scores more than it was visited (the one-process rules 3 and 6).
//! 2. A child record whose home is another rank is never expanded where it is (its
//!    children are its home's), and its home has a fragment for it with exactly its
//!    visits and half points: the statistics the parent selects on are the node's own,
//!    and no virtual loss is left on either side. With a copy of the root's block on
//!    every rank (`dist-top-everywhere=on`), each copy has the node's record (its own
//!    jobs' playouts and those the other ranks told it of) once it has grown it.
//! 3. Every fragment is some parent's child on its parent's home (exactly one), and lies
//!    on the rank its hash names.
//! 4. The root's visits (on each rank, with copies) are the search's playouts (and those
//!    of a kept tree before it), and the search's playouts are the leaves valued on all
//!    the ranks together: every playout counted once. A copy's node has at least its
//!    children's visits (it may have had visits told before it grew them).

use std::collections::HashMap;

use rustc_hash::FxHashMap;

use crate::tree::{Arena, Expansion, NodeId, SharedTree, TreeOps};
use crate::InvariantViolation;

use super::{child_hash, home, Root};

/// What one rank holds, for the check across ranks.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub(crate) struct RankDump {
    pub rank: u32,
    /// Each fragment's (and on its home the root's) path hash, visits and half points.
    pub fragments: Vec<(u64, u32, u32)>,
    /// The same of each child record whose home is another rank (visited ones).
    pub edges: Vec<(u64, u32, u32)>,
    /// Leaves valued on this rank.
    pub valued: u64,
    /// Nodes reachable from the fragments.
    pub nodes: u64,
    /// The first local rule broken, if one was.
    pub violation: Option<String>,
}

/// What [`dump`] walks from on rank `rank`: its `fragments`, and on the root's home the
/// root (at the arena's front).
pub(crate) fn fragment_list(fragments: &FxHashMap<u64, NodeId>, root: Root, rank: u32) -> Vec<(u64, NodeId)> {
    let mut list: Vec<(u64, NodeId)> = fragments.iter().map(|(&hash, &node)| (hash, node)).collect();
    if root.kept_on(rank) {
        list.push((root.hash, NodeId::ROOT));
    }
    list
}

/// Checks rank `rank`'s arena from its `fragments` (path hash and node; the root, at
/// the arena's front, among them on its home) and lists what the other ranks must agree
/// with.
pub(crate) fn dump(
    arena: &Arena,
    fragments: &[(u64, NodeId)],
    (rank, ranks, block): (u32, u32, u32),
    root: Root,
    valued: u64,
    expand_threshold: u32,
) -> RankDump {
    let tree = &mut SharedTree(arena);
    let mut out = RankDump { rank, valued, ..RankDump::default() };
    // Nodes with their hash and their depth below the nearest block's start (fragments
    // start blocks).
    let mut stack: Vec<(NodeId, u64, u32)> = Vec::new();
    for &(hash, node) in fragments {
        let stats = tree.stats(node);
        out.fragments.push((hash, stats.visits, stats.half_points));
        // Fragments start blocks; the root may lie inside one. A copy of the root's block
        // (`dist-top-everywhere=on`) ends at its block's end: every node there is a fragment's.
        let offset = if node == NodeId::ROOT { root.depth % block.max(1) } else { 0 };
        let copy = node == NodeId::ROOT && root.everywhere;
        stack.push((node, hash, offset));
        while let Some((node, hash, depth)) = stack.pop() {
            out.nodes += 1;
            let stats = tree.stats(node);
            if stats.half_points > 2 * stats.visits && out.violation.is_none() {
                out.violation = Some(format!(
                    "rank {rank}: node {} has {} half points in {} visits",
                    node.0, stats.half_points, stats.visits
                ));
            }
            let Expansion::Expanded { first, count } = tree.expansion(node) else {
                if tree.expansion(node) == Expansion::Expanding && out.violation.is_none() {
                    out.violation = Some(format!("rank {rank}: node {} left expanding", node.0));
                }
                continue;
            };
            let mut children = 0u64;
            for child in (first.0..first.0 + count).map(NodeId) {
                let (child_stats, child_hash) = (tree.stats(child), child_hash(hash, tree.mv(child)));
                children += u64::from(child_stats.visits);
                let depth = (depth + 1) % block.max(1);
                if depth != 0 || (home(child_hash, ranks) == rank && !copy) {
                    stack.push((child, child_hash, depth));
                } else {
                    if tree.expansion(child) != Expansion::Unexpanded && out.violation.is_none() {
                        out.violation =
                            Some(format!("rank {rank}: node {} is expanded here but homed on another rank", child.0));
                    }
                    out.nodes += 1;
                    if child_stats.visits > 0 {
                        out.edges.push((child_hash, child_stats.visits, child_stats.half_points));
                    }
                }
            }
            // A copy's node has every rank's visits, its children those told after it grew
            // them here (and those told before): at most its own.
            let leaf = u64::from(stats.visits).checked_sub(children);
            let most = if copy { u64::MAX } else { u64::from(expand_threshold) };
            if count > 0 && leaf.is_none_or(|leaf| leaf > most) && out.violation.is_none() {
                out.violation = Some(format!(
                    "rank {rank}: node {} has {} visits and its children {children} (threshold {expand_threshold})",
                    node.0, stats.visits
                ));
            }
        }
    }
    out
}

/// Checks the dumps of all the ranks against each other (rules 2 to 4) for a search of
/// `playouts` from `root`, which had `prior_visits` before it; returns the nodes of the
/// whole tree.
///
/// # Errors
/// The first rule broken.
pub(crate) fn verify(
    dumps: &[RankDump],
    playouts: u64,
    root: Root,
    prior_visits: u64,
) -> Result<u64, InvariantViolation> {
    let fail = |rule, message: String| Err(InvariantViolation { rule, node: None, message });
    let ranks = dumps.len() as u32;
    // Per path hash: a fragment's visits and half points, and those of its records.
    let mut fragments: HashMap<u64, (u64, u64, u32)> = HashMap::new();
    let mut records: HashMap<u64, (u64, u64, u32)> = HashMap::new();
    for dump in dumps {
        if let Some(message) = &dump.violation {
            return fail(3, message.clone());
        }
        for &(hash, visits, half_points) in &dump.fragments {
            let is_root = hash == root.hash;
            if !(is_root && root.kept_on(dump.rank)) && home(hash, ranks) != dump.rank {
                return fail(3, format!("rank {}: a fragment homed on rank {}", dump.rank, home(hash, ranks)));
            }
            // The root's copies (`dist-top-everywhere=on`) each hold every playout.
            let entry = fragments.entry(hash).or_default();
            if entry.2 > 0 && !(is_root && root.everywhere) {
                return fail(3, format!("rank {}: a second fragment hashed {hash:#x}", dump.rank));
            }
            if entry.2 > 0 && (entry.0, entry.1) != (u64::from(visits), u64::from(half_points)) {
                return fail(4, format!(
                    "rank {}: its copy of the root has {visits} visits and {half_points} half points, another rank's {} and {}",
                    dump.rank, entry.0, entry.1
                ));
            }
            *entry = (u64::from(visits), u64::from(half_points), entry.2 + 1);
        }
        for &(hash, visits, half_points) in &dump.edges {
            let entry = records.entry(hash).or_default();
            *entry = (entry.0 + u64::from(visits), entry.1 + u64::from(half_points), entry.2 + 1);
        }
    }
    for (&hash, &(visits, half_points, parents)) in &records {
        match fragments.get(&hash) {
            // With a copy of the root's block on every rank, a child at its end has a record
            // on each rank that grew it, each with every rank's playouts.
            Some(&(v, h, _)) if (v * u64::from(parents), h * u64::from(parents)) == (visits, half_points) && (parents == 1 || root.everywhere) => {}
            Some(&(v, h, _)) => {
                return fail(2, format!(
                    "{parents} records of the child hashed {hash:#x} hold {visits} visits and {half_points} half points; its home's fragment has {v} and {h}"
                ))
            }
            None => return fail(2, format!("a child with {visits} visits has no fragment on its home (hashed {hash:#x})")),
        }
    }
    if let Some(&hash) = fragments.keys().find(|&&hash| hash != root.hash && !records.contains_key(&hash)) {
        return fail(3, format!("the fragment hashed {hash:#x} on rank {} is no node's child", home(hash, ranks)));
    }
    let root_visits = fragments.get(&root.hash).map_or(0, |&(visits, _, _)| visits);
    let valued: u64 = dumps.iter().map(|d| d.valued).sum();
    if root_visits != prior_visits + playouts || valued != playouts {
        return fail(
            4,
            format!(
                "the root has {root_visits} visits ({prior_visits} before) and the ranks valued {valued} leaves, for {playouts} playouts"
            ),
        );
    }
    Ok(dumps.iter().map(|d| d.nodes).sum())
}

#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
impl RankDump {
    /// As words, for a message ([`RankDump::from_words`] reads them back).
    pub(crate) fn to_words(&self) -> Vec<u64> {
        let message = self.violation.as_deref().unwrap_or("").as_bytes();
        let mut words = vec![
            u64::from(self.rank),
            self.valued,
            self.nodes,
            self.fragments.len() as u64,
            self.edges.len() as u64,
            message.len() as u64,
        ];
        for &(hash, visits, half_points) in self.fragments.iter().chain(&self.edges) {
            words.extend_from_slice(&[hash, u64::from(visits) | u64::from(half_points) << 32]);
        }
        words.extend(message.chunks(8).map(|chunk| chunk.iter().rev().fold(0u64, |w, &b| w << 8 | u64::from(b))));
        words
    }

    /// The dump [`RankDump::to_words`] wrote.
    pub(crate) fn from_words(words: &[u64]) -> RankDump {
        let (fragments, edges, length) = (words[3] as usize, words[4] as usize, words[5] as usize);
        let entry = |i: usize| {
            let (hash, counts) = (words[6 + 2 * i], words[7 + 2 * i]);
            (hash, counts as u32, (counts >> 32) as u32)
        };
        let bytes: Vec<u8> = words[6 + 2 * (fragments + edges)..]
            .iter()
            .flat_map(|&w| (0..8).map(move |i| (w >> (8 * i)) as u8))
            .take(length)
            .collect();
        RankDump {
            rank: words[0] as u32,
            valued: words[1],
            nodes: words[2],
            fragments: (0..fragments).map(entry).collect(),
            edges: (fragments..fragments + edges).map(entry).collect(),
            violation: (length > 0).then(|| String::from_utf8_lossy(&bytes).into_owned()),
        }
    }
}
