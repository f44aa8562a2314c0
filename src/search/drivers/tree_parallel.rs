//! The tree-parallel driver: one scoped thread per worker, all on one shared lock-free
//! tree (`SharedTree`), drawing from one shared playout budget; virtual loss spreads
//! them (Chaslot, Winands & van den Herik 2008; lock-free: Enzenberger & Müller 2009).

use crossbeam_utils::CachePadded;

use crate::games::SearchGame;
use crate::tree::{Arena, SharedTree};

use super::batched::{run_batched, with_queue};
use super::worker_loop::run_worker;
use super::{on_threads, Driver, Job};
use crate::search::iteration::Worker;

/// All threads on one tree.
#[derive(Clone, Copy, Debug)]
pub(crate) struct TreeParallel;

impl Driver for TreeParallel {
    fn workers_per_tree(&self, threads: usize) -> u32 {
        threads as u32
    }

    fn may_find_expanding(&self) -> bool {
        true
    }

    fn batches_backups(&self, threads: usize) -> bool {
        threads > 1
    }

    fn evaluates_in_batches(&self) -> bool {
        true
    }

    fn run<G: SearchGame>(
        &self,
        job: &Job<'_, G>,
        arenas: &mut [Arena],
        workers: &mut [CachePadded<Worker>],
    ) -> Vec<u64> {
        let arena = &arenas[0];
        let budget = &job.stopper.shared();
        if job.params.batched_eval {
            let threads = workers.len();
            with_queue(job, threads, |queue| {
                on_threads(workers.iter_mut().enumerate(), |(index, worker)| {
                    run_batched(&mut SharedTree(arena), job, worker, index, queue, budget);
                });
            });
        } else {
            on_threads(workers.iter_mut(), |worker| run_worker(&mut SharedTree(arena), job, worker, budget));
        }
        vec![workers.iter().map(|w| w.playouts).sum()]
    }
}
