//! The df-UCT allowance ([`keeps_best`]): how many playouts a job may take below a child
//! before the parent's selection would turn to another child, so that a job sent to the
//! child's home stays there that long and reports them in one message.

use crate::policy::uct::UctParams;
use crate::tree::{NodeId, TreeOps};

/// The most playouts a job takes below one node before it reports them: the allowance's
/// cap, which bounds how long a stopped search takes to end.
pub(crate) const MAX_ALLOWANCE: u32 = 16;

/// The playouts the child `chosen` of `parent` (children `first..first + count`) can take
/// at its current mean before another child's UCB1 value passes its own, at least 1 and
/// at most [`MAX_ALLOWANCE`]: the df-UCT condition under which a job stays below it. The
/// estimate uses UCB1 with the implicit minimax blend (not progressive bias or PUCT's
/// prior), and `own_vl` of the parent's visits are this walk's virtual loss.
pub(crate) fn keeps_best<T: TreeOps>(
    tree: &mut T,
    parent: NodeId,
    (first, count): (NodeId, u32),
    chosen: NodeId,
    uct: UctParams,
    own_vl: u32,
) -> u32 {
    let parent_visits = tree.stats(parent).visits.saturating_sub(own_vl) as f32;
    let mean = |visits: u32, half_points: u32, value: f32| {
        let q = if visits == 0 { 0.5 } else { half_points as f32 / (2.0 * visits as f32) };
        (1.0 - uct.implicit) * q + uct.implicit * value
    };
    let (mut best, mut others) = ((0.0f32, 0.0f32), [(0.0f32, 0.0f32); 8]);
    let mut kept = 0;
    let mut unvisited_other = false;
    tree.scan_children::<false, true>(first, count, false, |i, view| {
        let (visits, q) = (view.stats.visits, mean(view.stats.visits, view.stats.half_points, view.value));
        if NodeId(first.0 + i) == chosen {
            best = (q, visits as f32);
        } else if visits == 0 {
            unvisited_other = true;
        } else {
            // The 8 strongest rivals by mean suffice: the others trail them in UCB1 too
            // unless far less visited, which the cap of the allowance bounds.
            let slot = if kept < others.len() {
                kept += 1;
                kept - 1
            } else {
                let (weakest, _) = others.iter().enumerate().min_by(|a, b| a.1 .0.total_cmp(&b.1 .0)).unwrap();
                if others[weakest].0 >= q {
                    return std::ops::ControlFlow::Continue(());
                }
                weakest
            };
            others[slot] = (q, visits as f32);
        }
        std::ops::ControlFlow::Continue(())
    });
    if unvisited_other || best.1 == 0.0 {
        return 1;
    }
    let ucb = |q: f32, visits: f32, ln_parent: f32| q + uct.c * (ln_parent / visits).sqrt();
    for extra in 1..MAX_ALLOWANCE {
        let ln_parent = (parent_visits + extra as f32).max(1.0).ln();
        let own = ucb(best.0, best.1 + extra as f32, ln_parent);
        if others[..kept].iter().any(|&(q, visits)| ucb(q, visits, ln_parent) > own) {
            return extra;
        }
    }
    MAX_ALLOWANCE
}
