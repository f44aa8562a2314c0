//! The seam between [`super::Search`] and the ways to run a search: the [`Driver`] trait,
//! the [`Job`] every driver is given, and [`with_driver!`], the one list that maps each
//! [`Mode`](super::Mode) to its driver. The drivers themselves each have a file:
//! `sequential.rs`, `tree_parallel.rs`, `root_parallel.rs`, `synced.rs`,
//! `virtual_threads.rs`, and the distributed search's `distributed/` (MPI: the `mpi`
//! feature); `worker_loop.rs` is the loop every driver runs its workers through.

pub(super) mod batched;
pub mod distributed;
pub(super) mod root_parallel;
pub(super) mod sequential;
pub(super) mod synced;
pub(super) mod tree_parallel;
pub(super) mod virtual_threads;
pub(super) mod worker_loop;

use std::sync::OnceLock;

use crossbeam_utils::CachePadded;

use crate::tree::Arena;

use super::config::SearchConfig;
use super::error::ConfigError;
use super::iteration::Worker;
use super::params::{IterationParams, WalkShape};
use super::result::RootChild;
use super::stop::Stopper;
use distributed::{ClusterError, DriverState, RankStats};

/// Runs `work` on each of `items`, the last on the calling thread and the others on
/// scoped threads of their own. The caller, already running when it sees the search end,
/// then needs no wake-up to return: on a loaded machine each wake-up can wait a scheduler
/// tick (4 ms at 250 Hz), and a time budget would be overrun by that much.
pub(crate) fn on_threads<I, F>(items: I, work: F)
where
    I: IntoIterator,
    I::Item: Send,
    F: Fn(I::Item) + Sync,
{
    std::thread::scope(|scope| {
        let work = &work;
        let mut items = items.into_iter().peekable();
        while let Some(item) = items.next() {
            if items.peek().is_some() {
                scope.spawn(move || work(item));
            } else {
                work(item);
            }
        }
    });
}

/// One search, as every driver receives it: what to search, with which parameters, and
/// when to stop. Built once per [`super::Search::run`], after the root is validated, the
/// parameters resolved and the arenas prepared.
#[derive(Debug)]
pub(crate) struct Job<'a, G: crate::games::Game> {
    /// The root position (every arena's root node is already expanded from it).
    pub root: &'a G,
    /// The configuration: a mode's own settings (`sync-*`, `dist-*`) are read by its
    /// driver from here.
    pub config: &'a SearchConfig,
    /// The iteration parameters, resolved for the game ([`IterationParams::resolve`]).
    pub params: IterationParams<'a, G>,
    /// Playout budget, deadline and the solver's proven root, shared by all workers.
    pub stopper: Stopper,
    /// Set by a driver whose search spans other processes (the distributed driver): the
    /// totals of all of them, which the result reports instead of the local trees'.
    pub summed: OnceLock<Summed>,
    /// What the distributed driver keeps from one search to the next: the search's own,
    /// lent to the job and given back after it.
    pub distributed: DriverState,
    /// Set by a driver that evaluated in batches: the batches run of each size from 1.
    pub batch_sizes: OnceLock<Vec<u64>>,
}

/// The root statistics of a search summed over all its processes, identical in each.
#[derive(Clone, Debug, Default)]
pub(crate) struct Summed {
    /// The root's children, by move (as [`super::merge_root_children`] orders them).
    pub children: Vec<RootChild>,
    /// Playouts completed by all processes.
    pub playouts: u64,
    /// The root's visits, summed.
    pub root_visits: u64,
    /// Nodes in all the trees.
    pub nodes: u64,
    /// What this process did (the distributed driver's ranks).
    pub stats: Option<RankStats>,
}

/// A way to run a search's workers over its trees.
///
/// [`super::Search`] owns the arenas and the workers; it asks the driver how many trees it
/// searches ([`Driver::trees`]) when it allocates the arenas, prepares them (resets or
/// keeps each tree, expands each root) and the [`Job`], calls [`Driver::run`] once per
/// search, and summarises the arenas and workers afterwards (root children merged by
/// move over the trees with [`super::merge_root_children`]). The seam is per search, not
/// per iteration: the hot loop stays monomorphised inside each driver.
///
/// A driver runs each worker through [`worker_loop::run_worker`] (the one worker loop)
/// on a tree of its choice (`ExclusiveTree` or `SharedTree`) with a [`super::stop::PlayoutBudget`]
/// from `job.stopper` ([`Stopper::share`] for a worker that owns its share,
/// [`Stopper::shared`] for workers drawing together), so every driver stops for the same
/// reasons; a driver that schedules its workers itself (the virtual-thread driver) draws
/// from [`Stopper::next_paced_chunk`] as `run_worker` does.
///
/// # Adding a driver
/// A new way to run a search (a distributed driver, say) is a new file under
/// `src/search/drivers/` with a unit struct implementing this trait, plus one arm in
/// [`with_driver!`] (and its [`Mode`](super::Mode) variant). It touches none of the
/// other drivers: the sequential driver's [`sequential::run_exclusive`] runs one
/// worker on one exclusive tree for any driver that wants it, and trees searched
/// elsewhere are combined exactly, in visits and half points, by
/// [`super::merge_root_children`].
pub(crate) trait Driver {
    /// The trees (arenas) this driver searches with `threads` workers: by default one,
    /// which all of them search.
    fn trees(&self, threads: usize) -> usize {
        let _ = threads;
        1
    }

    /// The parts of the playout budget that one tree's root sees played: one per tree,
    /// where each root counts its own tree's playouts only (what sequential halving at the
    /// root divides into rounds).
    fn root_shares(&self, threads: usize) -> usize {
        self.trees(threads)
    }

    /// Whether each worker runs one walk at a time whatever the game's lanes: by default
    /// not (the simulator's logical workers do).
    fn one_walk_per_worker(&self) -> bool {
        false
    }

    /// Whether `threads` workers batch their backups: by default not (only workers that
    /// share one tree do, and a lone worker must select exactly as the sequential search).
    fn batches_backups(&self, threads: usize) -> bool {
        let _ = threads;
        false
    }

    /// The workers that search one tree together, of `threads`: by default one (each
    /// its own tree, or one thread in all).
    fn workers_per_tree(&self, threads: usize) -> u32 {
        let _ = threads;
        1
    }

    /// Whether a tree's nodes count other trees' visits towards their expansion (synced
    /// and distributed trees share statistics): by default not.
    fn counts_foreign_visits(&self) -> bool {
        false
    }

    /// Whether a worker may find a node another worker is expanding and play out from it
    /// (threads on one shared tree; a lone virtual thread cannot): by default not.
    fn may_find_expanding(&self) -> bool {
        false
    }

    /// What this mode asks of the rest of a configuration (its conflicts with other
    /// settings, whether this build can run it), checked when the configuration is built;
    /// the bounds of each setting's own value are checked whatever the mode. By default
    /// nothing.
    ///
    /// # Errors
    /// The [`ConfigError`] naming the setting at fault.
    fn check(&self, config: &SearchConfig) -> Result<(), ConfigError> {
        let _ = config;
        Ok(())
    }

    /// What this mode asks of the game searched, checked when a search starts (a
    /// default of the game's that the mode cannot honour, say): by default nothing.
    ///
    /// # Errors
    /// The [`ConfigError`] naming the setting at fault.
    fn check_game<G: crate::games::SearchGame>(&self, config: &SearchConfig) -> Result<(), ConfigError> {
        let _ = config;
        Ok(())
    }

    /// Whether a worker keeps many walks in flight on one thread, each with one lane and
    /// spread by virtual loss: by default not (a distributed farm's or split's ranks do).
    fn walks_in_flight(&self, config: &SearchConfig) -> bool {
        let _ = config;
        false
    }

    /// The seed this process's workers draw from (worker `i` from `(seed, i)`): by
    /// default the configured one (each rank of a distributed search its own).
    fn worker_seed(&self, seed: u64) -> u64 {
        seed
    }

    /// Checks, before any tree is touched, that the search of the root with hash
    /// `root_hash` can run: by default it can (a distributed search checks that MPI runs
    /// and that every rank searches the same position).
    ///
    /// # Errors
    /// The [`ClusterError`] that stops it.
    fn prepare(&self, root_hash: u64) -> Result<(), ClusterError> {
        let _ = root_hash;
        Ok(())
    }

    /// Whether this mode's workers keep walks in flight for an evaluator's batches
    /// (`eval-batch`; [`batched::run_batched`]): by default not.
    fn evaluates_in_batches(&self) -> bool {
        false
    }

    /// Whether a [`SearchHandle`](crate::search::SearchHandle) can drive this mode's
    /// search (stop it, snapshot it): by default yes, where one process runs it all.
    fn takes_handle(&self) -> bool {
        true
    }

    /// Runs `workers` (one per thread, each seeded from `(seed, index)`) on `arenas`
    /// (`self.trees(workers.len())` of them, each root expanded) until `job.stopper`
    /// stops them. Returns the playouts completed on each arena, in arena order.
    fn run<G: crate::games::SearchGame>(
        &self,
        job: &Job<'_, G>,
        arenas: &mut [Arena],
        workers: &mut [CachePadded<Worker>],
    ) -> Vec<u64>;
}

/// Evaluates `$body` with `$driver` bound to the [`Driver`] of `$mode`: the one list of
/// drivers. Static dispatch: each driver's `run` is monomorphised per game.
macro_rules! with_driver {
    ($mode:expr, |$driver:ident| $body:expr) => {
        match $mode {
            $crate::search::Mode::Sequential => {
                let $driver = $crate::search::drivers::sequential::Sequential;
                $body
            }
            // `Auto` never reaches a driver (the builder resolves it); it maps where it
            // resolves with several threads.
            $crate::search::Mode::TreeParallel | $crate::search::Mode::Auto => {
                let $driver = $crate::search::drivers::tree_parallel::TreeParallel;
                $body
            }
            $crate::search::Mode::RootParallel => {
                let $driver = $crate::search::drivers::root_parallel::RootParallel;
                $body
            }
            $crate::search::Mode::Synced => {
                let $driver = $crate::search::drivers::synced::Synced;
                $body
            }
            $crate::search::Mode::Virtual => {
                let $driver = $crate::search::drivers::virtual_threads::VirtualThreads;
                $body
            }
            // Without the `mpi` feature no built configuration holds `Dist` (the builder
            // refuses it); its driver then maps to the one each rank would run.
            $crate::search::Mode::Dist => {
                let $driver = $crate::search::drivers::distributed::Distributed;
                $body
            }
        }
    };
}
pub(crate) use with_driver;

/// The trees (arenas) `config`'s mode searches with its threads.
pub(crate) fn trees(config: &SearchConfig) -> usize {
    with_driver!(config.mode, |driver| driver.trees(config.threads))
}

/// What `config`'s mode decides of its walks ([`WalkShape`]).
pub(crate) fn walk_shape(config: &SearchConfig) -> WalkShape {
    with_driver!(config.mode, |driver| {
        let walks_in_flight = driver.walks_in_flight(config);
        WalkShape {
            root_shares: driver.root_shares(config.threads),
            walks_in_flight,
            one_lane: driver.one_walk_per_worker() || walks_in_flight,
            batched: driver.batches_backups(config.threads),
        }
    })
}

/// Each tree's share of `config`'s arena capacity.
pub(crate) fn nodes_per_tree(config: &SearchConfig) -> u64 {
    config.arena_capacity / trees(config) as u64
}
