//! The distributed driver's run ([`super::Distributed`], `mode=dist` with the `mpi` feature): its
//! dispatch to the scheme configured ([`DistScheme`]), the totals that end every search,
//! and the stop decision of a timed search (the learnt end margin,
//! [`stop_time`](super::rank_protocol::stop_time)). The
//! calling thread (the one that initialised MPI: every MPI call stays on it) makes the
//! exchanges while its workers search.

use std::time::Instant;

use crossbeam_utils::CachePadded;
use mpi::topology::SimpleCommunicator;
use mpi::traits::Communicator;

use crate::games::SearchGame;
use crate::search::drivers::Job;
use crate::search::iteration::Worker;
use crate::search::DistScheme;
use crate::tree::Arena;

use super::exchange::Exchange;
use super::stats::{RankStats, RankWork, ShareStats};
use super::{farm, share, split};

use super::rank_protocol::learn_end_margin;

/// This process's part of a distributed search ([`Driver::run`] of [`Distributed`]):
/// the scheme configured, then the totals of every rank.
pub(super) fn run<G: SearchGame>(
    job: &Job<'_, G>,
    arenas: &mut [Arena],
    workers: &mut [CachePadded<Worker>],
) -> Vec<u64> {
    if job.config.dist_scheme == DistScheme::Tds {
        // One thread a rank (the configuration says so).
        return vec![super::tds::transport::run(job, &mut arenas[0], &mut workers[0])];
    }
    let began = Instant::now();
    let world = SimpleCommunicator::world();
    let rank = world.rank() as usize;
    let split = super::walks::partition(job.config).is_some();
    // A split shares every node of its top that changed: a rank sees the others' part
    // of it only through the shares.
    let share_percent = if split { 0.0 } else { job.config.dist_share };
    let mut exchange = Exchange::new(&arenas[0], rank, job.config.dist_depth, share_percent);
    let arena = &arenas[0];
    let mut tally = ShareStats::default();
    let work = if job.config.dist_scheme == DistScheme::Farm {
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
