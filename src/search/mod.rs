//! The search: a validated [`SearchConfig`], the reusable [`Search`] (which owns the
//! preallocated arenas: [`Search::run`] prepares them, runs the mode's driver, one file
//! each behind one `Driver` trait, and summarises), and the [`SearchResult`].
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

#[macro_use]
mod settings_macro;
mod builder;
mod config;
mod drivers;
mod error;
mod evaluators;
mod handle;
pub(crate) mod iteration;
mod limits;
#[cfg(all(test, loom))]
mod loom_tests;
mod noise;
mod options;
mod params;
mod per_game;
mod result;
mod reuse;
mod setting;
mod snapshot;
mod stop;

use reuse::find_position;

use std::sync::Arc;
use std::time::{Duration, Instant};

pub use config::{
    ChanceSelection, ConfigError, DistScheme, Evaluation, FinalMove, InFlight, Mode, Playout, SearchConfig,
    SearchConfigBuilder, Select, Setting, SettingError, Weights, DEFAULT_ARENA_NODES, DEFAULT_BIAS_K,
    DEFAULT_DIST_BATCH, DEFAULT_EXPAND_THRESHOLD, MAX_ARENA_NODES, MAX_DIST_BATCH, MAX_EVAL_DEPTH, MAX_LANES,
    MAX_PLAYOUTS, MAX_THREADS, MIN_ARENA_NODES, SECURE_A, SETTINGS,
};
pub use drivers::distributed;
pub use error::{EvaluationError, SearchError};
pub use handle::{Finished, NotStarted, SearchHandle};
pub(crate) use params::resolve_gammas;
pub use params::BATCH_MIN_VISITS_PER_THREAD;
pub use snapshot::{Snapshot, SnapshotChild};
// The benchmark's pure-playout rows play the search's playouts.
#[cfg(feature = "harness")]
pub(crate) use params::search_playouts;
pub use result::{format_moves, merge_root_children, ChildResult, RootChild, SearchResult};

use crossbeam_utils::CachePadded;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::evaluator::Evaluator;
use crate::games::{Criticality, LastGoodReplies, SearchGame};
use crate::solver::solved_to_play;
use crate::tree::invariants::{self, Expectations, InvariantViolation};
use crate::tree::{available_bytes, Arena, ExclusiveTree, Expansion, NodeId, Proof, SharedTree, TreeOps};
use crate::weights::MoveWeights;
use drivers::{with_driver, Driver, Job, Summed};
use evaluators::Evaluators;
use iteration::{expand, Worker};
use params::{playout_tables, IterationParams, Priors};
use stop::Stopper;

/// A search engine: a configuration and the arenas it allocated once. Reuse it across
/// moves; each [`Search::run`] starts from a fresh tree.
#[derive(Debug)]
pub struct Search {
    config: SearchConfig,
    arenas: Vec<Arena>,
    /// Playouts completed on each arena by the last run (for the invariant check).
    last_playouts: Vec<u64>,
    /// The playouts per worker kept in flight by the last run (its resolved `lanes`).
    last_lanes: usize,
    /// Whether the last run kept RAVE's statistics (its resolved `rave` > 0).
    last_rave: bool,
    /// The last run's final-move rule (it may depend on the game: [`SearchConfig::final_move_rule`]).
    last_final_move: FinalMove,
    /// Whether the last search's game has chance turns (whose outcomes get no AMAF
    /// credit, so invariant 5 is not checked).
    last_chance: bool,
    /// Per arena: (visits, leaf visits) its root had when the last run started.
    prior_root: Vec<(u64, u64)>,
    /// Set by [`Search::reuse`]: the hash of the position whose subtree now sits at the
    /// roots; the next [`Search::run`] on that position keeps the trees.
    reuse_hash: Option<u64>,
    /// Set by [`Search::reuse`]: when it began. The next [`Search::run`] counts its time
    /// budget from there, so the time the move spends finding and compacting the kept
    /// subtree is part of its budget, not added to it.
    reuse_started: Option<Instant>,
    /// Spare arena for compaction (allocated on first reuse; pages untouched until used).
    scratch: Option<Arena>,
    /// The shipped weights of the last game searched ([`Tuning::SHIPPED_WEIGHTS`](crate::games::Tuning::SHIPPED_WEIGHTS)), read
    /// once rather than on every move.
    shipped: Option<(&'static str, MoveWeights)>,
    /// The table of last good replies (`replies=on`), made at the first search that
    /// plays them and kept across searches, as the replies stay good from move to move.
    replies: Option<Box<LastGoodReplies>>,
    /// The criticality table (`crit` > 0), made at the first search that counts it and
    /// kept, its counts halved at each.
    criticality: Option<Box<Criticality>>,
    /// The embedder's evaluator, and the shipped network parsed once.
    evaluators: Evaluators,
    /// What the distributed driver keeps from one search to the next.
    distributed: distributed::DriverState,
    /// The handle's side of a started search ([`Search::start`]), while it runs.
    control: Option<Arc<snapshot::Control>>,
}

impl Search {
    /// Allocates the arenas (lazily zeroed: pages cost nothing until used).
    ///
    /// # Errors
    /// [`SearchError::Config`] if the arena size does not fit the node index, or the
    /// arenas need more memory than the machine has available
    /// ([`ConfigError::ArenaOverMemory`]).
    pub fn new(config: SearchConfig) -> Result<Search, SearchError> {
        let (trees, per_tree) = (drivers::trees(&config), drivers::nodes_per_tree(&config));
        // Refused here, not killed later: the pages are touched only as the tree grows.
        let bytes = per_tree.saturating_mul(config.bytes_per_node()).saturating_mul(config.arenas());
        if let Some(available) = available_bytes().filter(|&available| bytes > available) {
            return Err(ConfigError::ArenaOverMemory { bytes, available }.into());
        }
        // With their side arrays (AMAF statistics, implicit minimax values) where the
        // search keeps them: the spare arena too, or the first reuse would allocate them.
        let new_arena = || -> Result<Arena, SearchError> {
            let mut arena = Arena::new(per_tree).map_err(ConfigError::from)?;
            // A game's own RAVE default (`Tuning::RAVE`) enables them at its first run.
            if config.rave.is_some_and(|k| k > 0.0) {
                arena.enable_amaf();
            }
            if config.may_keep_values() {
                arena.enable_values();
            }
            Ok(arena)
        };
        let arenas = (0..trees).map(|_| new_arena()).collect::<Result<Vec<_>, _>>()?;
        // Tree reuse compacts the kept subtree into a spare arena. Allocated here, with
        // the others: allocated at the first reuse instead, it made that move overrun its
        // time by up to a second (the allocator zeroing recycled memory; docs/RESULTS.md).
        let scratch = if config.reuse { Some(new_arena()?) } else { None };
        Ok(Search {
            config,
            arenas,
            last_playouts: vec![0; trees],
            last_lanes: 1,
            last_rave: false,
            last_final_move: FinalMove::Visits,
            last_chance: false,
            prior_root: vec![(0, 0); trees],
            reuse_hash: None,
            reuse_started: None,
            scratch,
            shipped: None,
            replies: None,
            criticality: None,
            evaluators: Evaluators::default(),
            control: None,
            distributed: Default::default(),
        })
    }

    /// The configuration.
    pub fn config(&self) -> &SearchConfig {
        &self.config
    }

    /// Values the leaves of the next runs of game `G` with `evaluator` in place of the
    /// n-tuple network the `eval` setting names (`eval=none` still turns evaluation off).
    /// It is asked one position at a time, or in batches with `eval-batch`
    /// ([`Evaluator`]); a run of another game is refused
    /// ([`EvaluationError::OtherGame`]).
    pub fn set_evaluator<G: SearchGame>(&mut self, evaluator: Arc<dyn Evaluator<G>>) {
        self.evaluators.set(evaluator);
    }

    /// Forgets the evaluator set with [`Search::set_evaluator`].
    pub fn clear_evaluator(&mut self) {
        self.evaluators.clear();
    }

    /// Changes the seed of the next runs (the arenas stay allocated).
    pub fn set_seed(&mut self, seed: u64) {
        self.config.seed = seed;
    }

    /// Changes the budget of the next runs (the arenas stay allocated): a clock that gives
    /// each move its own time.
    ///
    /// # Errors
    /// As [`SearchConfig::with_budget`]; the budget is then unchanged.
    pub fn set_budget(&mut self, playouts: Option<u64>, time: Option<Duration>) -> Result<(), ConfigError> {
        self.config = self.config.with_budget(playouts, time)?;
        Ok(())
    }

    /// Searches `root` within the configured budget: prepares the search (validates the
    /// root, resolves the parameters for the game, prepares the arenas), runs the
    /// mode's driver, and summarises the trees.
    ///
    /// # Errors
    /// [`SearchError::GameOver`] if `root` is finished; [`ConfigError::ArenaTooSmall`] (in
    /// [`SearchError::Config`]) if an arena cannot hold the root's children.
    pub fn run<G: SearchGame>(&mut self, root: &G) -> Result<SearchResult, SearchError> {
        // The move's clock started with the reuse before this run, if there was one.
        let start = self.reuse_started.take().unwrap_or_else(Instant::now);
        if root.outcome().is_some() {
            return Err(SearchError::GameOver);
        }
        if self.config.until_stopped && self.control.is_none() {
            return Err(SearchError::Unbounded);
        }
        let gammas = resolve_gammas::<G>(&self.config, &mut self.shipped)?;
        let evaluator = self.evaluators.resolve::<G>(&self.config.eval)?;
        let root_moves = check_root(&self.config, self.arenas[0].capacity() as u64, root, evaluator.is_some())?;
        let tables = playout_tables::<G>(&self.config, &mut self.replies, &mut self.criticality)?;
        let cfg = &self.config;
        let mut params = IterationParams::resolve(cfg, drivers::walk_shape(cfg), gammas, tables, evaluator.as_deref());
        self.last_lanes = params.lanes;
        self.last_rave = params.uct.rave > 0.0;
        self.last_final_move = cfg.final_move_rule::<G>();
        self.last_chance = G::HAS_CHANCE;
        if self.last_rave {
            // Allocated once, lazily zeroed (a no-op when `Search::new` allocated them).
            self.arenas.iter_mut().chain(self.scratch.as_mut()).for_each(Arena::enable_amaf);
        }
        if let Some(solved) = solved_to_play(root, cfg.endgame_for::<G>()) {
            // The tree is not searched: left fresh (root expanded, no visits), so tree
            // reuse and the invariants see a search of no playouts.
            self.reuse_hash = None;
            prepare_arenas(&mut self.arenas, &mut self.prior_root, root, &params, false)?;
            self.last_playouts = vec![0; self.arenas.len()];
            let mut result = self.summarise(&[], start.elapsed());
            result.best_move = solved.best_move;
            result.pv = solved.best_move.into_iter().collect();
            result.proof = Proof::from_half_points(solved.outcome.half_points(root.side_to_move()));
            return Ok(result);
        }
        let control = self.control.clone();
        let deadline = cfg.time.map(|t| start + t - stop::stop_margin(t));
        let stopper = Stopper::new(cfg.playouts, deadline, root_moves, params.solver, control);
        // Padded: each worker writes its generator state on every random draw, and two
        // workers sharing a cache line made 2-thread tree search slower than 1 thread.
        // A distributed search's processes each seed from (seed, rank).
        let seed = with_driver!(cfg.mode, |driver| driver.worker_seed(cfg.seed));
        let mut workers: Vec<CachePadded<Worker>> =
            (0..cfg.threads).map(|i| CachePadded::new(Worker::new(seed, i))).collect();
        let reusing = self.reuse_hash.take() == Some(root.hash());
        self.distributed.keep_tds_tree(reusing);
        let reused_nodes = prepare_arenas(&mut self.arenas, &mut self.prior_root, root, &params, reusing)?;
        // Halving's rounds count this search's visits of the root only (of the shared
        // tree; a worker on a tree of its own reads its own: `run_worker_with`).
        params.uct.halving_start = self.arenas[0].node(NodeId::ROOT).stats_relaxed().visits;
        if cfg.noise > 0.0 {
            noise::add_root_noise(&self.arenas, cfg.noise, cfg.noise_frac, cfg.seed);
        }
        if let Some(control) = &self.control {
            let trees =
                self.arenas.iter().zip(&self.prior_root).map(|(a, &(kept, _))| (SharedTree(a).arena_id(), kept));
            control.begin(trees, !with_driver!(cfg.mode, |driver| driver.counts_foreign_visits()));
        }
        let distributed = std::mem::take(&mut self.distributed);
        let (summed, batch_sizes) = (std::sync::OnceLock::new(), std::sync::OnceLock::new());
        let job = Job { root, config: cfg, params, stopper, summed, distributed, batch_sizes };
        let arenas = &mut self.arenas;
        self.last_playouts = with_driver!(cfg.mode, |driver| driver.run(&job, arenas, &mut workers));
        let elapsed = start.elapsed();
        let (summed, batch_sizes) = (job.summed.into_inner(), job.batch_sizes.into_inner());
        self.distributed = job.distributed;
        if let Some(error) = workers.iter_mut().find_map(|w| w.eval_error.take()) {
            return Err(SearchError::Evaluator(error));
        }
        let mut result = self.summarise(&workers, elapsed);
        result.batch_sizes = batch_sizes.unwrap_or_default();
        if let Some(summed) = summed {
            self.report_summed(&mut result, summed);
        }
        result.reused_nodes = reused_nodes;
        if let Some(deadline) = deadline {
            stop::record_stop(deadline, Instant::now());
        }
        Ok(result)
    }

    /// A distributed search's result: every process reports the totals of all of them.
    fn report_summed(&self, result: &mut SearchResult, summed: Summed) {
        let (best_move, children) = result::summarise_children(&summed.children, self.last_final_move);
        // The PV continues in this process's tree (one tree per process).
        result.pv = match best_move {
            Some(best) => result::principal_variation(&mut SharedTree(&self.arenas[0]), best, 256),
            None => Vec::new(),
        };
        result.best_move = best_move;
        result.children = children;
        result.playouts = summed.playouts;
        result.root_visits = summed.root_visits;
        result.nodes = summed.nodes;
        result.distributed = summed.stats;
    }

    /// Keeps, for the next [`Search::run`] on `new_root`, the part of the last search's
    /// tree(s) under `new_root`: the subtree reached from `old_root` (the position the
    /// last run searched) by at most `max_plies` moves whose position hashes like
    /// `new_root` becomes the root, compacted to the front of the arena. Returns the
    /// nodes kept (0 when the position is not in the tree, or reuse is off in the
    /// configuration; the next run then starts afresh). With reuse on, the next run's
    /// time budget counts from the start of this call: the search stops when the move's
    /// time is up, the time spent here included. With `dist-scheme=tds` every rank keeps
    /// its part of the tree: a collective call, which every rank makes with the same
    /// positions.
    pub fn reuse<G: SearchGame>(&mut self, old_root: &G, new_root: &G, max_plies: u32) -> u64 {
        self.reuse_hash = None;
        self.reuse_started = self.config.reuse.then(Instant::now);
        // A distributed search keeps each rank's own subtree (its tree holds only its own
        // playouts after a search); the first share of the next search sends its shallow
        // statistics to the other ranks.
        if !self.config.reuse {
            return 0;
        }
        let target = new_root.hash();
        #[cfg(feature = "mpi")]
        if self.config.mode == Mode::Dist && self.config.dist_scheme == DistScheme::Tds {
            // A collective call: every rank keeps its part of the tree.
            let Some(mut scratch) = self.scratch.take() else { return 0 };
            let mut kept = self.distributed.tds.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            let plies = (old_root, new_root);
            let nodes = distributed::tds::reuse_ranks(&mut self.arenas[0], &mut scratch, &mut kept, plies, max_plies);
            self.reuse_hash = kept.reused.then_some(target);
            drop(kept);
            self.scratch = Some(scratch);
            return nodes;
        }
        let mut kept = 0;
        for i in 0..self.arenas.len() {
            let Some(node) =
                find_position(&mut ExclusiveTree::<false>(&mut self.arenas[i]), old_root, target, max_plies)
            else {
                return 0;
            };
            if node != NodeId::ROOT {
                // `Search::new` allocates the spare arena whenever reuse is on.
                let Some(mut scratch) = self.scratch.take() else { return 0 };
                if self.arenas[i].copy_subtree(node, &mut scratch).is_none() {
                    self.scratch = Some(scratch);
                    return 0;
                }
                std::mem::swap(&mut self.arenas[i], &mut scratch);
                self.scratch = Some(scratch);
            }
            kept += self.arenas[i].len() as u64 - 1;
        }
        self.reuse_hash = Some(target);
        kept
    }

    fn summarise(&self, workers: &[CachePadded<Worker>], elapsed: Duration) -> SearchResult {
        // Sum root children over the trees (one tree unless root-parallel), by move:
        // reused roots keep their shuffled child order, so indices need not line up.
        let per_tree: Vec<Vec<RootChild>> =
            self.arenas.iter().map(|arena| result::root_children(&mut SharedTree(arena))).collect();
        let merged = merge_root_children(&per_tree);
        let (mut best_move, children) = result::summarise_children(&merged, self.last_final_move);
        if self.config.temperature > 0.0 {
            best_move = noise::draw_by_visits(&merged, self.config.temperature, self.config.seed).or(best_move);
        }
        // The PV: the best move, continued in the tree that visited it most.
        let pv = match best_move {
            Some(best) => {
                let visits_of = |t: &Vec<RootChild>| t.iter().find(|c| c.mv == best).map_or(0, |c| c.visits);
                let tree = (0..per_tree.len()).max_by_key(|&t| visits_of(&per_tree[t])).unwrap_or(0);
                result::principal_variation(&mut SharedTree(&self.arenas[tree]), best, 256)
            }
            None => Vec::new(),
        };
        // The root's stored proof is for the player who moved into it: flip it for the
        // side to move.
        let proof = self.arenas.iter().map(|a| a.node(NodeId::ROOT).proof().flip()).max().unwrap_or_default();
        let root_visits = self.arenas.iter().map(|a| a.node(NodeId::ROOT).stats_relaxed().visits as u64).sum();
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
            reused_nodes: 0,
            proof,
            mode: self.config.mode,
            threads: self.config.threads,
            lanes: self.last_lanes,
            distributed: None,
            batch_sizes: Vec::new(),
        }
    }

    /// Checks the quiescent invariants of the last run's tree(s) (numbered in
    /// `src/tree/invariants.rs` and `docs/CONCURRENCY.md`). Returns the number of
    /// reachable nodes.
    ///
    /// # Errors
    /// The first [`InvariantViolation`].
    pub fn check_invariants(&self) -> Result<u64, InvariantViolation> {
        #[cfg(feature = "mpi")]
        if self.config.mode == Mode::Dist && self.config.dist_scheme == DistScheme::Tds {
            // A collective call: the ranks' dumps are checked together.
            let kept = self.distributed.tds.lock().unwrap_or_else(std::sync::PoisonError::into_inner);
            return distributed::tds::check_ranks(&self.arenas[0], &kept);
        }
        let mut total = 0;
        for ((arena, &playouts), prior) in self.arenas.iter().zip(&self.last_playouts).zip(&self.prior_root) {
            total += invariants::check(
                arena,
                Expectations {
                    playouts,
                    // Synced trees count the other trees' visits towards expansion, so a
                    // node's own visits before its children need not reach the threshold.
                    // A walk counts the virtual loss of the other walks in flight at a
                    // node (its visits include it), and one of those may yet go below it
                    // once it is expanded: up to `walks - 1` of the threshold.
                    expand_threshold: if with_driver!(self.config.mode, |driver| driver.counts_foreign_visits()) {
                        0
                    } else {
                        self.config.expand_threshold.saturating_sub(self.walks_in_flight() - 1)
                    },
                    exact_leaf_visits: self.one_walk_and_own_visits(),
                    prior_root_visits: prior.0,
                    prior_root_leaf: prior.1,
                    amaf_covers_visits: self.last_rave && !self.last_chance,
                },
            )?;
        }
        Ok(total)
    }

    /// The most walks the last run could have had in flight on one tree at once, each
    /// with its virtual loss on its nodes: every worker on a shared tree, times its lanes,
    /// or its share of `eval-in-flight` when leaves went in batches.
    fn walks_in_flight(&self) -> u32 {
        let workers_per_tree = with_driver!(self.config.mode, |driver| driver.workers_per_tree(self.config.threads));
        let per_worker = match self.config.eval_batch {
            0 => self.last_lanes as u32,
            _ => drivers::batched::walks_per_worker(&self.config, workers_per_tree as usize) as u32,
        };
        workers_per_tree * per_worker
    }

    /// Whether the last run kept at most one walk in flight on each tree at any time, and
    /// only that tree's own playouts counted towards expansion, so that a leaf is expanded
    /// at exactly the threshold (invariant 3 with equality).
    fn one_walk_and_own_visits(&self) -> bool {
        // Synced and distributed trees count other trees' visits towards expansion; the
        // threads of a shared tree may find a node EXPANDING and play out from it (a lone
        // virtual thread cannot).
        let own_visits =
            with_driver!(self.config.mode, |driver| !driver.counts_foreign_visits() && !driver.may_find_expanding());
        // A walk that leaves its node's expansion to a batch's answer is valued there, so
        // the node may have one visit more than the threshold before its children.
        let deferred = self.config.eval_batch > 0 && self.config.eval_priors;
        own_visits && self.walks_in_flight() == 1 && !deferred
    }

    /// Checks the solver's proofs in the last run's tree(s) against the game, replaying
    /// from `root` (the position searched: every proven node's value must follow from
    /// the game). Returns the number of proven nodes.
    ///
    /// # Errors
    /// The first unsupported proof.
    pub fn check_proofs<G: SearchGame>(&self, root: &G) -> Result<u64, InvariantViolation> {
        self.arenas.iter().map(|arena| invariants::check_proofs(arena, root)).sum()
    }
}

/// The root's visits and the part of them that stopped at the root itself.
fn root_visits_and_leaf<T: TreeOps>(tree: &mut T) -> (u64, u64) {
    let visits = tree.stats(NodeId::ROOT).visits as u64;
    let children: u64 = result::root_children(tree).iter().map(|c| c.visits).sum();
    (visits, visits.saturating_sub(children))
}

/// Convenience: allocates a [`Search`] and runs it once.
///
/// # Errors
/// As [`Search::new`] and [`Search::run`].
pub fn search<G: SearchGame>(root: &G, config: &SearchConfig) -> Result<SearchResult, SearchError> {
    Search::new(config.clone())?.run(root)
}

/// Prepares each arena for a search of `root`: every root is expanded before any worker
/// starts, so no worker ever finds the root EXPANDING and plays out from it (root visits
/// = Σ children's visits). A tree kept by [`Search::reuse`] for this very position
/// (`reusing`) is searched on; any other is reset. Records each root's visits before the
/// run in `prior_root`, and returns the nodes kept.
fn prepare_arenas<G: SearchGame>(
    arenas: &mut [Arena],
    prior_root: &mut [(u64, u64)],
    root: &G,
    params: &IterationParams<'_, G>,
    reusing: bool,
) -> Result<u64, SearchError> {
    let mut reused_nodes = 0;
    // With batches, the root's priors are asked as a batch too (an evaluator may answer
    // only in batches).
    let root_priors = match (params.priors(), params.batched_eval) {
        (Some(Priors::Evaluator(evaluator)), true) => {
            Some(evaluators::root_priors(evaluator, root).map_err(SearchError::Evaluator)?)
        }
        _ => None,
    };
    let priors = match &root_priors {
        Some((moves, priors)) => Some(Priors::Given { moves, priors }),
        None => params.priors(),
    };
    for (arena, prior) in arenas.iter_mut().zip(prior_root) {
        let mut tree = ExclusiveTree::<false>(arena);
        let keep = reusing
            && match tree.expansion(NodeId::ROOT) {
                Expansion::Unexpanded => true,
                Expansion::Expanded { count, .. } => count > 0,
                Expansion::Expanding => false,
            };
        if keep {
            reused_nodes += tree.0.len() as u64 - 1;
        } else {
            tree.0.reset();
        }
        let mut tree = ExclusiveTree::<false>(arena);
        if tree.try_claim(NodeId::ROOT) {
            let implicit = params.implicit_evaluator();
            let layout = params.child_layout();
            // Widening takes the strongest children first: equal priors are shuffled (by
            // one fixed generator, so every tree's root alike), not left in move order.
            let mut ties = layout.by_prior.then(|| <Xoshiro256PlusPlus as rand_core::SeedableRng>::seed_from_u64(0));
            expand(&mut tree, NodeId::ROOT, root, ties.as_mut(), priors, implicit, layout);
        }
        *prior = root_visits_and_leaf(&mut tree);
    }
    Ok(reused_nodes)
}

/// Whether `root` can be searched with this configuration (an evaluator present
/// where a setting needs one, its children fitting an arena of `nodes`, the ranks agreeing on
/// it); its number of legal moves.
fn check_root<G: SearchGame>(
    config: &SearchConfig,
    nodes: u64,
    root: &G,
    has_network: bool,
) -> Result<u64, SearchError> {
    let needs_evaluator = |setting| SearchError::Evaluation(EvaluationError::NoEvaluator { setting, game: G::NAME });
    if config.eval_priors && !has_network {
        return Err(needs_evaluator("eval-priors=on"));
    }
    if config.implicit.is_some_and(|alpha| alpha > 0.0) && !has_network {
        return Err(needs_evaluator("implicit"));
    }
    if config.eval_batch > 0 && !has_network {
        return Err(needs_evaluator("eval-batch"));
    }
    let root_moves = root.legal_moves().as_ref().len() as u64;
    let needed = 1 + root_moves;
    if needed > nodes {
        return Err(ConfigError::ArenaTooSmall { nodes, needed }.into());
    }
    with_driver!(config.mode, |driver| driver.check_game::<G>(config))?;
    with_driver!(config.mode, |driver| driver.prepare(root.hash())).map_err(SearchError::Cluster)?;
    Ok(root_moves)
}
