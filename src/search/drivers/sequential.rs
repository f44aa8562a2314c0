//! The sequential driver: one worker on one exclusive tree (no atomic instructions), the
//! baseline the parallel drivers are measured against; and [`run_exclusive`], one worker
//! on its own tree, which root-parallel runs once per thread.

use crossbeam_utils::CachePadded;

use crate::games::SearchGame;
use crate::tree::{Arena, ExclusiveTree};

use super::batched::{run_batched, with_queue};
use super::worker_loop::run_worker_with;
use super::{Driver, Job};
use crate::search::iteration::Worker;
use crate::search::stop::LocalBudget;

/// One thread, one tree, the whole budget.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Sequential;

impl Driver for Sequential {
    fn run<G: SearchGame>(
        &self,
        job: &Job<'_, G>,
        arenas: &mut [Arena],
        workers: &mut [CachePadded<Worker>],
    ) -> Vec<u64> {
        let budget = job.stopper.share(0, 1);
        if job.params.batched_eval {
            // Its walks in flight are spread by virtual loss (plain adds).
            let tree = &mut ExclusiveTree::<true>(&mut arenas[0]);
            with_queue(job, 1, |queue| run_batched(tree, job, &mut workers[0], 0, queue, budget));
        } else {
            run_exclusive(&mut arenas[0], job, &mut workers[0], budget);
        }
        vec![workers.iter().map(|w| w.playouts).sum()]
    }

    fn evaluates_in_batches(&self) -> bool {
        true
    }
}

/// [`super::worker_loop::run_worker`] on one worker's own tree. The tree keeps virtual loss (plain adds) only
/// where the job's parameters say so (`exclusive_virtual_loss`: to spread lanes).
pub(crate) fn run_exclusive<G: SearchGame>(
    arena: &mut Arena,
    job: &Job<'_, G>,
    worker: &mut Worker,
    budget: LocalBudget,
) {
    run_exclusive_with(arena, job, worker, budget, |_, _| {});
}

/// [`run_exclusive`], calling `between_chunks` with the arena and the iterations just run
/// after each chunk ([`run_worker_with`]: the synced driver's exchanges).
pub(crate) fn run_exclusive_with<G: SearchGame>(
    arena: &mut Arena,
    job: &Job<'_, G>,
    worker: &mut Worker,
    budget: LocalBudget,
    mut between_chunks: impl FnMut(&mut Arena, u64),
) {
    if job.params.exclusive_virtual_loss {
        let between = |tree: &mut ExclusiveTree<'_, true>, ran| between_chunks(tree.0, ran);
        run_worker_with(&mut ExclusiveTree::<true>(arena), job, worker, budget, between);
    } else {
        let between = |tree: &mut ExclusiveTree<'_, false>, ran| between_chunks(tree.0, ran);
        run_worker_with(&mut ExclusiveTree::<false>(arena), job, worker, budget, between);
    }
}
