//! Finding the new root in a kept tree (tree reuse between moves): the shallowest node
//! whose position is the one reached, searched by replaying moves, within a bounded
//! number of positions.

use crate::games::{Game, Move};
use crate::tree::{Expansion, NodeId, TreeOps};

/// The shallowest node, at most `max_plies` below the root, whose position (replayed from
/// `root`) has hash `target`; the first in block order at that depth. Iterative
/// deepening, depth first: one position per ply in memory. (Breadth first kept a position
/// per node of a level: two plies below a 9x9 Go root are 6,400 positions, 35 MB,
/// allocated and copied at every reuse, about 0.1 s.) Gives up (`None`: the next search
/// starts afresh) after replaying [`MAX_REPLAYED`] positions, so that a position missing
/// from a large tree costs a bounded time.
pub(crate) fn find_position<G: Game, T: TreeOps>(
    tree: &mut T,
    root: &G,
    target: u64,
    max_plies: u32,
) -> Option<NodeId> {
    let mut budget = MAX_REPLAYED;
    (0..=max_plies).find_map(|depth| find_at_depth(tree, root, NodeId::ROOT, target, depth, &mut budget))
}

/// The positions [`find_position`] replays at most: two full plies of 9x9 Go (6,561) and
/// more, a few milliseconds.
pub(crate) const MAX_REPLAYED: u32 = 20_000;

/// [`find_position`] at exactly `depth` plies below `node` (whose position is `state`),
/// replaying at most `budget` more positions.
fn find_at_depth<G: Game, T: TreeOps>(
    tree: &mut T,
    state: &G,
    node: NodeId,
    target: u64,
    depth: u32,
    budget: &mut u32,
) -> Option<NodeId> {
    if depth == 0 {
        return (state.hash() == target).then_some(node);
    }
    let Expansion::Expanded { first, count } = tree.expansion(node) else { return None };
    let mut child_state = state.clone();
    (0..count).map(|i| NodeId(first.0 + i)).find_map(|child| {
        if *budget == 0 {
            return None;
        }
        *budget -= 1;
        child_state.clone_from(state);
        child_state.play_unchecked(Move(tree.mv(child)));
        find_at_depth(tree, &child_state, child, target, depth - 1, budget)
    })
}
