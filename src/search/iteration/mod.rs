//! One MCTS iteration — select, expand, simulate, back up — generic over [`TreeOps`], so
//! the sequential baseline and the tree-parallel workers run the same code.

mod backup;
mod chance;
mod expand;
mod leaf;
mod walk;

use std::ops::ControlFlow;

use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::evaluator::EvalError;
use crate::games::{CriticalityTally, Game, Move, MovesPlayed, Outcome, Player, PlayoutPolicy, SearchGame, Turn};
use crate::policy::select_child;
use crate::tree::{contention, Expansion, NodeId, Proof, TreeOps};

use super::limits::MAX_LANES;
use super::options::ChanceSelection;
use super::params::IterationParams;
pub(in crate::search) use backup::back_up_values;
pub(crate) use backup::prove_ancestors;
use backup::{outcome_of, result_value, update_amaf};
use chance::{sample_chance_child, walk_chance_child};
pub(crate) use expand::{expand, Expanded};
use leaf::evaluate_leaf;
pub(crate) use walk::{Descent, Select, Walk};

/// The playout policy of `params`, and whether its playouts go through
/// [`Playouts::recorded_playout`](crate::games::Playouts::recorded_playout) (RAVE needs the moves; pruning has no faster path).
fn playout_policy<G: Game>(params: IterationParams<'_, G>) -> (PlayoutPolicy<'_>, bool) {
    let policy = PlayoutPolicy {
        biased: params.biased_playouts,
        prune: params.prune,
        gammas: params.gammas,
        replies: params.replies,
    };
    (policy, params.uct.rave > 0.0 || params.prune || params.replies.is_some())
}

/// Slots of a worker's table of batched updates (a power of two).
const PENDING_SLOTS: usize = 128;

/// A batched update: playouts and half points not yet added to `node` (0 playouts: an
/// empty slot).
#[derive(Clone, Copy, Debug)]
struct Pending {
    node: NodeId,
    playouts: u32,
    half_points: u32,
}

impl Pending {
    const EMPTY: Pending = Pending { node: NodeId::ROOT, playouts: 0, half_points: 0 };
}

/// Distinguishes the lanes' generators from the workers' (`worker_rng`).
const LANE_SEEDS: u64 = 0x5DEE_CE66_D1CE_5EED;

/// Per-worker state: its generator and a reusable path buffer (no allocation once warm).
#[derive(Debug)]
pub(crate) struct Worker {
    pub rng: Xoshiro256PlusPlus,
    /// The nodes of each lane's current iteration path (lane 0 only, unless
    /// `leaves > 1`).
    pub(in crate::search) paths: [Vec<Step>; MAX_LANES],
    /// The generators of the lanes' playouts when `leaves > 1` (with one lane, `rng`
    /// serves the tree and the playout).
    lane_rngs: [Xoshiro256PlusPlus; MAX_LANES],
    /// Batched backups not yet written to the tree, direct-mapped by node: a lookup is
    /// one hash (scanning a 64-entry list cost 150-300 instructions per iteration at 2
    /// threads on Connect Four).
    pending: Box<[Pending]>,
    /// RAVE: the moves each player made from the current level of the path down.
    pub(in crate::search) played: [MovesPlayed; MAX_LANES],
    /// RAVE on a shared tree: AMAF results for the root's children not yet written to
    /// the tree, by child index, while the root's own backups are batched. Every
    /// iteration credits about half the root's children, so writing them at once per
    /// chunk spares the threads a cache-line exchange per child and iteration.
    root_amaf: Vec<u64>,
    /// Deepest path seen (edges below the root).
    pub max_depth: u32,
    /// An expansion failed because the arena was full.
    pub arena_full: bool,
    /// Completed iterations.
    pub playouts: u64,
    /// The evaluator failed (a value outside `[0, 1]`, or a batch's error): the walk it
    /// was asked for was abandoned, and the search stops with this error.
    pub eval_error: Option<EvalError>,
    /// Set by a walk that claimed its last node and left the expansion to the batch's
    /// answer ([`IterationParams::defers_expansion`]); taken by `start_walk`.
    claimed_leaf: bool,
    /// This worker's criticality counts not yet in the search's table (`crit` > 0); up
    /// to [`CriticalityTally::FLUSH`] playouts a worker are left out when a search ends.
    criticality: CriticalityTally,
}

/// One node of an iteration's path.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Step {
    pub node: NodeId,
    /// The player who moved into the node.
    pub mover: Player,
    /// Whether its backup is batched.
    pub batched: bool,
    /// Whether the position at the node is a chance turn (never proven by the solver).
    pub chance: bool,
}

/// Seeds worker `index` from `(seed, index)`: distinct, reproducible streams.
pub(crate) fn worker_rng(seed: u64, index: usize) -> Xoshiro256PlusPlus {
    // SplitMix-style spreading of the index so nearby seeds give unrelated streams.
    let mixed = seed ^ (index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    Xoshiro256PlusPlus::seed_from_u64(mixed)
}

impl Worker {
    pub(crate) fn new(seed: u64, index: usize) -> Worker {
        Worker {
            rng: worker_rng(seed, index),
            paths: std::array::from_fn(|_| Vec::with_capacity(256)),
            lane_rngs: std::array::from_fn(|lane| worker_rng(seed ^ LANE_SEEDS, index * MAX_LANES + lane)),
            pending: vec![Pending::EMPTY; PENDING_SLOTS].into_boxed_slice(),
            played: [MovesPlayed::default(); MAX_LANES],
            root_amaf: Vec::new(),
            max_depth: 0,
            arena_full: false,
            playouts: 0,
            eval_error: None,
            claimed_leaf: false,
            criticality: CriticalityTally::default(),
        }
    }

    /// Runs `N` iterations from `root` (the root node must already be expanded) with
    /// their playouts in flight together (`leaves = N`): `N` descents (virtual loss
    /// spreads them, so `T` must keep it for `N > 1`), then the `N` playouts at once
    /// through [`Playouts::playouts`](crate::games::Playouts::playouts), each lane on its own generator (the lanes' playouts are
    /// independent chains the core overlaps), then `N` backups. One lane is the plain
    /// iteration: `rng` serves its tree and its playout. `SOLVER` must equal
    /// `params.solver`: a compile-time flag keeps the solver's checks out of the plain
    /// search loop.
    // Always inlined, like `descend`, `back_up` and `PlayoutPolicy::play_out`: left to
    // the compiler they became calls in the shared-tree loop, and tree-parallel Connect
    // Four at 1 thread ran 7 % slower (`parmcts bench --game connect4 --modes seq,tree`).
    #[inline(always)]
    pub(crate) fn iterate<G: SearchGame, T: TreeOps, const SOLVER: bool, const N: usize>(
        &mut self,
        tree: &mut T,
        root: &G,
        params: IterationParams<'_, G>,
    ) {
        const { assert!(N >= 1 && N <= MAX_LANES) };
        debug_assert!(T::VIRTUAL_LOSS || N == 1, "lanes need virtual loss to spread");
        let mut states = std::array::from_fn(|_| root.clone());
        let mut exact = [None; N];
        for lane in 0..N {
            (states[lane], exact[lane]) = self.descend::<G, T, SOLVER, Select>(tree, root, params, lane, &mut Select);
        }
        let (policy, recorded) = playout_policy(params);
        let rngs: &mut [Xoshiro256PlusPlus] =
            if N == 1 { std::slice::from_mut(&mut self.rng) } else { &mut self.lane_rngs[..N] };
        let rngs: &mut [Xoshiro256PlusPlus; N] = rngs.try_into().expect("N generators (N <= MAX_LANES)");
        if let Some(evaluator) = params.evaluator {
            let played = &mut self.played;
            let outcomes: [Result<Outcome, EvalError>; N] = std::array::from_fn(|lane| match exact[lane] {
                Some(outcome) => Ok(outcome),
                None => evaluate_leaf(&mut states[lane], evaluator, params, &mut rngs[lane], &mut played[lane]),
            });
            for (lane, outcome) in outcomes.into_iter().enumerate() {
                match outcome {
                    Ok(outcome) => self.back_up::<T, SOLVER>(tree, params, lane, outcome, exact[lane].is_some()),
                    // Not backed up: the search stops with the error, its tree as it was.
                    Err(error) => {
                        self.abandon_lane(tree, params, lane);
                        self.eval_error.get_or_insert(error);
                    }
                }
            }
            return;
        }
        let outcomes: [Outcome; N] = if !recorded && exact.iter().all(Option::is_none) {
            G::playouts(&mut states, rngs, policy)
        } else {
            let played = &mut self.played;
            std::array::from_fn(|lane| match exact[lane] {
                Some(outcome) => outcome,
                None if recorded => {
                    played[lane].clear();
                    states[lane].recorded_playout(&mut rngs[lane], policy, &mut played[lane])
                }
                None => policy.play_out(&mut states[lane], &mut rngs[lane]),
            })
        };
        for lane in 0..N {
            self.back_up::<T, SOLVER>(tree, params, lane, outcomes[lane], exact[lane].is_some());
        }
        for lane in (0..N).filter(|&lane| exact[lane].is_none()) {
            self.count_criticality(&states[lane], outcomes[lane], params);
        }
    }

    /// Counts a finished playout's board `state` and its `outcome` in the search's
    /// criticality table, where it has one (`crit` > 0). Not with an evaluator: its
    /// leaves are valued without a playout to the end (or with one at a weight).
    #[inline(always)]
    fn count_criticality<G: SearchGame>(&mut self, state: &G, outcome: Outcome, params: IterationParams<'_, G>) {
        if let (Some((table, _)), None) = (params.criticality, params.evaluator) {
            self.criticality.count(state, outcome, table);
        }
    }

    /// Selection and expansion from `root` into `self.paths[lane]` (virtual loss on the
    /// way down where the tree keeps it), going down by `descent` ([`Select`] for the plain
    /// iteration): returns the position reached and, when the value there is known
    /// without a playout (a proven node or a finished game, with the solver), that
    /// outcome.
    #[inline(always)]
    pub(in crate::search) fn descend<G: SearchGame, T: TreeOps, const SOLVER: bool, D: Descent>(
        &mut self,
        tree: &mut T,
        root: &G,
        params: IterationParams<'_, G>,
        lane: usize,
        descent: &mut D,
    ) -> (G, Option<Outcome>) {
        debug_assert_eq!(SOLVER, params.solver);
        let mut path = std::mem::take(&mut self.paths[lane]);
        let in_flight = WalkMark::of::<T>(params);
        // Compile-time false for the exclusive tree: the sequential loop keeps no trace of it.
        let batching = T::SHARED && params.batch_min_visits != u32::MAX;
        let mut state = root.clone();
        let mut node = NodeId::ROOT;
        path.clear();
        // The root's "mover" is the player who moved before the root position. `own_vl`:
        // the virtual loss this worker put on `node` (none on batched nodes).
        contention::at_depth(0);
        let mut own_vl =
            enter(tree, &mut path, node, root.side_to_move().other(), batching, params.batch_min_visits, in_flight);
        // Set when the iteration ends on a node whose value is known without a playout.
        let mut exact: Option<Outcome> = None;
        loop {
            contention::at_depth(path.len() - 1);
            if SOLVER {
                let proof = tree.proof(node);
                if proof.is_known() {
                    exact = Some(outcome_of(proof, path[path.len() - 1].mover));
                    break;
                }
            }
            match tree.expansion(node) {
                Expansion::Expanded { first, count } if count > 0 => {
                    // The children's words, and the virtual loss on the one entered.
                    contention::at_depth(path.len());
                    let down = Down { params, in_flight, own_vl };
                    let chosen =
                        self.choose_child::<G, T, SOLVER, D>(tree, &state, &mut path, (first, count), down, descent);
                    let Some(child) = chosen else { break };
                    let mover = state.side_to_move();
                    state.play_unchecked(Move(tree.mv(child)));
                    own_vl = enter(tree, &mut path, child, mover, batching, params.batch_min_visits, in_flight);
                    node = child;
                    if descent.stops_at(tree, &path) {
                        break;
                    }
                }
                // A leaf for good (terminal, or the arena was full), or another thread is
                // building the children: play out from here rather than wait.
                Expansion::Expanded { .. } | Expansion::Expanding => break,
                Expansion::Unexpanded => {
                    let must = path.len() <= descent.forced_plies();
                    let down = Down { params, in_flight, own_vl };
                    match self.expand_at::<G, T, SOLVER>(tree, &state, &path, down, must) {
                        ControlFlow::Continue(()) => {}
                        ControlFlow::Break(found) => {
                            exact = found;
                            break;
                        }
                    }
                }
            }
        }
        self.max_depth = self.max_depth.max(path.len() as u32 - 1);
        self.paths[lane] = path;
        (state, exact)
    }

    /// The child of the last node of `path` (expanded, its `children` the block
    /// `(first, count)`) that the walk enters: the forced move where `descent` has one
    /// (`None` when it is not a move here), else by selection (at a chance turn, by the
    /// outcome's weight).
    #[inline(always)]
    fn choose_child<G: SearchGame, T: TreeOps, const SOLVER: bool, D: Descent>(
        &mut self,
        tree: &mut T,
        state: &G,
        path: &mut [Step],
        (first, count): (NodeId, u32),
        down: Down<'_, G>,
        descent: &D,
    ) -> Option<NodeId> {
        let last = path.len() - 1;
        let node = path[last].node;
        if let Some(mv) = descent.forced(last) {
            path[last].chance = state.turn() == Turn::Chance;
            // Not a move here: the other rank's tree never sends one.
            return child_with_move(tree, first, count, mv);
        }
        Some(match state.turn() {
            Turn::Player(_) => select_child::<T, SOLVER>(tree, node, first, count, down.params.uct, down.own_vl),
            Turn::Chance => {
                path[last].chance = true;
                match down.params.chance {
                    ChanceSelection::Sample => sample_chance_child(tree, state, first, count, &mut self.rng),
                    ChanceSelection::Walk => walk_chance_child(tree, state, first, count, down.in_flight),
                }
            }
        })
    }

    /// At the unexpanded last node of `path`: proves a finished game (solver), or claims
    /// the node and expands it (`must`: whatever its visits), asking the game's exact
    /// solver first where set. `Continue` when its children are published and the walk
    /// goes on; `Break` with the node's exact value, if known, when the walk ends here.
    #[inline(always)]
    fn expand_at<G: SearchGame, T: TreeOps, const SOLVER: bool>(
        &mut self,
        tree: &mut T,
        state: &G,
        path: &[Step],
        down: Down<'_, G>,
        must: bool,
    ) -> ControlFlow<Option<Outcome>> {
        let (node, mover, params) = (path[path.len() - 1].node, path[path.len() - 1].mover, down.params);
        if SOLVER {
            // A finished game is proven at its first visit: claim it and publish it as
            // a leaf with its value.
            if let Some(outcome) = state.outcome() {
                if tree.try_claim(node) {
                    tree.publish(node, NodeId(0), 0);
                    tree.prove(node, Proof::from_half_points(outcome.half_points(mover)));
                }
                return ControlFlow::Break(Some(outcome));
            }
        }
        // The visits include the virtual loss of the other walks in flight here: they
        // count towards the threshold (most play out from here; one that has not looked
        // yet may go below once the children are published, which invariant 3 allows
        // for); this walk's own does not.
        if (!must && tree.stats(node).visits - down.in_flight.in_visits(down.own_vl) < params.expand_threshold)
            || !tree.try_claim(node)
        {
            return ControlFlow::Break(None);
        }
        if SOLVER && params.endgame_leaf_nodes > 0 {
            // The game's exact solver, once per node, at its expansion: a settled node
            // becomes a proven leaf, as a finished game does.
            if let Some(solved) = state.solve_endgame(params.endgame_leaf_nodes) {
                tree.publish(node, NodeId(0), 0);
                tree.prove(node, Proof::from_half_points(solved.outcome.half_points(mover)));
                return ControlFlow::Break(Some(solved.outcome));
            }
        }
        if params.defers_expansion() && state.outcome().is_none() {
            // The node stays claimed: the batch's answer brings its priors.
            self.claimed_leaf = true;
            return ControlFlow::Break(None);
        }
        let implicit = params.implicit_evaluator();
        match expand(tree, node, state, Some(&mut self.rng), params.priors(), implicit, params.child_layout()) {
            Expanded::Children => ControlFlow::Continue(()),
            Expanded::Leaf => ControlFlow::Break(None),
            Expanded::ArenaFull => {
                self.arena_full = true;
                ControlFlow::Break(None)
            }
        }
    }

    /// Backs up `outcome` along `self.paths[lane]` (removing its virtual loss), proves
    /// the path's ancestors when the value was `exact` (solver), and feeds RAVE the lane's
    /// recorded moves.
    #[inline(always)]
    pub(in crate::search) fn back_up<T: TreeOps, const SOLVER: bool>(
        &mut self,
        tree: &mut T,
        params: IterationParams<'_, impl Game>,
        lane: usize,
        outcome: Outcome,
        exact: bool,
    ) {
        let in_flight = WalkMark::of::<T>(params);
        let batching = T::SHARED && params.batch_min_visits != u32::MAX;
        let path = std::mem::take(&mut self.paths[lane]);
        for (depth, step) in path.iter().enumerate() {
            contention::at_depth(depth);
            let half_points = outcome.half_points(step.mover);
            if batching && step.batched {
                self.defer(tree, step.node, half_points);
            } else {
                in_flight.record(tree, step.node, half_points);
            }
        }
        contention::no_depth();
        if SOLVER && exact {
            prove_ancestors(tree, &path);
        }
        if params.uct.implicit > 0.0 {
            if exact {
                let leaf = path[path.len() - 1];
                tree.set_value(leaf.node, result_value(outcome, leaf.mover));
            }
            back_up_values(tree, &path);
        }
        if params.uct.rave > 0.0 {
            if exact {
                self.played[lane].clear();
            }
            update_amaf(tree, &path, outcome, &mut self.played[lane], &mut self.root_amaf);
        }
        self.paths[lane] = path;
        self.playouts += 1;
    }

    /// Adds a playout to the batched updates of `id`; a different node in its slot is
    /// written to the tree first.
    #[inline]
    fn defer<T: TreeOps>(&mut self, tree: &mut T, id: NodeId, half_points: u32) {
        // Fibonacci hashing: the top bits of the product spread nearby indices.
        let slot = (id.0.wrapping_mul(0x9E37_79B9) >> (32 - PENDING_SLOTS.trailing_zeros())) as usize;
        let entry = &mut self.pending[slot];
        if entry.node != id {
            if entry.playouts != 0 {
                tree.record_batch(entry.node, entry.playouts, entry.half_points);
            }
            *entry = Pending { node: id, playouts: 0, half_points: 0 };
        }
        entry.playouts += 1;
        entry.half_points += half_points;
    }

    /// Writes the batched updates to the tree: one atomic add per node.
    pub(crate) fn flush<T: TreeOps>(&mut self, tree: &mut T) {
        contention::no_depth();
        for entry in self.pending.iter_mut().filter(|e| e.playouts != 0) {
            tree.record_batch(entry.node, entry.playouts, entry.half_points);
            entry.playouts = 0;
            entry.half_points = 0;
        }
        if !self.root_amaf.is_empty() {
            if let Expansion::Expanded { first, count } = tree.expansion(NodeId::ROOT) {
                let pending = &self.root_amaf;
                tree.add_amaf(first, count, |i, _| pending[i]);
            }
            self.root_amaf.clear();
        }
    }
}

/// How a walk marks the nodes it is in flight through: `weight` per walk (0: not at all),
/// as virtual loss (visits scoring nothing, in the node's stats) or, for WU-UCT, as
/// unobserved playouts kept apart.
#[derive(Clone, Copy, Debug)]
struct WalkMark {
    weight: u32,
    unobserved: bool,
}

impl WalkMark {
    /// The search's choice on tree `T` (a tree without virtual loss marks nothing).
    #[inline(always)]
    fn of<T: TreeOps>(params: IterationParams<'_, impl Game>) -> WalkMark {
        WalkMark { weight: if T::VIRTUAL_LOSS { params.virtual_loss } else { 0 }, unobserved: params.uct.wu_uct }
    }

    /// Marks one walk in flight on `node`, `weight` times.
    #[inline(always)]
    fn add<T: TreeOps>(self, tree: &mut T, node: NodeId) {
        if self.unobserved {
            tree.add_unobserved(node, self.weight);
        } else {
            tree.add_virtual_loss(node, self.weight);
        }
    }

    /// Records the walk's result on `node` and takes its mark back (as virtual loss, in
    /// the same add).
    #[inline(always)]
    fn record<T: TreeOps>(self, tree: &mut T, node: NodeId, half_points: u32) {
        if self.unobserved {
            tree.record(node, half_points, 0);
            if self.weight != 0 {
                tree.remove_unobserved(node, self.weight);
            }
        } else {
            tree.record(node, half_points, self.weight);
        }
    }

    /// Takes one walk's mark off `node` without a result (the walk was valued elsewhere).
    #[inline]
    fn withdraw<T: TreeOps>(self, tree: &mut T, node: NodeId) {
        match (self.weight, self.unobserved) {
            (0, _) => {}
            (weight, true) => tree.remove_unobserved(node, weight),
            (weight, false) => tree.remove_virtual_loss(node, weight),
        }
    }

    /// Of `own`, the mark a walk put on a node, the part that is in the node's visits.
    #[inline(always)]
    fn in_visits(self, own: u32) -> u32 {
        if self.unobserved {
            0
        } else {
            own
        }
    }

    /// The walks in flight through `node` counted apart from its visits (WU-UCT's).
    #[inline]
    fn apart<T: TreeOps>(self, tree: &mut T, node: NodeId) -> u32 {
        if self.unobserved {
            tree.unobserved(node).checked_div(self.weight).unwrap_or(0)
        } else {
            0
        }
    }
}

/// What a walk's descent reads at every node, fixed for the walk.
struct Down<'p, G: Game> {
    params: IterationParams<'p, G>,
    in_flight: WalkMark,
    /// The virtual loss this walk put on the node it is at.
    own_vl: u32,
}

// By hand: derived, they would ask `G: Copy`.
impl<G: Game> Clone for Down<'_, G> {
    fn clone(&self) -> Self {
        *self
    }
}

impl<G: Game> Copy for Down<'_, G> {}

/// Steps onto `node`, entered by `mover`'s move: pushes it on `path` and marks the walk
/// in flight there ([`WalkMark`]) unless its backups are batched. Returns the weight added.
#[inline(always)]
fn enter<T: TreeOps>(
    tree: &mut T,
    path: &mut Vec<Step>,
    node: NodeId,
    mover: Player,
    batching: bool,
    batch_min_visits: u32,
    in_flight: WalkMark,
) -> u32 {
    let batched = batching && tree.stats(node).visits >= batch_min_visits;
    let own_vl = if batched { 0 } else { in_flight.weight };
    if own_vl != 0 {
        in_flight.add(tree, node);
    }
    path.push(Step { node, mover, batched, chance: false });
    own_vl
}

/// Of the `count` children from `first`, the one entered by move `mv`, if any.
#[inline]
pub(crate) fn child_with_move<T: TreeOps>(tree: &mut T, first: NodeId, count: u32, mv: u16) -> Option<NodeId> {
    (first.0..first.0 + count).map(NodeId).find(|&child| tree.mv(child) == mv)
}

/// The child of `parent` entered by move `mv`, if `parent` is expanded and has one.
pub(crate) fn child_by_move<T: TreeOps>(tree: &mut T, parent: NodeId, mv: u16) -> Option<NodeId> {
    match tree.expansion(parent) {
        Expansion::Expanded { first, count } => child_with_move(tree, first, count, mv),
        _ => None,
    }
}
