//! The distributed driver ([`Distributed`], `mode=dist` with the `mpi` feature): its
//! dispatch to the scheme configured ([`DistScheme`]), the totals that end every search,
//! and the stop decision of a timed search (the learnt end margin, [`stop_time`]). The
//! calling thread (the one that initialised MPI: every MPI call stays on it) makes the
//! exchanges while its workers search.

use std::time::{Duration, Instant};

use crossbeam_utils::CachePadded;
use mpi::request::{Request, Scope};
use mpi::topology::SimpleCommunicator;
use mpi::traits::Communicator;

use crate::games::{Outcome, Player, SearchGame};
use crate::search::drivers::{Driver, Job};
use crate::search::iteration::Worker;
use crate::search::DistScheme;
use crate::tree::{Arena, TreeOps};

use super::exchange::Exchange;
use super::stats::{RankStats, RankWork, ShareStats};
use super::{farm, share, split, Distributed};

/// How long the calling thread sleeps between two polls of a collective in flight.
pub(super) const POLL: Duration = Duration::from_micros(100);

impl Driver for Distributed {
    fn run<G: SearchGame>(
        &self,
        job: &Job<'_, G>,
        arenas: &mut [Arena],
        workers: &mut [CachePadded<Worker>],
    ) -> Vec<u64> {
        let began = Instant::now();
        let world = SimpleCommunicator::world();
        let rank = world.rank() as usize;
        let split = job.params.partition.is_some();
        // A split shares every node of its top that changed: a rank sees the others' part
        // of it only through the shares.
        let share_percent = if split { 0.0 } else { job.params.dist_share };
        let mut exchange = Exchange::new(&arenas[0], rank, job.params.dist_depth, share_percent);
        let arena = &arenas[0];
        let mut tally = ShareStats::default();
        let work = if job.params.dist_scheme == DistScheme::Farm {
            // One thread a rank (the configuration says so).
            RankWork::Farm(farm::run(job, arena, &mut workers[0], &world))
        } else if split {
            // One thread a rank (the configuration says so); two ranks or more.
            let walks = split::run(job, arena, &mut workers[0], &world, &mut exchange, &mut tally);
            RankWork::Split { walks, shares: tally }
        } else {
            share::run(job, arena, workers, &world, &mut exchange, &mut tally);
            RankWork::Share(tally)
        };
        let arena = &mut arenas[0];
        exchange.withdraw(arena);
        let playouts = workers.iter().map(|w| w.playouts).sum();
        let mut summed = exchange.total(&world, arena, playouts);
        summed.stats = Some(RankStats { rank, work });
        learn_end_margin(job, began);
        // Set once: a job is run by one driver once.
        let _ = job.summed.set(summed);
        vec![playouts]
    }
}

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
fn learn_end_margin<G: SearchGame>(job: &Job<'_, G>, began: Instant) {
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
pub(super) fn check_panic<G>(job: &Job<'_, G>, rank: usize) {
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
