//! Node budgets: the unbudgeted and the budgeted search are one search, generic over [`NodeBudget`].

use std::convert::Infallible;

/// How far a search may go. The search is generic over it, so the unbudgeted search
/// compiles to the code it had before budgets existed: its [`NodeBudget::check`] is always
/// `Ok`, and its `Stop` is uninhabited, so its caller needs no error path.
pub(super) trait NodeBudget {
    /// Why a search stopped early.
    type Stop;
    /// `Err` once `nodes` is over `max_nodes`.
    fn check(nodes: u64, max_nodes: u64) -> Result<(), Self::Stop>;
}

/// No budget: [`Solver::solve`](super::Solver::solve) and friends.
pub(super) struct Unlimited;

impl NodeBudget for Unlimited {
    type Stop = Infallible;

    #[inline(always)]
    fn check(_nodes: u64, _max_nodes: u64) -> Result<(), Infallible> {
        Ok(())
    }
}

/// At most `max_nodes` positions: [`Solver::solve_within`](super::Solver::solve_within).
pub(super) struct Limited;

/// The budgeted search ran out of nodes.
pub(super) struct Exhausted;

impl NodeBudget for Limited {
    type Stop = Exhausted;

    #[inline(always)]
    fn check(nodes: u64, max_nodes: u64) -> Result<(), Exhausted> {
        if nodes > max_nodes {
            Err(Exhausted)
        } else {
            Ok(())
        }
    }
}
