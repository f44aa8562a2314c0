//! The distributed search (`mode=dist`): one search across MPI processes, one per
//! machine (the `mpi` feature; run under `mpirun`). Everything distributed lives here:
//!
//! * this file: the driver's seam with the rest of the search, which exists in every
//!   build: `Distributed` (registered in `with_driver!`), the state it keeps from one
//!   search to the next (`DriverState`), the rank and size of the job ([`rank`],
//!   [`size`]), and the per-rank seeds (`rank_seed`);
//! * `driver.rs`: the driver proper and the dispatch to its schemes ([`DistScheme`]), with
//!   the stop decision of a timed search;
//! * `share.rs`: MoGo's scheme ([`DistScheme::Share`]), every rank its own tree, shared;
//! * `farm.rs` and `split.rs`: the farm and the split ([`DistScheme::Farm`],
//!   [`DistScheme::Split`]);
//! * `tds/`: transposition-driven scheduling ([`DistScheme::Tds`]), one tree spread
//!   node by node, and its simulator of ranks ([`RankModel`]);
//! * `exchange.rs`: a rank's side of the shares (share and split);
//! * `budget.rs`: the budgets the schemes draw from (the `Stopper`'s parts);
//! * `cluster.rs`: the MPI world, initialised by the program (`Cluster`), and its
//!   communication helpers;
//! * `error.rs` and `stats.rs`: why a distributed search cannot run ([`ClusterError`]),
//!   and what each rank did ([`RankStats`], in [`crate::SearchResult::distributed`]);
//!   both exist in every build;
//! * `local.rs`: without the `mpi` feature, the stand-ins (one rank, no driver of its
//!   own: the configuration refuses `mode=dist`).
//!
//! The collectives are non-blocking and polled with short sleeps, so a rank that waits
//! for a slower one leaves its core to the workers. Every rank makes the same calls in
//! the same order: the number of shares is decided by the all-reduce itself (stop when
//! every rank's workers are done, or when rank 0's deadline has passed). A timed search
//! ends on time: every rank makes that last share early by the time the searches before
//! took to end once stopped (the end margin of `DriverState`).
//!
//! Counts stay exact: each rank books per node what it added from others (`foreign`) and
//! what of its own it has sent (`sent`); at the end it takes the foreign part out again,
//! so its tree holds exactly its own playouts (the invariants hold per rank), and a last
//! all-reduce sums the ranks' own root children: every rank reports the same visit
//! vector and so the same move, and the root's visits are the playouts of all ranks.
//! With tree reuse a rank keeps its own subtree for the next move (its books start empty,
//! so the next search's first share sends the kept shallow statistics to the others).
//!
//! Playout budgets are split between the ranks as between threads (`Stopper::share`);
//! rank `r` seeds its workers from `(seed, r)` (`rank_seed`; rank 0 from the seed
//! itself, so one rank searches exactly as `mode=tree`).
//!
//! Nothing here prints or reads the environment: what a rank did is in the result
//! ([`RankStats`]), and the one fault a test injects is set on the search
//! ([`crate::search::Search::inject_distributed_panic`]).

use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use crossbeam_utils::CachePadded;

use super::{Driver, Job};
use crate::games::SearchGame;
use crate::search::error::ConfigError;
use crate::search::iteration::Worker;
use crate::search::{DistScheme, SearchConfig};
use crate::tree::Arena;

#[cfg(feature = "mpi")]
mod budget;
#[cfg(feature = "mpi")]
pub mod cluster;
#[cfg(feature = "mpi")]
mod driver;
mod error;
#[cfg(feature = "mpi")]
mod exchange;
#[cfg(feature = "mpi")]
mod farm;
#[cfg(not(feature = "mpi"))]
mod local;
#[cfg(feature = "mpi")]
mod rank_protocol;
#[cfg(feature = "mpi")]
mod share;
#[cfg(feature = "mpi")]
mod split;
mod stats;
pub(crate) mod tds;
#[cfg(feature = "mpi")]
mod walks;

#[cfg(feature = "mpi")]
pub use cluster::broadcast_from_rank_zero;
#[cfg(feature = "mpi")]
pub(crate) use cluster::{agree, check};
#[cfg(feature = "mpi")]
pub use cluster::{rank, size, Cluster, Relay, PANIC_EXIT};
pub use error::ClusterError;
#[cfg(not(feature = "mpi"))]
pub use local::broadcast_from_rank_zero;
#[cfg(not(feature = "mpi"))]
pub(crate) use local::{agree, check};
#[cfg(not(feature = "mpi"))]
pub use local::{rank, size};
pub use stats::{FarmStats, RankStats, RankWork, ShareStats, SplitStats};
pub use tds::rank::TdsStats;
pub use tds::sim::{RankModel, SimReport};

/// Whether this build can run a distributed search (the `mpi` feature).
pub const AVAILABLE: bool = cfg!(feature = "mpi");

/// The distributed driver: one process of a distributed search (`driver.rs`; without the
/// `mpi` feature, `local.rs`).
#[derive(Clone, Copy, Debug)]
pub(crate) struct Distributed;

/// What the distributed driver keeps from one search to the next, owned by the
/// [`crate::search::Search`] that runs it (each [`crate::search::drivers::Job`] takes it to the driver and
/// gives it back).
#[derive(Debug, Default)]
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) struct DriverState {
    /// How long before its deadline a rank makes the share where rank 0 stops a timed
    /// search, in nanoseconds: the time the searches before took to end once stopped
    /// (the last share, the walks in flight, the totals), learnt move by move on each
    /// rank. A distributed search must be stopped early to end on time: its ranks stop
    /// together only at a share, which completes when the last of them joins it.
    /// Written and read by the one MPI thread of the process (an atomic only because the
    /// job that carries it is shared with the workers).
    end_margin_ns: AtomicU64,
    /// A test's fault: the rank that panics after its first share
    /// ([`crate::search::Search::inject_distributed_panic`]).
    panic_rank: Option<usize>,
    /// What the last TDS search left for the check of its invariants (set by the one
    /// MPI thread, read after the search).
    pub(crate) tds: std::sync::Mutex<tds::Kept>,
}

impl DriverState {
    /// Whether a TDS tree kept by [`crate::Search::reuse`] is searched on: not when the
    /// next run is of another root (`reusing` false).
    pub(crate) fn keep_tds_tree(&self, reusing: bool) {
        if !reusing {
            self.tds.lock().unwrap_or_else(std::sync::PoisonError::into_inner).reused = false;
        }
    }
}

#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
impl DriverState {
    /// The learnt end margin.
    fn end_margin(&self) -> Duration {
        // ORDERING: Relaxed: written and read by the one MPI thread of the process.
        Duration::from_nanos(self.end_margin_ns.load(Ordering::Relaxed))
    }

    /// Sets the learnt end margin.
    fn set_end_margin(&self, margin: Duration) {
        // ORDERING: Relaxed: as in `end_margin`.
        self.end_margin_ns.store(margin.as_nanos() as u64, Ordering::Relaxed);
    }
}

impl crate::search::Search {
    /// A test's fault injection: in the distributed searches this engine runs, `rank`
    /// panics after its first share (the job must then end rather than hang: the panic
    /// hook that `Cluster::init` installs aborts it). For tests only.
    #[doc(hidden)]
    pub fn inject_distributed_panic(&mut self, rank: usize) {
        self.distributed.panic_rank = Some(rank);
    }
}

impl Driver for Distributed {
    /// This build runs it (the `mpi` feature); one thread a rank for the farm and the
    /// split, a shared top for the split; no halving over the ranks' shared root.
    fn check(&self, cfg: &SearchConfig) -> Result<(), ConfigError> {
        if cfg.halving == Some(true) {
            let why = "the ranks' shared root visits are not one tree's budget";
            return Err(ConfigError::conflict("halving", "on", "mode", "dist", why));
        }
        if !AVAILABLE {
            return Err(ConfigError::DistUnavailable);
        }
        if cfg.dist_scheme != DistScheme::Share && cfg.threads > 1 {
            let (scheme, why) = (cfg.dist_scheme.to_string(), "this scheme runs one thread a rank");
            return Err(ConfigError::conflict("dist-scheme", scheme, "threads", cfg.threads, why));
        }
        if cfg.dist_scheme == DistScheme::Tds {
            tds::check(cfg)?;
        }
        if cfg.dist_scheme == DistScheme::Split && cfg.dist_depth == 0 {
            let why = "the split needs a shared top of 1 ply or more";
            return Err(ConfigError::conflict("dist-scheme", "split", "dist-depth", 0, why));
        }
        Ok(())
    }

    /// No: the ranks stop together at a share, which one process's handle cannot decide
    /// (each rank's search runs under `mpirun`, started by the program on every rank).
    fn takes_handle(&self) -> bool {
        false
    }

    /// The ranks share statistics.
    fn counts_foreign_visits(&self) -> bool {
        true
    }

    fn batches_backups(&self, threads: usize) -> bool {
        threads > 1
    }

    /// A farm's rank 0 keeps many walks in flight on one thread, each with one lane,
    /// spread by virtual loss (a farm of one rank is the tree-parallel search); a split's
    /// ranks likewise (their walks wait for the ranks that own their ends).
    fn walks_in_flight(&self, config: &SearchConfig) -> bool {
        config.dist_scheme == DistScheme::Tds || (size() > 1 && config.dist_scheme != DistScheme::Share)
    }

    /// `seed` itself on rank 0 (one rank searches as `mode=tree`), a distinct one from
    /// `(seed, rank)` on the others.
    fn worker_seed(&self, seed: u64) -> u64 {
        let rank = rank() as u64;
        seed.wrapping_add(rank.wrapping_mul(0x9E37_79B9_7F4A_7C15))
    }

    /// TDS's refusals that depend on the game ([`tds::check_game`]).
    fn check_game<G: SearchGame>(&self, cfg: &SearchConfig) -> Result<(), ConfigError> {
        match cfg.dist_scheme {
            DistScheme::Tds => tds::check_game::<G>(cfg),
            _ => Ok(()),
        }
    }

    /// MPI runs, and every rank searches the same root.
    fn prepare(&self, root_hash: u64) -> Result<(), ClusterError> {
        check()?;
        agree(root_hash)
    }

    fn run<G: SearchGame>(
        &self,
        job: &Job<'_, G>,
        arenas: &mut [Arena],
        workers: &mut [CachePadded<Worker>],
    ) -> Vec<u64> {
        #[cfg(feature = "mpi")]
        return driver::run(job, arenas, workers);
        #[cfg(not(feature = "mpi"))]
        return local::run(job, arenas, workers);
    }
}
