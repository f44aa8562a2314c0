//! The one worker loop every driver runs its workers through: iterations in chunks of
//! [`CHUNK`](crate::search::stop::CHUNK), drawn from a [`PlayoutBudget`], until the job's [`Stopper`] says stop.
//!
//! [`Stopper`]: crate::search::stop::Stopper

use crate::games::SearchGame;
use crate::search::iteration::Worker;
use crate::search::stop::PlayoutBudget;
use crate::tree::{NodeId, TreeOps};

use super::Job;

/// Runs iterations of `job` on `tree` until its [`Stopper`](crate::search::stop::Stopper) says stop, drawing playouts
/// from `budget`.
#[inline]
pub(crate) fn run_worker<G: SearchGame, T: TreeOps, B: PlayoutBudget>(
    tree: &mut T,
    job: &Job<'_, G>,
    worker: &mut Worker,
    budget: B,
) {
    run_worker_with(tree, job, worker, budget, |_, _| {});
}

/// [`run_worker`], calling `between_chunks` with the tree and the iterations just run
/// after each chunk (no walk is in flight then: every backup is written).
pub(crate) fn run_worker_with<G: SearchGame, T: TreeOps, B: PlayoutBudget>(
    tree: &mut T,
    job: &Job<'_, G>,
    worker: &mut Worker,
    mut budget: B,
    mut between_chunks: impl FnMut(&mut T, u64),
) {
    let (root, mut params) = (job.root, job.params);
    if !T::SHARED {
        // A tree of its own (root-parallel trees keep different reused visits): halving
        // counts this search's visits of this root.
        params.uct.halving_start = tree.stats(NodeId::ROOT).visits;
    }
    loop {
        let granted = job.stopper.next_paced_chunk(tree, &mut budget, &mut params.uct, job.params.uct.halving_budget);
        if granted == 0 {
            break;
        }
        if params.solver {
            run_iterations::<G, T, true>(tree, root, params, worker, granted);
        } else {
            run_iterations::<G, T, false>(tree, root, params, worker, granted);
        }
        worker.flush(tree);
        between_chunks(tree, granted);
    }
}

/// Runs `count` iterations, `params.lanes` playouts in flight at a time (the remainder,
/// and every iteration on a tree without virtual loss, one at a time).
#[inline]
fn run_iterations<G: SearchGame, T: TreeOps, const SOLVER: bool>(
    tree: &mut T,
    root: &G,
    params: crate::search::params::IterationParams<'_, G>,
    worker: &mut Worker,
    count: u64,
) {
    let lanes = if T::VIRTUAL_LOSS { params.lanes as u64 } else { 1 };
    let mut left = count;
    while left >= lanes && lanes > 1 {
        match lanes {
            2 => worker.iterate::<G, T, SOLVER, 2>(tree, root, params),
            3 => worker.iterate::<G, T, SOLVER, 3>(tree, root, params),
            _ => worker.iterate::<G, T, SOLVER, 4>(tree, root, params),
        }
        left -= lanes;
    }
    for _ in 0..left {
        worker.iterate::<G, T, SOLVER, 1>(tree, root, params);
    }
}
