//! UCT selection (Kocsis & Szepesvári 2006, "Bandit based Monte-Carlo Planning"), with
//! virtual loss for shared trees (Chaslot, Winands & van den Herik 2008).

use rand_core::RngCore;

use crate::games::random_below;
use crate::tree::{NodeId, TreeOps};

/// UCB1: `q + C * sqrt(ln N / n)`, with `q` the child's mean result in [0, 1], `N` the
/// parent's visits and `n` the child's (Kocsis & Szepesvári 2006).
#[inline]
pub fn ucb1(q: f32, ln_parent: f32, visits: f32, c: f32) -> f32 {
    q + c * (ln_parent / visits).sqrt()
}

/// Picks the child of `parent` (children `first..first + count`) with the highest UCB1
/// value. Unvisited children come first. Virtual loss counts as visits that were lost, so
/// concurrent workers spread over siblings; `own_virtual_loss` (what this worker itself
/// put on `parent`) is left out of the parent's count, so a lone worker selects exactly as
/// the sequential search does. Ties go to the first child in an order that
/// starts at a random offset drawn from `rng`, which keeps a seeded search reproducible.
#[inline]
pub fn select_child<T: TreeOps, R: RngCore>(
    tree: &mut T,
    parent: NodeId,
    first: NodeId,
    count: u32,
    c: f32,
    own_virtual_loss: u32,
    rng: &mut R,
) -> NodeId {
    let parent_visits = tree.stats(parent).visits + tree.virtual_loss(parent) - own_virtual_loss;
    let ln_parent = (parent_visits.max(1) as f32).ln();
    let start = random_below(rng, count);
    let mut best = first;
    let mut best_value = f32::NEG_INFINITY;
    for k in 0..count {
        let offset = if start + k >= count { start + k - count } else { start + k };
        let child = NodeId(first.0 + offset);
        let stats = tree.stats(child);
        let visits = stats.visits + tree.virtual_loss(child);
        if visits == 0 {
            return child;
        }
        let n = visits as f32;
        let value = ucb1(stats.half_points as f32 * 0.5 / n, ln_parent, n, c);
        if value > best_value {
            best_value = value;
            best = child;
        }
    }
    best
}
