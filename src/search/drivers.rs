//! The three ways to run iterations: sequential (exclusive tree), tree-parallel (one
//! shared lock-free tree), root-parallel (one exclusive tree per thread, merged).

use std::time::Instant;

use crossbeam_utils::CachePadded;

use crate::games::Game;
use crate::sync::{AtomicBool, AtomicU64, Ordering};
use crate::tree::{Arena, NodeId, SharedTree, TreeOps};

use super::iteration::{IterationParams, Worker};

/// Iterations run between two looks at the clock and the shared budget: long enough that
/// `Instant::now` and the budget's atomic cost well under 1 % of the time, short enough
/// that a time budget is overrun by microseconds.
const CHUNK: u64 = 16;

/// A playout budget that workers draw from in chunks.
pub(crate) trait Budget {
    /// Up to `want` more iterations may run; 0 means stop.
    fn claim(&mut self, want: u64) -> u64;
}

/// A budget owned by one worker.
#[derive(Debug)]
pub(crate) struct LocalBudget(pub u64);

impl Budget for LocalBudget {
    #[inline]
    fn claim(&mut self, want: u64) -> u64 {
        let granted = want.min(self.0);
        self.0 -= granted;
        granted
    }
}

/// A budget shared by the workers of one tree. Padded: every worker writes it.
#[derive(Debug)]
pub(crate) struct SharedBudget {
    claimed: CachePadded<AtomicU64>,
    limit: u64,
}

impl SharedBudget {
    pub fn new(limit: u64) -> SharedBudget {
        SharedBudget { claimed: CachePadded::new(AtomicU64::new(0)), limit }
    }
}

impl Budget for &SharedBudget {
    #[inline]
    fn claim(&mut self, want: u64) -> u64 {
        let limit = self.limit;
        // ORDERING: Relaxed: the counter only divides the playout budget; no data is
        // published through it. The thread joins at the end synchronise the results.
        match self
            .claimed
            .fetch_update(Ordering::Relaxed, Ordering::Relaxed, |c| (c < limit).then(|| c + want.min(limit - c)))
        {
            Ok(before) => want.min(limit - before),
            Err(_) => 0,
        }
    }
}

/// Runs iterations until the budget or the deadline is spent, or (with the solver) until
/// some worker's root is proven: `solved` tells every worker of the search.
pub(crate) fn run_worker<G: Game, T: TreeOps, B: Budget>(
    tree: &mut T,
    root: &G,
    params: IterationParams<'_>,
    worker: &mut Worker,
    mut budget: B,
    deadline: Option<Instant>,
    solved: &AtomicBool,
) {
    loop {
        if deadline.is_some_and(|d| Instant::now() >= d) {
            break;
        }
        if params.solver {
            // ORDERING: Relaxed: a flag to stop; the results are read after the joins.
            if tree.proof(NodeId::ROOT).is_known() {
                solved.store(true, Ordering::Relaxed);
            }
            if solved.load(Ordering::Relaxed) {
                break;
            }
        }
        let granted = budget.claim(CHUNK);
        if granted == 0 {
            break;
        }
        if params.solver {
            run_iterations::<G, T, true>(tree, root, params, worker, granted);
        } else {
            run_iterations::<G, T, false>(tree, root, params, worker, granted);
        }
        worker.flush(tree);
    }
}

/// Runs `count` iterations, `params.leaves` playouts in flight at a time (the remainder,
/// and every iteration on a tree without virtual loss, one at a time).
#[inline]
fn run_iterations<G: Game, T: TreeOps, const SOLVER: bool>(
    tree: &mut T,
    root: &G,
    params: IterationParams<'_>,
    worker: &mut Worker,
    count: u64,
) {
    let lanes = if T::VIRTUAL_LOSS { params.leaves as u64 } else { 1 };
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

/// Tree-parallel: `workers.len()` threads on one shared arena.
pub(crate) fn run_tree_parallel<G: Game>(
    arena: &Arena,
    root: &G,
    params: IterationParams<'_>,
    workers: &mut [CachePadded<Worker>],
    limit: u64,
    deadline: Option<Instant>,
) {
    let budget = SharedBudget::new(limit);
    let budget = &budget;
    let solved = &AtomicBool::new(false);
    std::thread::scope(|scope| {
        for worker in workers.iter_mut() {
            scope.spawn(move || {
                let mut tree = SharedTree(arena);
                run_worker(&mut tree, root, params, worker, budget, deadline, solved);
            });
        }
    });
}
