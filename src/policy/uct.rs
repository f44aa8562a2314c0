//! UCT selection (Kocsis & Szepesvári 2006, "Bandit based Monte-Carlo Planning"), with
//! virtual loss for shared trees (Chaslot, Winands & van den Herik 2008).

use std::sync::LazyLock;

use rand_core::RngCore;

use crate::games::random_below;
use crate::tree::{NodeId, TreeOps};

/// UCB1: `q + C * sqrt(ln N / n)`, with `q` the child's mean result in [0, 1], `N` the
/// parent's visits and `n` the child's (Kocsis & Szepesvári 2006).
#[inline]
pub fn ucb1(q: f32, ln_parent: f32, visits: f32, c: f32) -> f32 {
    q + c * (ln_parent / visits).sqrt()
}

/// Visit counts below this come from tables instead of `ln`, `sqrt` and a division.
const TABLE_LEN: usize = 1024;

/// Precomputed UCB1 terms for small visit counts. The selection loop spent about 40 % of
/// a sequential Connect Four iteration in `logf`, `sqrtss` and `divss`; most nodes have
/// small counts, so three L1-resident tables (12 KiB) replace them there.
struct UcbTables {
    /// `0.5 / n`: half points to a mean.
    half_inv: [f32; TABLE_LEN],
    /// `1 / sqrt(n)`.
    inv_sqrt: [f32; TABLE_LEN],
    /// `sqrt(ln n)` (0 for n = 0).
    sqrt_ln: [f32; TABLE_LEN],
}

static TABLES: LazyLock<Box<UcbTables>> = LazyLock::new(|| {
    let mut t =
        Box::new(UcbTables { half_inv: [0.0; TABLE_LEN], inv_sqrt: [0.0; TABLE_LEN], sqrt_ln: [0.0; TABLE_LEN] });
    for n in 1..TABLE_LEN {
        let x = n as f64;
        t.half_inv[n] = (0.5 / x) as f32;
        t.inv_sqrt[n] = (1.0 / x.sqrt()) as f32;
        t.sqrt_ln[n] = x.ln().sqrt() as f32;
    }
    t
});

impl UcbTables {
    #[inline]
    fn half_inv(&self, n: u32) -> f32 {
        match self.half_inv.get(n as usize) {
            Some(&v) => v,
            None => 0.5 / n as f32,
        }
    }
    #[inline]
    fn inv_sqrt(&self, n: u32) -> f32 {
        match self.inv_sqrt.get(n as usize) {
            Some(&v) => v,
            None => 1.0 / (n as f32).sqrt(),
        }
    }
    #[inline]
    fn sqrt_ln(&self, n: u32) -> f32 {
        match self.sqrt_ln.get(n as usize) {
            Some(&v) => v,
            None => (n as f32).ln().sqrt(),
        }
    }
}

/// Picks the child of `parent` (children `first..first + count`) with the highest UCB1
/// value. Unvisited children come first (a random one of them). Virtual loss counts as
/// visits that were lost, so concurrent workers spread over siblings; `own_virtual_loss`
/// (what this worker itself put on `parent`) is left out of the parent's count, so a lone
/// worker selects exactly as the sequential search does. Exact ties are broken at random
/// with `rng` (reservoir sampling), which keeps a seeded search reproducible.
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
    let tables: &UcbTables = &TABLES;
    // UCB1 as q + (C * sqrt(ln N)) * (1 / sqrt(n)): the first factor once per node.
    let explore = c * tables.sqrt_ln(parent_visits);
    let mut best = 0;
    let mut best_value = f32::NEG_INFINITY;
    let mut ties = 0;
    let mut unvisited = 0;
    tree.scan_children(first, count, |i, stats, virtual_loss| {
        let visits = stats.visits + virtual_loss;
        if visits == 0 {
            unvisited += 1;
            return;
        }
        let value = stats.half_points as f32 * tables.half_inv(visits) + explore * tables.inv_sqrt(visits);
        if value > best_value {
            best_value = value;
            best = i;
            ties = 0;
        } else if value == best_value {
            ties += 1;
            if random_below(rng, ties + 1) == 0 {
                best = i;
            }
        }
    });
    if unvisited > 0 {
        // The k-th unvisited child, k uniform: a second pass over the block, needed only
        // at the frontier.
        let mut k = random_below(rng, unvisited);
        let mut pick = 0;
        tree.scan_children(first, count, |i, stats, virtual_loss| {
            if stats.visits + virtual_loss == 0 {
                if k == 0 {
                    pick = i;
                }
                k = k.wrapping_sub(1);
            }
        });
        return NodeId(first.0 + pick);
    }
    NodeId(first.0 + best)
}
