//! What the ranks of every scheme do the same way: the stop time of a timed search (and
//! the end margin it learns), the injected panic of a test, outcomes as words, and the
//! wait for a collective in flight.

use std::time::{Duration, Instant};

use mpi::request::{Request, Scope};

use crate::games::{Outcome, Player, SearchGame};
use crate::search::drivers::Job;
use crate::tree::TreeOps;

pub(super) use super::cluster::POLL;

/// When a timed search's ranks make their last share: the deadline less the learnt end
/// margin ([`super::DriverState`]).
pub(super) fn stop_time<G: SearchGame>(job: &Job<'_, G>) -> Option<Instant> {
    let margin = job.distributed.end_margin();
    job.stopper.deadline().map(|d| d.checked_sub(margin).unwrap_or(d))
}

/// Whether it is time for rank 0 to stop the search ([`stop_time`]), its root (`tree`'s)
/// having the visits below which a deadline stops nothing ([`Stopper`](crate::search::stop::Stopper)'s floor).
pub(super) fn past_stop_time<G: SearchGame, T: TreeOps>(job: &Job<'_, G>, tree: &mut T) -> bool {
    stop_time(job).is_some_and(|t| Instant::now() >= t) && job.stopper.floor_reached(tree)
}

/// Learns from a search that began at `began` and the clock stopped how long a search
/// takes to end: half of its overrun of the deadline (or of what it ended early) moves
/// the margin, which stays within a quarter of the time budget.
pub(super) fn learn_end_margin<G: SearchGame>(job: &Job<'_, G>, began: Instant) {
    let (Some(deadline), Some(stop)) = (job.stopper.deadline(), stop_time(job)) else { return };
    let ended = Instant::now();
    if ended < stop {
        return; // the budget or a proof stopped it
    }
    let nanos = |d: Duration| d.as_nanos() as i128;
    let overrun = nanos(ended.saturating_duration_since(deadline)) - nanos(deadline.saturating_duration_since(ended));
    let limit = nanos(deadline.saturating_duration_since(began)) / 4;
    let margin = nanos(deadline - stop);
    let learnt = (margin + overrun / 2).clamp(0, limit);
    job.distributed.set_end_margin(Duration::from_nanos(learnt as u64));
}

/// A test's fault ([`crate::Search::inject_distributed_panic`]): panics if this is the
/// rank it names (called after a share).
pub(super) fn check_panic<G: crate::games::Game>(job: &Job<'_, G>, rank: usize) {
    if job.distributed.panic_rank == Some(rank) {
        panic!("a panic injected on rank {rank} (a test's fault)");
    }
}

/// An outcome as a rank sends it: the first player's half points.
pub(super) fn encode(outcome: Outcome) -> u64 {
    u64::from(outcome.half_points(Player::One))
}

/// The outcome sent as `code` ([`encode`]).
pub(super) fn decode(code: u64) -> Outcome {
    match code {
        2 => Outcome::Win(Player::One),
        1 => Outcome::Draw,
        0 => Outcome::Win(Player::Two),
        _ => panic!("an outcome is sent as 0, 1 or 2 half points (got {code})"),
    }
}

/// Waits for `request`, polling every [`POLL`].
pub(super) fn poll<'a, D: ?Sized, S: Scope<'a>>(request: Request<'a, D, S>) {
    super::cluster::poll(request, POLL);
}
