//! Sequential halving at the root (`halving=on`): the hybrid MCTS of Pepels, Cazenave,
//! Winands & Lanctot (2014, "Minimizing Simple and Cumulative Regret in Monte-Carlo Tree
//! Search"), UCB1 below the root and sequential halving (Karnin, Koren & Somekh 2013) at
//! it, so that the root's budget goes to its rivals in proportion instead of as `ln N`.
//!
//! The budget `B` of the search is cut into `R = ceil(log2 K)` rounds of `B / R` playouts
//! (`K` the root's children). In round `r` the `ceil(K / 2^r)` children with the best means
//! survive, and each iteration visits the survivor with the fewest visits, so a round
//! shares its playouts evenly among its survivors. The survivors are recomputed at every
//! iteration from the means of that moment (not frozen at the round's start): a child
//! whose line turns bad drops out as soon as its mean falls below another's, and the
//! lock-free search needs no shared round state. A timed search has no budget to cut:
//! between chunks its workers set `B` to the playouts the root's rate so far will reach by
//! the deadline (`Stopper::pace_halving`), so its rounds are equal shares of the time.
//! At the end the root's best lower bound
//! wins ([`crate::search::FinalMove::Secure`], the default with halving): the last two
//! survivors have about equal visits, so the most visited is not the better one.

use std::ops::ControlFlow;

use arrayvec::ArrayVec;

use crate::tree::{NodeId, Proof, TreeOps};

/// The most root children halving ranks (the stack buffer of one selection); a root with
/// more is searched by UCB1. Go 19x19 has 362 moves.
pub(crate) const MAX_ROOT_CHILDREN: usize = 512;

/// The root child to visit: the least visited of the round's survivors. `spent` is the
/// root's visits in this search (virtual loss included), `budget` its playouts (> 0).
///
/// With `SOLVER`, a child proven won is taken at once and children proven lost are left
/// out (all of them lost: the first).
pub(crate) fn select_root<T: TreeOps, const SOLVER: bool>(
    tree: &mut T,
    first: NodeId,
    count: u32,
    spent: u32,
    budget: u32,
) -> NodeId {
    // (mean, visits, index) of the candidates; unvisited children rank first.
    // Uninitialised until pushed: zeroing 6 KB every iteration would cost more than the scan.
    let mut ranked: ArrayVec<(f32, u32, u32), MAX_ROOT_CHILDREN> = ArrayVec::new();
    let mut won = None;
    tree.scan_children::<SOLVER, false>(first, count, false, |i, child| {
        if SOLVER {
            match child.proof {
                Proof::Win => {
                    won = Some(i);
                    return ControlFlow::Break(());
                }
                Proof::Loss => return ControlFlow::Continue(()),
                Proof::Draw | Proof::Unknown => {}
            }
        }
        let visits = child.stats.visits;
        let mean = if visits == 0 { f32::INFINITY } else { child.stats.half_points as f32 / (2 * visits) as f32 };
        ranked.push((mean, visits, i));
        ControlFlow::Continue(())
    });
    if let Some(i) = won {
        return NodeId(first.0 + i);
    }
    let len = ranked.len();
    if len == 0 {
        return first;
    }
    let rounds = u64::from(u32::BITS - (len as u32 - 1).leading_zeros()).max(1);
    let round = (u64::from(spent) * rounds / u64::from(budget)).min(rounds - 1);
    let survivors = len.div_ceil(1 << round);
    // Best mean first; equal means by block order (random: the expansion shuffled it).
    let better = |a: &(f32, u32, u32), b: &(f32, u32, u32)| b.0.total_cmp(&a.0).then(a.2.cmp(&b.2));
    if survivors < len {
        ranked.select_nth_unstable_by(survivors - 1, better);
    }
    // The least visited; of those, the best ranked.
    let pick = ranked[..survivors].iter().min_by(|a, b| a.1.cmp(&b.1).then(better(a, b))).map_or(0, |c| c.2);
    NodeId(first.0 + pick)
}
