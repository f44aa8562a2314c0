//! Without the `mpi` feature: the distributed search's stand-ins. A process is a job of
//! one rank, and no configuration is distributed (the builder refuses `mode=dist`), so
//! the driver is never run; it maps to the search each rank would run.

use std::time::Duration;

use crossbeam_utils::CachePadded;

use crate::games::SearchGame;
use crate::search::drivers::tree_parallel::TreeParallel;
use crate::search::drivers::{Driver, Job};
use crate::search::iteration::Worker;
use crate::tree::Arena;

use super::ClusterError;

/// This process's rank: 0 (no MPI).
pub fn rank() -> usize {
    0
}

/// The number of processes in the job: 1 (no MPI).
pub fn size() -> usize {
    1
}

/// A distributed search cannot run: MPI is not running.
pub(crate) fn check() -> Result<(), ClusterError> {
    Err(ClusterError::NotRunning)
}

/// One rank agrees with itself.
pub(crate) fn agree(_hash: u64) -> Result<(), ClusterError> {
    Ok(())
}

/// Rank 0's `word`: this one.
pub fn broadcast_from_rank_zero(word: u64, _pause: Duration) -> u64 {
    word
}

/// Never called (no configuration is distributed): the search each rank would run.
pub(super) fn run<G: SearchGame>(
    job: &Job<'_, G>,
    arenas: &mut [Arena],
    workers: &mut [CachePadded<Worker>],
) -> Vec<u64> {
    TreeParallel.run(job, arenas, workers)
}
