//! Tree reuse across the ranks ([`reuse_ranks`], a collective call made by
//! [`crate::Search::reuse`] on every rank): the nodes under the new root stay where they
//! are, and the rest goes.
//!
//! A node's hash and home are of its path from the first position of the kept tree
//! ([`Kept::path`]), so a kept node keeps both. The new root's home finds it by the moves
//! played (every rank finds the same moves by replaying the legal ones). Then the ranks
//! mark what the new root reaches, a round per home block: each scans the subtrees it
//! has just marked and sends every visited child whose home is another rank to that
//! home, which marks its fragment; the rounds end when none marks anything. Last, each
//! rank copies what it marked into its spare arena (the root at the front on its home)
//! and swaps the two.

use mpi::collective::SystemOperation;
use mpi::datatype::{Partition, PartitionMut};
use mpi::topology::SimpleCommunicator;
use mpi::traits::{Communicator, CommunicatorCollectives, Root as _};
use rustc_hash::{FxHashMap, FxHashSet};

use crate::games::{Game, Move};
use crate::search::reuse::MAX_REPLAYED;
use crate::tree::{Arena, Expansion, NodeId, SharedTree, TreeOps};

use super::{child_hash, home, Kept, Root};

/// Keeps, on every rank, the part of the last search's tree under `new_root`, reached
/// from `old_root` (the position last searched) by at most `max_plies` moves, for the
/// next search ([`Kept::reused`]); `arena` becomes what it keeps, through `scratch`.
/// Returns the nodes kept on all the ranks (0: the next search starts afresh).
pub(crate) fn reuse_ranks<G: Game>(
    arena: &mut Arena,
    scratch: &mut Arena,
    kept: &mut Kept,
    (old_root, new_root): (&G, &G),
    max_plies: u32,
) -> u64 {
    kept.reused = false;
    let world = SimpleCommunicator::world();
    let (rank, ranks) = (world.rank() as u32, world.size() as u32);
    // No search yet (every rank has the same record of its searches), or one with copies
    // of the top on every rank: each copy holds what every rank told it, so the new
    // root's visits would not be the kept tree's on each rank (not kept).
    if kept.block == 0 || kept.everywhere {
        return 0;
    }
    let Some(moves) = moves_between(old_root, new_root.hash(), max_plies) else { return 0 };
    let block = kept.block;
    let old = Root::of(&kept.path, block, ranks);
    let mut path = kept.path.clone();
    path.extend_from_slice(&moves);
    let new = Root::of(&path, block, ranks);
    // The new root's node, on its home: from the last fragment on the way down (or the
    // old root), down its block.
    let (mut owner, mut hash, mut node) = (old.home, old.hash, (rank == old.home).then_some(NodeId::ROOT));
    for (below, &mv) in (1..).zip(&moves) {
        hash = child_hash(hash, mv);
        if old.starts_block(below, block) && home(hash, ranks) != owner {
            owner = home(hash, ranks);
            node = if rank == owner { kept.fragments.get(&hash).copied() } else { None };
        } else {
            node = node.and_then(|n| child_by_move(arena, n, mv));
        }
    }
    debug_assert!(owner == new.home && hash == new.hash);
    let tree = &mut SharedTree(arena);
    let mut found = [u64::from(node.is_some()), node.map_or(0, |n| u64::from(tree.stats(n).visits))];
    world.process_at_rank(new.home as i32).broadcast_into(&mut found[..]);
    if found[0] == 0 {
        return 0;
    }
    let live = mark(arena, kept, &world, (rank, ranks, block), node.map(|n| (n, new)));
    // The marked subtrees into the spare arena, the root (on its home) at the front.
    arena.empty_like(scratch).expect("the spare arena is as large as the arena");
    let mut fragments = FxHashMap::with_capacity_and_hasher(live.len(), Default::default());
    if let Some(root) = node {
        arena.copy_subtree(root, scratch).expect("the spare arena holds the root's subtree");
    }
    for (hash, old_node) in live {
        let new_node = arena.append_subtree(old_node, scratch).expect("the spare arena holds what the arena held");
        fragments.insert(hash, new_node);
    }
    std::mem::swap(arena, scratch);
    (kept.fragments, kept.path, kept.prior_root_visits, kept.reused) = (fragments, path, found[1], true);
    let mut nodes = [0u64];
    world.all_reduce_into(&[u64::from(arena.len() - 1)][..], &mut nodes[..], SystemOperation::sum());
    nodes[0]
}

/// The fragments of this rank that the new `root` reaches (`root`: its node and place, on
/// its home), found in rounds with the other ranks.
fn mark(
    arena: &Arena,
    kept: &Kept,
    world: &SimpleCommunicator,
    (rank, ranks, block): (u32, u32, u32),
    root: Option<(NodeId, Root)>,
) -> Vec<(u64, NodeId)> {
    let tree = &mut SharedTree(arena);
    let mut live: Vec<(u64, NodeId)> = Vec::new();
    let mut fresh: Vec<(NodeId, u64, u32)> = root.map(|(n, r)| (n, r.hash, r.depth % block)).into_iter().collect();
    let mut marked: FxHashSet<u64> = Default::default();
    loop {
        // Scan the fresh subtrees: the visited children homed elsewhere go to their homes.
        let mut out: Vec<Vec<u64>> = vec![Vec::new(); ranks as usize];
        while let Some((node, hash, depth)) = fresh.pop() {
            let Expansion::Expanded { first, count } = tree.expansion(node) else { continue };
            for child in (first.0..first.0 + count).map(NodeId) {
                let (hash, depth) = (child_hash(hash, tree.mv(child)), (depth + 1) % block);
                let to = home(hash, ranks);
                if depth != 0 || to == rank {
                    fresh.push((child, hash, depth));
                } else if tree.stats(child).visits > 0 {
                    out[to as usize].push(hash);
                }
            }
        }
        let mut marked_now = 0u64;
        for hash in exchange(world, &out) {
            if let Some(&node) = kept.fragments.get(&hash) {
                if marked.insert(hash) {
                    live.push((hash, node));
                    fresh.push((node, hash, 0));
                    marked_now += 1;
                }
            }
        }
        let mut total = 0u64;
        world.all_reduce_into(&marked_now, &mut total, SystemOperation::sum());
        if total == 0 {
            return live;
        }
    }
}

/// Sends each rank its words of `out` and returns the words the others sent this one.
fn exchange(world: &SimpleCommunicator, out: &[Vec<u64>]) -> Vec<u64> {
    let counts: Vec<i32> = out.iter().map(|words| words.len() as i32).collect();
    let mut their_counts = vec![0i32; out.len()];
    world.all_to_all_into(&counts[..], &mut their_counts[..]);
    let offsets = |counts: &[i32]| -> Vec<i32> {
        counts.iter().scan(0, |at, &count| Some(std::mem::replace(at, *at + count))).collect()
    };
    let words: Vec<u64> = out.concat();
    let mut received = vec![0u64; their_counts.iter().map(|&c| c as usize).sum()];
    let (send_at, receive_at) = (offsets(&counts), offsets(&their_counts));
    let sent = Partition::new(&words[..], &counts[..], &send_at[..]);
    let mut into = PartitionMut::new(&mut received[..], &their_counts[..], &receive_at[..]);
    world.all_to_all_varcount_into(&sent, &mut into);
    received
}

/// The child of `node` reached by `mv`, if `node` has children.
fn child_by_move(arena: &Arena, node: NodeId, mv: u16) -> Option<NodeId> {
    let tree = &mut SharedTree(arena);
    let Expansion::Expanded { first, count } = tree.expansion(node) else { return None };
    (first.0..first.0 + count).map(NodeId).find(|&child| tree.mv(child) == mv)
}

/// The shortest sequence of at most `max_plies` legal moves from `from` to a position
/// hashed `target` (the first in move order), replaying at most [`MAX_REPLAYED`]
/// positions (as the one-process reuse does): the same on every rank.
fn moves_between<G: Game>(from: &G, target: u64, max_plies: u32) -> Option<Vec<u16>> {
    let mut budget = MAX_REPLAYED;
    let mut moves = Vec::new();
    (0..=max_plies).find_map(|depth| search_moves(from, target, depth, &mut moves, &mut budget).then(|| moves.clone()))
}

/// Whether `depth` more moves from `state` reach `target` (then `moves` holds them).
fn search_moves<G: Game>(state: &G, target: u64, depth: u32, moves: &mut Vec<u16>, budget: &mut u32) -> bool {
    if depth == 0 {
        return state.hash() == target;
    }
    for mv in state.legal_moves() {
        if *budget == 0 {
            return false;
        }
        *budget -= 1;
        let mut next = state.clone();
        next.play_unchecked(Move(mv.0));
        moves.push(mv.0);
        if search_moves(&next, target, depth - 1, moves, budget) {
            return true;
        }
        moves.pop();
    }
    false
}
