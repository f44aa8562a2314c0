//! The budgets the distributed schemes draw from: a rank's part of the search's
//! playouts, a round's (`dist-every`), and the iterations handed out one at a time to a
//! rank that starts its walks itself ([`Claims`]). The distributed driver's additions to
//! [`Stopper`] and [`SharedBudget`], which every driver shares.

use std::time::Instant;

use crate::atomics::Ordering;
use crate::search::stop::{LocalBudget, PlayoutBudget, SharedBudget, Stopper};
use crate::tree::TreeOps;

impl Stopper {
    /// Share `index` of `parts` of the playout budget (as [`Stopper::share`]), for workers
    /// that draw from it together: one process's part of a distributed search.
    pub(super) fn shared_part(&self, index: usize, parts: usize) -> SharedBudget {
        SharedBudget::new(self.share(index, parts).0)
    }

    /// The deadline, if the search has one.
    pub(super) fn deadline(&self) -> Option<Instant> {
        self.deadline
    }

    /// A budget of `playouts` for the workers of one round of a distributed search.
    pub(super) fn round(playouts: u32) -> SharedBudget {
        SharedBudget::new(playouts.into())
    }

    /// [`Stopper::next_paced_chunk`] for a search that does not halve at the root (a
    /// distributed one).
    #[inline]
    pub(super) fn next_chunk<T: TreeOps, B: PlayoutBudget>(&self, tree: &mut T, budget: &mut B) -> u64 {
        self.next_chunk_at(tree, budget, self.deadline.map(|_| Instant::now()))
    }
}

impl SharedBudget {
    /// Starts the budget over for the next round, while no worker draws from it.
    pub(super) fn restart(&self) {
        // ORDERING: Relaxed: the barrier between two rounds orders this store after the
        // last claims of one round and before the first of the next.
        self.claimed.store(0, Ordering::Relaxed);
    }

    /// The playouts granted so far (read after the workers are joined).
    pub(super) fn claimed(&self) -> u64 {
        // ORDERING: Relaxed: the joins that precede this read synchronise the claims.
        self.claimed.load(Ordering::Relaxed)
    }
}

/// A budget handed out one iteration at a time, for a driver that starts its walks
/// itself (the distributed farm's rank 0, the split's ranks): drawn from the stopper in
/// chunks as [`run_worker`](crate::search::drivers::worker_loop::run_worker) draws them.
#[derive(Debug)]
pub(super) struct Claims {
    budget: LocalBudget,
    /// Iterations drawn and not yet handed out.
    granted: u64,
    /// The stopper said stop (or [`Claims::end`]): nothing more is handed out.
    over: bool,
}

impl Claims {
    pub(super) fn new(budget: LocalBudget) -> Claims {
        Claims { budget, granted: 0, over: false }
    }

    /// One more iteration, if `stopper` allows it (on `tree`: a proven root stops it).
    pub(super) fn claim<T: TreeOps>(&mut self, stopper: &Stopper, tree: &mut T) -> bool {
        if !self.over && self.granted == 0 {
            self.granted = stopper.next_chunk(tree, &mut self.budget);
            self.over = self.granted == 0;
        }
        if self.over {
            return false;
        }
        self.granted -= 1;
        true
    }

    /// Whether nothing more is handed out.
    pub(super) fn over(&self) -> bool {
        self.over
    }

    /// Hands nothing more out.
    pub(super) fn end(&mut self) {
        self.over = true;
    }
}
