//! Search drivers: a validated [`SearchConfig`], the reusable [`Search`] (which owns the
//! preallocated arenas), and the [`SearchResult`].
//!
//! # Examples
//! ```
//! use parmcts::{ConnectFour, Game, Search, SearchConfig};
//!
//! let config = SearchConfig::builder().playouts(20_000).seed(7).build().unwrap();
//! let mut search = Search::new(config).unwrap();
//! // The first player has three stones in column 1 and wins by playing it again.
//! let position = ConnectFour::parse_position("121213").unwrap();
//! let result = search.run(&position).unwrap();
//! assert_eq!(position.format_move(result.best_move.unwrap()), "1");
//! ```

mod config;
mod drivers;
pub(crate) mod iteration;
#[cfg(all(test, loom))]
mod loom_tests;
mod result;

use std::fmt;
use std::time::Instant;

pub use config::{
    ConfigError, FinalMove, Mode, SearchConfig, SearchConfigBuilder, DEFAULT_ARENA_NODES, DEFAULT_EXPAND_THRESHOLD,
    MAX_PLAYOUTS, MIN_ARENA_NODES, SECURE_A,
};
pub use result::{format_moves, ChildResult, SearchResult};

use crossbeam_utils::CachePadded;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::games::Game;
use crate::tree::invariants::{self, Expectations, InvariantViolation};
use crate::tree::{Arena, ExclusiveTree, NodeId, SharedTree, TreeOps};
use drivers::{run_tree_parallel, run_worker, LocalBudget};
use iteration::{expand, IterationParams, Worker};

/// In a tree-parallel search, nodes with at least this many visits per thread get their
/// backups batched (up to 16 playouts per worker between flushes) and no virtual loss.
/// With 2 threads that is from 512 visits, where the 32 playouts that can be pending move
/// a mean by at most 6 %. Measured on Connect Four, 2 threads, 2,000,000 playouts
/// (`perf stat -r 3`, cycles summed over threads, sequential = 3.43 G): 4.43 G at 1,024
/// per thread, 3.71 G at 256, 4.02 G at 64 and at 16; strength at 20,000 playouts per move
/// against the sequential search: -6.9 Elo [-54, +40] over 200 games (no difference).
pub const BATCH_MIN_VISITS_PER_THREAD: u32 = 256;

/// Why a search could not run.
#[derive(Clone, Debug, PartialEq)]
pub enum SearchError {
    /// The configuration is invalid.
    Config(ConfigError),
    /// The root position is already over.
    GameOver,
    /// The arena cannot hold the root and its children.
    ArenaTooSmall {
        /// Nodes needed for the root and its children.
        needed: u64,
        /// Nodes available per tree.
        capacity: u64,
    },
}

impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchError::Config(e) => e.fmt(f),
            SearchError::GameOver => write!(f, "the position is already over: nothing to search"),
            SearchError::ArenaTooSmall { needed, capacity } => {
                write!(f, "arena too small: {capacity} nodes per tree, but the root and its children need {needed}")
            }
        }
    }
}

impl std::error::Error for SearchError {}

impl From<ConfigError> for SearchError {
    fn from(e: ConfigError) -> Self {
        SearchError::Config(e)
    }
}

/// A search engine: a configuration and the arenas it allocated once. Reuse it across
/// moves; each [`Search::run`] starts from a fresh tree.
#[derive(Debug)]
pub struct Search {
    config: SearchConfig,
    arenas: Vec<Arena>,
    /// Playouts completed on each arena by the last run (for the invariant check).
    last_playouts: Vec<u64>,
}

impl Search {
    /// Allocates the arenas (lazily zeroed: pages cost nothing until used).
    ///
    /// # Errors
    /// [`SearchError::Config`] if the arena size does not fit the node index.
    pub fn new(config: SearchConfig) -> Result<Search, SearchError> {
        let trees = if config.mode == Mode::RootParallel { config.threads } else { 1 };
        let per_tree = config.arena_nodes / trees as u64;
        let arenas = (0..trees)
            .map(|_| Arena::new(per_tree).map_err(|_| ConfigError::ArenaTooSmall(config.arena_nodes)))
            .collect::<Result<Vec<_>, _>>()?;
        Ok(Search { config, arenas, last_playouts: vec![0; trees] })
    }

    /// The configuration.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Changes the seed of the next runs (the arenas stay allocated).
    pub fn set_seed(&mut self, seed: u64) {
        self.config.seed = seed;
    }

    /// Searches `root` within the configured budget.
    ///
    /// # Errors
    /// [`SearchError::GameOver`] if `root` is finished; [`SearchError::ArenaTooSmall`] if
    /// an arena cannot hold the root's children.
    pub fn run<G: Game>(&mut self, root: &G) -> Result<SearchResult, SearchError> {
        if root.outcome().is_some() {
            return Err(SearchError::GameOver);
        }
        let needed = 1 + root.legal_moves().as_ref().len() as u64;
        let capacity = self.arenas[0].capacity() as u64;
        if needed > capacity {
            return Err(SearchError::ArenaTooSmall { needed, capacity });
        }
        let cfg = &self.config;
        // Batched backups only where threads share a tree (a lone worker must select
        // exactly as the sequential search does).
        let batch_min_visits = match (cfg.mode, cfg.threads) {
            (Mode::TreeParallel, t) if t > 1 => BATCH_MIN_VISITS_PER_THREAD.saturating_mul(t as u32),
            _ => u32::MAX,
        };
        let params = IterationParams {
            c: cfg.c,
            // A lone worker gains nothing from virtual loss (its own is left out of every
            // choice it makes), so it skips the two extra atomic adds per node.
            virtual_loss: if cfg.threads > 1 { cfg.virtual_loss } else { 0 },
            expand_threshold: cfg.expand_threshold,
            batch_min_visits,
        };
        let limit = cfg.playouts.unwrap_or(MAX_PLAYOUTS);
        let start = Instant::now();
        let deadline = cfg.time.map(|t| start + t);
        // Padded: each worker writes its generator state on every random draw, and two
        // workers sharing a cache line made 2-thread tree search slower than 1 thread.
        let mut workers: Vec<CachePadded<Worker>> =
            (0..cfg.threads).map(|i| CachePadded::new(Worker::new(cfg.seed, i))).collect();
        // Every root is expanded before any worker starts, so no worker ever finds the
        // root EXPANDING and plays out from it (root visits = Σ children's visits).
        for arena in &mut self.arenas {
            arena.reset();
            let mut tree = ExclusiveTree(arena);
            let claimed = tree.try_claim(NodeId::ROOT);
            debug_assert!(claimed);
            expand(&mut tree, NodeId::ROOT, root, None::<&mut Xoshiro256PlusPlus>);
        }
        match cfg.mode {
            Mode::Sequential => {
                let mut tree = ExclusiveTree(&mut self.arenas[0]);
                run_worker(&mut tree, root, params, &mut workers[0], LocalBudget(limit), deadline);
            }
            Mode::TreeParallel => run_tree_parallel(&self.arenas[0], root, params, &mut workers, limit, deadline),
            Mode::RootParallel => {
                let trees = workers.len() as u64;
                std::thread::scope(|scope| {
                    for (i, (worker, arena)) in workers.iter_mut().zip(self.arenas.iter_mut()).enumerate() {
                        let share = limit / trees + u64::from((i as u64) < limit % trees);
                        scope.spawn(move || {
                            let mut tree = ExclusiveTree(arena);
                            run_worker(&mut tree, root, params, worker, LocalBudget(share), deadline);
                        });
                    }
                });
            }
        }
        let elapsed = start.elapsed();
        self.last_playouts = match cfg.mode {
            Mode::RootParallel => workers.iter().map(|w| w.playouts).collect(),
            _ => vec![workers.iter().map(|w| w.playouts).sum()],
        };
        Ok(self.summarise(root, &workers, elapsed))
    }

    fn summarise<G: Game>(
        &self,
        root: &G,
        workers: &[CachePadded<Worker>],
        elapsed: std::time::Duration,
    ) -> SearchResult {
        // Sum root children over the trees (one tree unless root-parallel).
        let mut merged: Vec<(crate::games::Move, u64, u64)> = Vec::new();
        let mut per_tree_children = Vec::with_capacity(self.arenas.len());
        for arena in &self.arenas {
            let children = result::root_children(&mut SharedTree(arena));
            if merged.is_empty() {
                merged = children.clone();
            } else {
                for (m, c) in merged.iter_mut().zip(&children) {
                    debug_assert_eq!(m.0, c.0, "every tree generates the root moves in the same order");
                    m.1 += c.1;
                    m.2 += c.2;
                }
            }
            per_tree_children.push(children);
        }
        let (best_move, children) = result::summarise_children(&merged, self.config.final_move);
        // The PV: the best move, continued in the tree that visited it most.
        let mut pv = Vec::new();
        if let Some(best) = best_move {
            let index = merged.iter().position(|c| c.0 == best).unwrap_or(0);
            let tree = (0..self.arenas.len()).max_by_key(|&t| per_tree_children[t].get(index).map_or(0, |c| c.1));
            if let Some(t) = tree {
                pv = result::principal_variation(&mut SharedTree(&self.arenas[t]), best, 256);
            }
        }
        let root_visits = self.arenas.iter().map(|a| a.node(NodeId::ROOT).stats_relaxed().visits as u64).sum();
        let _ = root;
        SearchResult {
            best_move,
            children,
            pv,
            playouts: workers.iter().map(|w| w.playouts).sum(),
            root_visits,
            nodes: self.arenas.iter().map(|a| a.len() as u64).sum(),
            max_depth: workers.iter().map(|w| w.max_depth).max().unwrap_or(0),
            elapsed,
            arena_full: workers.iter().any(|w| w.arena_full),
            mode: self.config.mode,
            threads: self.config.threads,
        }
    }

    /// Checks the quiescent invariants of the last run's tree(s) (see
    /// [`crate::tree::invariants`]). Returns the number of reachable nodes.
    ///
    /// # Errors
    /// The first [`InvariantViolation`].
    pub fn check_invariants(&self) -> Result<u64, InvariantViolation> {
        let mut total = 0;
        for (arena, &playouts) in self.arenas.iter().zip(&self.last_playouts) {
            total += invariants::check(
                arena,
                Expectations {
                    playouts,
                    expand_threshold: self.config.expand_threshold,
                    exact_leaf_visits: self.config.mode != Mode::TreeParallel,
                },
            )?;
        }
        Ok(total)
    }
}

/// Convenience: allocates a [`Search`] and runs it once.
///
/// # Errors
/// As [`Search::new`] and [`Search::run`].
pub fn search<G: Game>(root: &G, config: &SearchConfig) -> Result<SearchResult, SearchError> {
    Search::new(config.clone())?.run(root)
}

/// Keeps `TreeOps` in scope for the result helpers.
#[allow(dead_code)]
fn _assert_tree_ops<T: TreeOps>() {}
