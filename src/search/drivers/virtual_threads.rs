//! The virtual-thread driver: a simulator of tree parallelisation (Segal 2010, "On the
//! scalability of parallel UCT"). `threads` logical workers take turns, round robin, in
//! one OS thread on one tree: at its turn a worker first finishes its walk in
//! flight (playout and back-up), then starts its next one (descent, virtual loss added).
//! Each back-up thus waits for the other workers' descents, as a real thread's would
//! while its playout runs, so the tree sees `threads` walks in flight exactly as with that
//! many threads whose iterations take equal time, and the search is reproducible from the
//! seed whatever the machine. It models what such a search selects, not its speed.
//!
//! The tree is the tree-parallel search's own: the same [`SharedTree`] operations, virtual
//! loss and batched backups at busy nodes (each logical worker flushes its batch after
//! every chunk of its own iterations, as a thread does), so the simulated search is the
//! one `--mode tree --threads K` would run on K cores whose iterations take equal time.
//! With the `contention` feature it also counts the cache-line transfers those K threads
//! would cause ([`crate::tree::contention`]), exactly and reproducibly: the input of the
//! contention model.

use crossbeam_utils::CachePadded;

use crate::games::SearchGame;
use crate::tree::{contention, Arena, SharedTree, TreeOps};

use super::{Driver, Job};
use crate::search::iteration::{Walk, Worker};
use crate::search::stop::CHUNK;

/// `threads` logical workers interleaved in one thread on one tree.
#[derive(Clone, Copy, Debug)]
pub(crate) struct VirtualThreads;

impl Driver for VirtualThreads {
    fn workers_per_tree(&self, threads: usize) -> u32 {
        threads as u32
    }

    /// The simulator's logical workers keep one walk each in flight: the walks in flight
    /// are the workers', as with one playout per real thread (the tree-parallel default
    /// everywhere but Othello, whose lanes the simulator leaves out).
    fn one_walk_per_worker(&self) -> bool {
        true
    }

    /// The simulator models the tree-parallel search, batching included.
    fn batches_backups(&self, threads: usize) -> bool {
        threads > 1
    }

    fn run<G: SearchGame>(
        &self,
        job: &Job<'_, G>,
        arenas: &mut [Arena],
        workers: &mut [CachePadded<Worker>],
    ) -> Vec<u64> {
        // A lone worker keeps no virtual loss and batches nothing: it runs exactly the
        // sequential search (tree-parallel at one thread is the sequential search).
        let tree = &mut SharedTree(&arenas[0]);
        if job.params.solver {
            interleave::<G, _, true>(tree, job, workers);
        } else {
            interleave::<G, _, false>(tree, job, workers);
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
    let (root, mut params) = (job.root, job.params);
    let k = workers.len();
    // Allocated once per search; a worker's path (in its lane 0) goes with its walk.
    let mut in_flight: Vec<Option<Walk<G>>> = (0..k).map(|_| None).collect();
    let mut budget = job.stopper.share(0, 1);
    // The worker whose turn is next: its walk in flight, if any, is the oldest.
    let mut next = 0;
    loop {
        let granted = job.stopper.next_paced_chunk(tree, &mut budget, &mut params.uct, job.params.uct.halving_budget);
        if granted == 0 {
            break;
        }
        for _ in 0..granted {
            let worker = &mut workers[next];
            contention::set_worker(next);
            if let Some(walk) = in_flight[next].take() {
                worker.finish_walk::<G, T, SOLVER>(tree, params, walk);
                // A thread flushes its batched backups after each chunk of iterations.
                if worker.playouts.is_multiple_of(CHUNK) {
                    worker.flush(tree);
                }
            }
            in_flight[next] = Some(worker.start_walk::<G, T, SOLVER>(tree, root, params));
            next = if next + 1 == k { 0 } else { next + 1 };
        }
    }
    for w in (next..k).chain(0..next) {
        contention::set_worker(w);
        if let Some(walk) = in_flight[w].take() {
            workers[w].finish_walk::<G, T, SOLVER>(tree, params, walk);
        }
    }
    for (w, worker) in workers.iter_mut().enumerate() {
        contention::set_worker(w);
        worker.flush(tree);
    }
}

/// The counting build's counts, checked against the tree they built (`cargo nextest run
/// --features contention -E 'test(contention)'`).
#[cfg(all(test, feature = "contention"))]
mod contention_tests {
    use crate::games::{Game, TicTacToe};
    use crate::search::{Mode, Search, SearchConfig};
    use crate::tree::{contention, Expansion, NodeId};

    /// Per depth: the visits of the nodes there, the nodes claimed for expansion in the
    /// search (all but the root, which is expanded before it), and those given children.
    /// Per depth: visits, nodes claimed, nodes given children.
    type Census = (Vec<u64>, Vec<u64>, Vec<u64>);

    fn census(search: &Search) -> Census {
        let arena = &search.arenas[0];
        let (mut visits, mut claimed, mut allocated) = (vec![0; 16], vec![0; 16], vec![0; 16]);
        let mut stack = vec![(NodeId::ROOT, 0usize)];
        while let Some((id, depth)) = stack.pop() {
            let node = arena.node(id);
            visits[depth] += node.stats_relaxed().visits as u64;
            if let Expansion::Expanded { first, count } = node.expansion() {
                if id != NodeId::ROOT {
                    claimed[depth] += 1;
                    allocated[depth] += u64::from(count > 0);
                }
                stack.extend((0..count).map(|i| (NodeId(first.0 + i), depth + 1)));
            }
        }
        (visits, claimed, allocated)
    }

    fn counted(threads: usize, playouts: u64) -> (contention::ContentionCounts, Census) {
        let config =
            SearchConfig::builder().playouts(playouts).mode(Mode::Virtual).threads(threads).seed(4).build().unwrap();
        let mut search = Search::new(config).unwrap();
        contention::take();
        search.run(&TicTacToe::new()).unwrap();
        let counts = contention::take();
        search.check_invariants().unwrap();
        (counts, census(&search))
    }

    #[test]
    fn contention_counts_are_exact_on_a_tiny_tree() {
        const { assert!(contention::ENABLED) };
        // One worker: per depth, one stats add per visit, plus a claim and an allocation
        // per node expanded there; no virtual loss, no batch, no other worker.
        let (counts, (visits, claimed, allocated)) = counted(1, 3_000);
        for d in 0..10 {
            assert_eq!(counts.rmw[d], visits[d] + claimed[d] + allocated[d], "depth {d}");
        }
        assert_eq!(counts.transfers.iter().sum::<u64>(), 0, "one worker moves no line");
        assert_eq!(counts.rmw[0], 3_000, "the root records every playout");
        // Two workers: virtual loss is added to every node of every path and the backup's
        // one add takes it back with the result (500 playouts: no node reaches the 512
        // visits where backups are batched), and the workers now hand lines to each other.
        let (counts, (visits, claimed, allocated)) = counted(2, 500);
        for d in 0..10 {
            assert_eq!(counts.rmw[d], 2 * visits[d] + claimed[d] + allocated[d], "depth {d}");
        }
        // Each worker's root update follows the other's: every one of them moves the line.
        assert!(counts.transfers[0] >= 500, "{:?}", counts.transfers);
    }
}
