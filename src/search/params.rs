//! The parameters one iteration reads, resolved once per search from the
//! [`SearchConfig`] and the game: the per-game defaults (C, leaves, pruning), the learned
//! gammas in use, whether virtual loss is kept, and where backups are batched.

use crate::evaluator::Evaluator;
use crate::games::{Criticality, Game, LastGoodReplies, PlayoutPolicy, Playouts, SearchGame};
use crate::policy::UctParams;
use crate::weights::MoveWeights;

use super::config::{ChanceSelection, InFlight, Playout, SearchConfig, Select, Weights};
use super::limits::MAX_LANES;
use super::{ConfigError, SearchError};

/// In a tree-parallel search, nodes with at least this many visits per thread get their
/// backups batched (up to 16 playouts per worker between flushes) and no virtual loss.
/// With 2 threads that is from 512 visits, where the 32 playouts that can be pending move
/// a mean by at most 6 %. Measured on Connect Four, 2 threads, 2,000,000 playouts
/// (`perf stat -r 3`, cycles summed over threads, sequential = 3.43 G): 4.43 G at 1,024
/// per thread, 3.71 G at 256, 4.02 G at 64 and at 16; strength at 20,000 playouts per move
/// against the sequential search: -6.9 Elo [-54, +40] over 200 games (no difference).
pub const BATCH_MIN_VISITS_PER_THREAD: u32 = 256;

/// Parameters an iteration of a search of `G` reads (copied out of the configuration
/// once, by [`IterationParams::resolve`]).
pub(crate) struct IterationParams<'a, G: Game> {
    /// Selection constants: C, progressive bias (C_BT = 0 disables it and skips the
    /// priors), RAVE (k = 0 disables it and the AMAF updates).
    pub uct: UctParams,
    /// Virtual loss added per in-flight playout on a tree that keeps it (0: none).
    pub virtual_loss: u32,
    /// Whether the exclusive trees (sequential, root-parallel, synced) keep virtual loss
    /// (plain adds): only to spread a worker's lanes (`leaves > 1`).
    pub exclusive_virtual_loss: bool,
    /// Playouts in flight per worker (1 to [`MAX_LANES`]; more than 1 only on a tree
    /// that keeps virtual loss).
    pub lanes: usize,
    pub expand_threshold: u32,
    /// Roulette-wheel playouts driven by the game's action values, instead of uniform.
    pub biased_playouts: bool,
    /// Learned gammas per move feature, in place of the game's action values (priors and
    /// biased playouts).
    pub gammas: Option<&'a [f32]>,
    /// The search's table of last good replies, where its playouts play them.
    pub replies: Option<&'a LastGoodReplies>,
    /// The search's criticality table and `crit`'s K, where criticality weighs the priors.
    pub criticality: Option<(&'a Criticality, f32)>,
    /// Win-first / block-first pruning at expansion and in playouts.
    pub prune: bool,
    /// How a chance node's outcome is picked on the walk down.
    pub chance: ChanceSelection,
    /// The leaf evaluator, if any, and its share λ of a leaf's value (1: no playout).
    pub evaluator: Option<&'a dyn Evaluator<G>>,
    pub eval_weight: f32,
    /// Plies of negamax on the evaluator's values at each leaf.
    pub eval_depth: u32,
    /// Progressive bias priors from the evaluator instead of the move strengths.
    pub eval_priors: bool,
    /// MCTS-Solver: prove wins, losses and draws and back them up the tree.
    pub solver: bool,
    /// With the solver: the node budget of the game's exact solver at each expansion
    /// ([`crate::games::Endgame`]; 0: never called).
    pub endgame_leaf_nodes: u64,
    /// Nodes with at least this many visits get their backups batched per worker and no
    /// virtual loss (`u32::MAX`: never; see `docs/CONCURRENCY.md`, "Batched backups").
    pub batch_min_visits: u32,
    /// Whether leaves are evaluated in batches (`eval-batch`): a walk that claims a node
    /// whose priors come from the evaluator then leaves it claimed, for the batch's
    /// answer to expand ([`IterationParams::defers_expansion`]).
    pub batched_eval: bool,
}

// By hand: derived, they would ask `G: Copy`.
impl<G: Game> Clone for IterationParams<'_, G> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G: Game> Copy for IterationParams<'_, G> {}

impl<G: Game> std::fmt::Debug for IterationParams<'_, G> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("IterationParams")
            .field("uct", &self.uct)
            .field("lanes", &self.lanes)
            .field("evaluator", &self.evaluator.is_some())
            .field("batched_eval", &self.batched_eval)
            .finish_non_exhaustive()
    }
}

/// What a search's mode decides of its walks, answered by its driver
/// (`drivers::walk_shape`) and read by [`IterationParams::resolve`].
#[derive(Clone, Copy, Debug)]
pub(crate) struct WalkShape {
    /// The parts of the playout budget one tree's root sees played.
    pub root_shares: usize,
    /// Whether a worker keeps many walks in flight on one thread, each with one lane and
    /// spread by virtual loss (a farm's rank 0, a split's ranks).
    pub walks_in_flight: bool,
    /// Whether each worker runs one walk at a time, whatever the game's default lanes
    /// (the simulator's logical workers, and walks in flight).
    pub one_lane: bool,
    /// Whether workers sharing a tree batch their backups.
    pub batched: bool,
}

impl<'a, G: SearchGame> IterationParams<'a, G> {
    /// Resolves `config` for game `G`: the game's defaults fill the unset settings
    /// ([`SearchConfig::c_for`], [`SearchConfig::lanes_for`],
    /// [`SearchConfig::prune_for`]), and this is the one place where it is decided
    /// whether virtual loss is kept and where backups are batched. `gammas` are
    /// the learned gammas in use ([`resolve_gammas`]), `tables` what the search's
    /// playouts learn into; `shape` is what the mode's driver decides of the walks.
    pub(crate) fn resolve(
        config: &SearchConfig,
        shape: WalkShape,
        gammas: Option<&'a [f32]>,
        tables: Tables<'a>,
        evaluator: Option<&'a dyn Evaluator<G>>,
    ) -> IterationParams<'a, G> {
        let WalkShape { walks_in_flight, one_lane, batched, .. } = shape;
        // Leaves evaluated in batches: many one-lane walks in flight per worker.
        let batched_eval = config.eval_batch > 0;
        let (one_lane, walks_in_flight) = (one_lane || batched_eval, walks_in_flight || batched_eval);
        let playouts = search_playouts::<G>(config, gammas);
        let lanes = if one_lane { 1 } else { config.lanes_for::<G>() };
        debug_assert!((1..=MAX_LANES).contains(&lanes));
        // Batched backups only where threads share a tree (a lone worker must select
        // exactly as the sequential search does).
        let batch_min_visits =
            if batched { BATCH_MIN_VISITS_PER_THREAD.saturating_mul(config.threads as u32) } else { u32::MAX };
        IterationParams {
            uct: UctParams {
                c: config.c_for::<G>(),
                bias: config.bias_for::<G>(),
                bias_k: config.bias_k,
                prior_visits: config.prior_visits_for::<G>(),
                widen: config.widen,
                rave: config.rave_for::<G>(),
                // Only with an evaluator to give the values (eval=default may have none).
                // Not with batches (the builder refuses an explicit α there).
                implicit: if evaluator.is_some() && !batched_eval { config.implicit_for::<G>() } else { 0.0 },
                wu_uct: config.in_flight == InFlight::WuUct,
                puct: config.select == Select::Puct,
                c_puct: config.c_puct_for::<G>(),
                fpu: config.fpu,
                // The playouts one root sees played; a timed search paces its rounds by
                // the clock within them (`Stopper::pace_halving`).
                halving_budget: if config.halving_for::<G>() {
                    let shares = shape.root_shares as u64;
                    (config.playouts.unwrap_or(u64::from(u32::MAX)) / shares).clamp(1, u64::from(u32::MAX)) as u32
                } else {
                    0
                },
                // Set once the root is prepared (tree reuse may keep visits).
                halving_start: 0,
            },
            // A lone worker with one lane gains nothing from virtual loss (its own is left
            // out of every choice it makes), so it skips the two extra atomic adds per
            // node; its lanes need it to spread.
            virtual_loss: if config.threads > 1 || lanes > 1 || walks_in_flight { config.virtual_loss } else { 0 },
            exclusive_virtual_loss: lanes > 1 || batched_eval,
            lanes,
            expand_threshold: config.expand_threshold,
            biased_playouts: playouts.biased,
            gammas,
            replies: tables.replies,
            criticality: tables.criticality.map(|table| (table, config.crit)),
            prune: playouts.prune,
            chance: config.chance,
            evaluator,
            eval_weight: config.eval_weight,
            eval_depth: config.eval_depth,
            eval_priors: config.eval_priors,
            solver: config.solver,
            endgame_leaf_nodes: config.endgame_leaf_for::<G>(),
            batch_min_visits,
            batched_eval,
        }
    }

    /// Which moves an expansion gives children and in what order.
    pub(crate) fn child_layout(&self) -> ChildLayout {
        ChildLayout { prune: self.prune, by_prior: self.uct.widen > 0.0 }
    }

    /// The evaluator that values children at expansion for implicit minimax backups
    /// (`implicit` > 0), if any.
    pub(crate) fn implicit_evaluator(&self) -> Option<&'a dyn Evaluator<G>> {
        self.evaluator.filter(|_| self.uct.implicit > 0.0)
    }

    /// Whether a walk that claims a node leaves its expansion to the batch's answer: when
    /// leaves are evaluated in batches and the node's priors are the evaluator's.
    pub(crate) fn defers_expansion(&self) -> bool {
        self.batched_eval && matches!(self.priors(), Some(Priors::Evaluator(_)))
    }

    /// What [`super::iteration::expand`] stores as priors: nothing without progressive
    /// bias, priors as equivalent experience, progressive widening or PUCT, else the evaluator's priors
    /// (`eval-priors=on`) or the move strengths (from the learned gammas, or the game's
    /// action values).
    pub(crate) fn priors(&self) -> Option<Priors<'a, G>> {
        if self.uct.bias <= 0.0 && self.uct.prior_visits <= 0.0 && self.uct.widen <= 0.0 && !self.uct.puct {
            return None;
        }
        Some(match self.evaluator {
            Some(evaluator) if self.eval_priors => Priors::Evaluator(evaluator),
            _ => Priors::Strengths { gammas: self.gammas, critical: self.criticality },
        })
    }
}

/// Which moves an expansion gives children, and in what order.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub(crate) struct ChildLayout {
    /// Only the moves [`Playouts::prune_moves`] keeps
    /// (win-first / block-first).
    pub prune: bool,
    /// In order of their priors, the strongest first (progressive widening), where the
    /// node has priors.
    pub by_prior: bool,
}

/// Where the progressive bias priors P(m) come from.
pub(crate) enum Priors<'a, G: Game> {
    /// The move strengths: learned `gammas`, or (`None`) the game's action values; each
    /// times `1 + K·(crit − mean)⁺` with `critical`'s table and K.
    Strengths {
        /// The learned gammas, if any.
        gammas: Option<&'a [f32]>,
        /// The criticality table and K, where criticality weighs the priors.
        critical: Option<(&'a Criticality, f32)>,
    },
    /// The leaf evaluator's priors, asked for at the expansion.
    Evaluator(&'a dyn Evaluator<G>),
    /// Priors a batch's evaluation gave for `moves` (the position's legal moves).
    Given {
        /// The moves.
        moves: &'a [crate::games::Move],
        /// Their weights, in order.
        priors: &'a [f32],
    },
}

impl<G: Game> Clone for Priors<'_, G> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G: Game> Copy for Priors<'_, G> {}

/// The playouts a search of `G` by `config` plays: its playout policy ([`SearchConfig::playout_for`]),
/// its pruning ([`SearchConfig::prune_for`]) and `gammas` ([`resolve_gammas`]). `bench`'s
/// pure rows play the same.
pub(crate) fn search_playouts<'a, G: SearchGame>(
    config: &SearchConfig,
    gammas: Option<&'a [f32]>,
) -> PlayoutPolicy<'a> {
    PlayoutPolicy {
        biased: config.playout_for::<G>() == Playout::Biased,
        prune: config.prune_for::<G>(),
        gammas,
        replies: None,
    }
}

/// The learned gammas `config` uses for game `G`, if any: a learned set (checked against
/// the game), or the game's shipped set ([`Tuning::SHIPPED_WEIGHTS`](crate::games::Tuning::SHIPPED_WEIGHTS)) where biased playouts
/// or progressive bias use it, parsed once into `shipped` and kept there across searches.
///
/// # Errors
/// [`SearchError::Weights`] if the weights are not for this game.
pub(crate) fn resolve_gammas<'a, G: SearchGame>(
    config: &'a SearchConfig,
    shipped: &'a mut Option<(&'static str, MoveWeights)>,
) -> Result<Option<&'a [f32]>, SearchError> {
    let uses_weights = config.playout_for::<G>() == Playout::Biased
        || config.bias_for::<G>() > 0.0
        || config.prior_visits_for::<G>() > 0.0
        || config.widen > 0.0;
    Ok(match &config.weights {
        Weights::Learned(weights) => {
            weights.check::<G>().map_err(SearchError::Weights)?;
            Some(weights.gammas.as_slice())
        }
        Weights::HandSet => None,
        Weights::Shipped => match G::SHIPPED_WEIGHTS {
            Some(json) if uses_weights => {
                if shipped.as_ref().is_none_or(|(game, _)| *game != G::NAME) {
                    let weights = MoveWeights::from_json(json)
                        .and_then(|w| w.check::<G>().map(|()| w))
                        .map_err(SearchError::Weights)?;
                    *shipped = Some((G::NAME, weights));
                }
                shipped.as_ref().map(|(_, weights)| weights.gammas.as_slice())
            }
            _ => None,
        },
    })
}

/// The tables a search's playouts learn into, shared by its workers.
#[derive(Clone, Copy, Debug, Default)]
pub(crate) struct Tables<'a> {
    /// Last good replies, where the playouts play them ([`replies_table`]).
    pub replies: Option<&'a LastGoodReplies>,
    /// Criticality, where it weighs the priors ([`criticality_table`]).
    pub criticality: Option<&'a Criticality>,
}

/// The tables a search of `G` by `config` learns into ([`replies_table`],
/// [`criticality_table`]), made in `replies` and `criticality` where first needed.
///
/// # Errors
/// As [`replies_table`] and [`criticality_table`].
pub(crate) fn playout_tables<'a, G: SearchGame>(
    config: &SearchConfig,
    replies: &'a mut Option<Box<LastGoodReplies>>,
    criticality: &'a mut Option<Box<Criticality>>,
) -> Result<Tables<'a>, SearchError> {
    Ok(Tables {
        replies: replies_table::<G>(config, replies)?,
        criticality: criticality_table::<G>(config, criticality)?,
    })
}

/// The criticality table a search of `G` by `config` counts into, if `crit` > 0: made in
/// `table` at the first such search and kept, its counts halved at each (a new root is
/// usually two moves on: the last search's counts serve its first expansions).
///
/// # Errors
/// [`ConfigError::NotForGame`] for `crit` > 0 in a game whose playouts own no points;
/// [`ConfigError::Conflict`] where the search has no priors for it to weigh.
fn criticality_table<'a, G: SearchGame>(
    config: &SearchConfig,
    table: &'a mut Option<Box<Criticality>>,
) -> Result<Option<&'a Criticality>, SearchError> {
    if config.crit <= 0.0 {
        return Ok(None);
    }
    if G::OWNED_POINTS == 0 {
        let why = "its playouts own no points (Go's do)";
        return Err(ConfigError::NotForGame { setting: "crit", game: G::NAME, why }.into());
    }
    let strengths = config.bias_for::<G>() > 0.0 || config.prior_visits_for::<G>() > 0.0 || config.widen > 0.0;
    if !strengths || config.eval_priors || config.select == Select::Puct {
        let why =
            "criticality weighs the move strengths' priors (prior-visits, bias or widen), and this search has none";
        return Err(
            ConfigError::conflict("crit", config.crit, "prior-visits", config.prior_visits_for::<G>(), why).into()
        );
    }
    let table = table.get_or_insert_with(|| Box::new(Criticality::new(<G as Playouts>::OWNED_POINTS)));
    table.halve();
    Ok(Some(table))
}

/// The table of last good replies a search of `G` by `config` plays, if it plays them
/// ([`SearchConfig::replies_for`]): made in `table` at the first such search and kept
/// there across searches.
///
/// # Errors
/// [`ConfigError::NotForGame`] for `replies=on` in a game whose playouts learn none.
fn replies_table<'a, G: SearchGame>(
    config: &SearchConfig,
    table: &'a mut Option<Box<LastGoodReplies>>,
) -> Result<Option<&'a LastGoodReplies>, SearchError> {
    if !config.replies_for::<G>() {
        return Ok(None);
    }
    if !G::LEARNS_REPLIES {
        let why = "its playouts learn no replies (Go's do)";
        return Err(ConfigError::NotForGame { setting: "replies=on", game: G::NAME, why }.into());
    }
    Ok(Some(table.get_or_insert_with(Box::default)))
}
