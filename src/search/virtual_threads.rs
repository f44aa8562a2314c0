//! The virtual-thread driver: a simulator of tree parallelisation (Segal 2010, "On the
//! scalability of parallel UCT"). `threads` logical workers take turns, round robin, in
//! one OS thread on one exclusive tree: at its turn a worker first finishes its walk in
//! flight (playout and back-up), then starts its next one (descent, virtual loss added).
//! Each back-up thus waits for the other workers' descents, as a real thread's would
//! while its playout runs, so the tree sees `threads` walks in flight exactly as with that
//! many threads whose iterations take equal time, and the search is reproducible from the
//! seed whatever the machine. It models what such a search selects, not its speed:
//! memory contention and throughput are not simulated.

use crossbeam_utils::CachePadded;

use crate::games::SearchGame;
use crate::tree::{Arena, ExclusiveTree, TreeOps};

use super::drivers::{Driver, Job};
use super::iteration::{Walk, Worker};

/// `threads` logical workers interleaved in one thread on one tree.
#[derive(Clone, Copy, Debug)]
pub(crate) struct VirtualThreads;

impl Driver for VirtualThreads {
    fn trees(&self, _threads: usize) -> usize {
        1
    }

    fn run<G: SearchGame>(
        &self,
        job: &Job<'_, G>,
        arenas: &mut [Arena],
        workers: &mut [CachePadded<Worker>],
    ) -> Vec<u64> {
        // Virtual loss (plain adds) spreads the logical workers; a lone one needs none
        // and then runs exactly the sequential search.
        let arena = &mut arenas[0];
        match (job.params.exclusive_virtual_loss, job.params.solver) {
            (true, true) => interleave::<G, _, true>(&mut ExclusiveTree::<true>(arena), job, workers),
            (true, false) => interleave::<G, _, false>(&mut ExclusiveTree::<true>(arena), job, workers),
            (false, true) => interleave::<G, _, true>(&mut ExclusiveTree::<false>(arena), job, workers),
            (false, false) => interleave::<G, _, false>(&mut ExclusiveTree::<false>(arena), job, workers),
        }
        vec![workers.iter().map(|w| w.playouts).sum()]
    }
}

/// Runs the round-robin schedule on `tree`: at step `t`, worker `t % K` finishes its walk
/// in flight (if any) and starts a new one, each started walk one playout of the whole
/// budget; once the stopper says stop, the walks still in flight are finished in the
/// order they were started.
fn interleave<G: SearchGame, T: TreeOps, const SOLVER: bool>(
    tree: &mut T,
    job: &Job<'_, G>,
    workers: &mut [CachePadded<Worker>],
) {
    let (root, params) = (job.root, job.params);
    let k = workers.len();
    // Allocated once per search; a worker's path (in its lane 0) goes with its walk.
    let mut in_flight: Vec<Option<Walk<G>>> = (0..k).map(|_| None).collect();
    let mut budget = job.stopper.share(0, 1);
    // The worker whose turn is next: its walk in flight, if any, is the oldest.
    let mut next = 0;
    loop {
        let granted = job.stopper.next_chunk(tree, &mut budget);
        if granted == 0 {
            break;
        }
        for _ in 0..granted {
            let worker = &mut workers[next];
            if let Some(walk) = in_flight[next].take() {
                worker.finish_walk::<G, T, SOLVER>(tree, params, walk);
            }
            in_flight[next] = Some(worker.start_walk::<G, T, SOLVER>(tree, root, params));
            next = if next + 1 == k { 0 } else { next + 1 };
        }
    }
    for w in (next..k).chain(0..next) {
        if let Some(walk) = in_flight[w].take() {
            workers[w].finish_walk::<G, T, SOLVER>(tree, params, walk);
        }
    }
    // Nothing is batched on an exclusive tree; flushed all the same, as every driver does.
    for worker in workers.iter_mut() {
        worker.flush(tree);
    }
}
