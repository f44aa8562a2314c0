//! One MCTS iteration — select, expand, simulate, back up — generic over [`TreeOps`], so
//! the sequential baseline and the tree-parallel workers run the same code.

use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::evaluator::{afterstate_value, best_afterstate, Evaluator, NTupleNetwork};
use crate::games::{
    random_below, sample_weighted, Move, MovesPlayed, Outcome, Player, PlayoutPolicy, SearchGame, Turn,
};
use crate::policy::select_child;
use crate::tree::{contention, Expansion, NodeId, Proof, Stats, TreeOps};

use super::options::ChanceSelection;
use super::params::{IterationParams, Priors};

/// The most playouts one worker keeps in flight (`leaves`).
pub const MAX_LEAVES: usize = 4;

/// The playout policy of `params`, and whether its playouts go through
/// [`Playouts::recorded_playout`](crate::games::Playouts::recorded_playout) (RAVE needs the moves; pruning has no faster path).
fn playout_policy(params: IterationParams<'_>) -> (PlayoutPolicy<'_>, bool) {
    let policy = PlayoutPolicy { biased: params.biased_playouts, prune: params.prune, gammas: params.gammas };
    (policy, params.uct.rave > 0.0 || params.prune)
}

/// The most moves a node's priors are computed for (more: no priors for that node).
const MAX_PRIOR_MOVES: usize = 256;

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
    paths: [Vec<Step>; MAX_LEAVES],
    /// The generators of the lanes' playouts when `leaves > 1` (with one lane, `rng`
    /// serves the tree and the playout).
    lane_rngs: [Xoshiro256PlusPlus; MAX_LEAVES],
    /// Batched backups not yet written to the tree, direct-mapped by node: a lookup is
    /// one hash (scanning a 64-entry list cost 150-300 instructions per iteration at 2
    /// threads on Connect Four).
    pending: Box<[Pending]>,
    /// RAVE: the moves each player made from the current level of the path down.
    played: [MovesPlayed; MAX_LEAVES],
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

/// A walk in flight: started by [`Worker::start_walk`] (its path, with its virtual loss,
/// is in the worker's lane 0), its playout and back-up still to come
/// ([`Worker::finish_walk`]).
#[derive(Clone, Debug)]
pub(crate) struct Walk<G> {
    /// The position the walk reached.
    state: G,
    /// Its value when known without a playout (a proven node or, with the solver, a
    /// finished game).
    exact: Option<Outcome>,
    /// The rank that owns the node the walk stopped at, when that is another rank's (a
    /// partitioned distributed search, [`Partition`]): the walk is valued there.
    owner: Option<u32>,
}

impl<G> Walk<G> {
    /// Whether the walk's value is known without a playout (it needs no evaluation).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn is_exact(&self) -> bool {
        self.exact.is_some()
    }

    /// The other rank that owns the node the walk stopped at, if it did ([`Partition`]).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn owner(&self) -> Option<u32> {
        self.owner
    }
}

/// The value of a leaf with the evaluator `network` (`params.network`), as an outcome
/// to back up: the result of a finished game, else the network's value mixed with a
/// playout's result by `params.eval_weight` ([`mixed_outcome`]; no playout at λ = 1).
/// `played` gets the playout's moves for RAVE (none without a playout).
#[inline]
fn evaluate_leaf<G: SearchGame, R: RngCore>(
    state: &mut G,
    network: &NTupleNetwork,
    params: IterationParams<'_>,
    rng: &mut R,
    played: &mut MovesPlayed,
) -> Outcome {
    played.clear();
    if let Some(outcome) = state.outcome() {
        return outcome;
    }
    let value = negamax_value(state, network, params.eval_depth);
    let mover = state.side_to_move();
    let (policy, recorded) = playout_policy(params);
    let playout = (params.eval_weight < 1.0).then(|| {
        if recorded {
            state.recorded_playout(rng, policy, played)
        } else {
            policy.play_out(state, rng)
        }
    });
    mixed_outcome(value, playout, params.eval_weight, mover, rng)
}

/// The win probability of the side to move in `state` (not over) by a `depth`-ply
/// negamax on `network`'s values ([`crate::evaluator::afterstate_value`] turns each
/// child's value into the mover's: kept when the opponent must pass, exact when the game
/// ends). Depth 0 is the network's value.
fn negamax_value<G: SearchGame>(state: &G, network: &NTupleNetwork, depth: u32) -> f32 {
    if depth == 0 {
        return network.value(state);
    }
    best_afterstate(state, |g| negamax_value(g, network, depth - 1)).map_or(0.0, |(_, _, value)| value)
}

/// A leaf's value as an outcome to back up: `λ·value + (1 − λ)·playout` for `mover` (the
/// side to move at the leaf; `value` is its win probability), in half points rounded
/// stochastically (up with the probability of the fraction), so that the expected half
/// points are exact: the tree's statistics stay integers, and a mixed value adds at
/// most 1/4 half-point² of variance per visit, against up to 1 for a playout.
fn mixed_outcome<R: RngCore>(value: f32, playout: Option<Outcome>, lambda: f32, mover: Player, rng: &mut R) -> Outcome {
    let half_points = match playout {
        Some(outcome) => 2.0 * lambda * value + (1.0 - lambda) * outcome.half_points(mover) as f32,
        None => 2.0 * value,
    }
    .clamp(0.0, 2.0);
    let floor = half_points.floor();
    // 24 random bits against the fraction: exact to f32's precision.
    let up = ((rng.next_u32() >> 8) as f32) < (half_points - floor) * (1 << 24) as f32;
    match floor as u32 + u32::from(up) {
        0 => Outcome::Win(mover.other()),
        1 => Outcome::Draw,
        _ => Outcome::Win(mover),
    }
}

/// Seeds worker `index` from `(seed, index)`: distinct, reproducible streams.
pub(crate) fn worker_rng(seed: u64, index: usize) -> Xoshiro256PlusPlus {
    // SplitMix-style spreading of the index so nearby seeds give unrelated streams.
    let mixed = seed ^ (index as u64 + 1).wrapping_mul(0x9E37_79B9_7F4A_7C15);
    Xoshiro256PlusPlus::seed_from_u64(mixed)
}

impl Worker {
    pub fn new(seed: u64, index: usize) -> Worker {
        Worker {
            rng: worker_rng(seed, index),
            paths: std::array::from_fn(|_| Vec::with_capacity(256)),
            lane_rngs: std::array::from_fn(|lane| worker_rng(seed ^ LANE_SEEDS, index * MAX_LEAVES + lane)),
            pending: vec![Pending::EMPTY; PENDING_SLOTS].into_boxed_slice(),
            played: [MovesPlayed::default(); MAX_LEAVES],
            root_amaf: Vec::new(),
            max_depth: 0,
            arena_full: false,
            playouts: 0,
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
    pub fn iterate<G: SearchGame, T: TreeOps, const SOLVER: bool, const N: usize>(
        &mut self,
        tree: &mut T,
        root: &G,
        params: IterationParams<'_>,
    ) {
        const { assert!(N >= 1 && N <= MAX_LEAVES) };
        debug_assert!(T::VIRTUAL_LOSS || N == 1, "lanes need virtual loss to spread");
        let mut states = std::array::from_fn(|_| root.clone());
        let mut exact = [None; N];
        for lane in 0..N {
            (states[lane], exact[lane], _) = self.descend::<G, T, SOLVER>(tree, root, params, lane, &[]);
        }
        let (policy, recorded) = playout_policy(params);
        let rngs: &mut [Xoshiro256PlusPlus] =
            if N == 1 { std::slice::from_mut(&mut self.rng) } else { &mut self.lane_rngs[..N] };
        let rngs: &mut [Xoshiro256PlusPlus; N] = rngs.try_into().expect("N generators (N <= MAX_LEAVES)");
        if let Some(network) = params.network {
            let played = &mut self.played;
            let outcomes: [Outcome; N] = std::array::from_fn(|lane| match exact[lane] {
                Some(outcome) => outcome,
                None => evaluate_leaf(&mut states[lane], network, params, &mut rngs[lane], &mut played[lane]),
            });
            for lane in 0..N {
                self.back_up::<T, SOLVER>(tree, params, lane, outcomes[lane], exact[lane].is_some());
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
    }

    /// The first half of a one-lane iteration: selection and expansion from `root` into
    /// lane 0's path, virtual loss added on the way down where `T` keeps it. The walk is
    /// then in flight until [`Worker::finish_walk`]; a worker has at most one.
    ///
    /// `start_walk` then `finish_walk` is `iterate::<.., 1>` split in two, drawing the
    /// same numbers in the same order (tested: one virtual thread is the sequential
    /// search). `iterate` does not call them: written so, the sequential Connect Four
    /// loop ran 88 more instructions per iteration (0.5 %; cachegrind, 40,000 playouts).
    #[inline(always)]
    pub(crate) fn start_walk<G: SearchGame, T: TreeOps, const SOLVER: bool>(
        &mut self,
        tree: &mut T,
        root: &G,
        params: IterationParams<'_>,
    ) -> Walk<G> {
        let (state, exact, owner) = self.descend::<G, T, SOLVER>(tree, root, params, 0, &[]);
        Walk { state, exact, owner }
    }

    /// [`Worker::start_walk`] that first follows `moves` from `root` (expanding the nodes
    /// on the way where they are not yet), then selects as usual: a partitioned
    /// distributed search's walk that another rank started and this rank owns the end of.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn start_walk_along<G: SearchGame, T: TreeOps, const SOLVER: bool>(
        &mut self,
        tree: &mut T,
        root: &G,
        params: IterationParams<'_>,
        moves: &[u16],
    ) -> Walk<G> {
        let (state, exact, owner) = self.descend::<G, T, SOLVER>(tree, root, params, 0, moves);
        Walk { state, exact, owner }
    }

    /// Ends this worker's walk in flight without a result: takes its virtual loss back
    /// along lane 0's path. The walk was valued and backed up on another rank.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn abandon_walk<T: TreeOps>(&mut self, tree: &mut T, params: IterationParams<'_>) {
        let in_flight = InFlight::of::<T>(params);
        for step in self.paths[0].iter().filter(|step| !step.batched) {
            in_flight.withdraw(tree, step.node);
        }
    }

    /// The second half of a one-lane iteration: the playout of `walk` on `rng` (none when
    /// its value is exact), then the back-up along lane 0's path, which removes the
    /// walk's virtual loss. `walk` must be this worker's walk in flight.
    #[inline(always)]
    pub(crate) fn finish_walk<G: SearchGame, T: TreeOps, const SOLVER: bool>(
        &mut self,
        tree: &mut T,
        params: IterationParams<'_>,
        walk: Walk<G>,
    ) {
        self.finish_walk_returning::<G, T, SOLVER>(tree, params, walk);
    }

    /// [`Worker::finish_walk`], returning the walk's result.
    #[inline(always)]
    pub(crate) fn finish_walk_returning<G: SearchGame, T: TreeOps, const SOLVER: bool>(
        &mut self,
        tree: &mut T,
        params: IterationParams<'_>,
        walk: Walk<G>,
    ) -> Outcome {
        let Walk { mut state, exact, .. } = walk;
        let outcome = match exact {
            Some(outcome) => outcome,
            None => self.value_leaf(&mut state, params),
        };
        self.back_up::<T, SOLVER>(tree, params, 0, outcome, exact.is_some());
        outcome
    }

    /// The value of a leaf not known exactly, on `rng`: the evaluator's (mixed with a
    /// playout by λ) or a playout's result. Lane 0's recorded moves get the playout's
    /// (RAVE). A farm's other ranks value the leaves they are sent with it.
    #[inline(always)]
    pub(crate) fn value_leaf<G: SearchGame>(&mut self, state: &mut G, params: IterationParams<'_>) -> Outcome {
        let (policy, recorded) = playout_policy(params);
        match params.network {
            Some(network) => evaluate_leaf(state, network, params, &mut self.rng, &mut self.played[0]),
            None if recorded => {
                self.played[0].clear();
                state.recorded_playout(&mut self.rng, policy, &mut self.played[0])
            }
            None => {
                let [outcome] = G::playouts(std::array::from_mut(state), std::array::from_mut(&mut self.rng), policy);
                outcome
            }
        }
    }

    /// Finishes this worker's walk in flight with `outcome` and the playout's `played`
    /// moves (RAVE), found elsewhere (a farm's other rank): the back-up along lane 0's
    /// path, as [`Worker::finish_walk`] after its playout.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn finish_walk_with<T: TreeOps, const SOLVER: bool>(
        &mut self,
        tree: &mut T,
        params: IterationParams<'_>,
        outcome: Outcome,
        played: MovesPlayed,
    ) {
        self.played[0] = played;
        self.back_up::<T, SOLVER>(tree, params, 0, outcome, false);
    }

    /// The moves of lane 0's last playout ([`Worker::value_leaf`]'s, for RAVE).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn played(&self) -> &MovesPlayed {
        &self.played[0]
    }

    /// The nodes of this worker's last walk (lane 0's path), each with the player who
    /// moved into it.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn walk_steps(&self) -> impl Iterator<Item = (NodeId, Player)> + '_ {
        self.paths[0].iter().map(|step| (step.node, step.mover))
    }

    /// The node `depth` plies below the root on this worker's last walk, if it got there.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn walk_node_at(&self, depth: usize) -> Option<NodeId> {
        self.paths[0].get(depth).map(|step| step.node)
    }

    /// With implicit minimax backups, gives the end of this worker's last walk the value
    /// `value` (found elsewhere: the rank that owns the node) and backs the values up the
    /// path.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn set_walk_value<T: TreeOps>(&mut self, tree: &mut T, params: IterationParams<'_>, value: f32) {
        if params.uct.implicit > 0.0 {
            if let Some(end) = self.paths[0].last() {
                tree.set_value(end.node, value);
                back_up_values(tree, &self.paths[0]);
            }
        }
    }

    /// The nodes on which this worker's walk in flight holds its mark (virtual loss or
    /// unobserved playouts): lane 0's path, less the batched nodes.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn walk_nodes_marked(&self) -> impl Iterator<Item = NodeId> + '_ {
        self.paths[0].iter().filter(|step| !step.batched).map(|step| step.node)
    }

    /// Appends the moves from the root to this worker's walk in flight (lane 0's path):
    /// replayed from the root, they reach the walk's position.
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn walk_moves<T: TreeOps>(&self, tree: &mut T, out: &mut Vec<u16>) {
        out.extend(self.paths[0][1..].iter().map(|step| tree.mv(step.node)));
    }

    /// Selection and expansion from `root` into `self.paths[lane]` (virtual loss on the
    /// way down where the tree keeps it): returns the position reached, when the value there
    /// is known without a playout (a proven node or a finished game, with the solver),
    /// that outcome, and when the walk stopped at a node another rank owns
    /// (`params.partition`), that rank. The first `forced.len()` plies follow `forced`
    /// instead of selecting (expanding the nodes on the way whatever their visits).
    #[inline(always)]
    fn descend<G: SearchGame, T: TreeOps, const SOLVER: bool>(
        &mut self,
        tree: &mut T,
        root: &G,
        params: IterationParams<'_>,
        lane: usize,
        forced: &[u16],
    ) -> (G, Option<Outcome>, Option<u32>) {
        debug_assert_eq!(SOLVER, params.solver);
        let mut path = std::mem::take(&mut self.paths[lane]);
        let in_flight = InFlight::of::<T>(params);
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
        // Set when it ends on a node another rank owns.
        let mut owner = None;
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
                    let last = path.len() - 1;
                    let child = match forced.get(last) {
                        Some(&mv) => {
                            path[last].chance = state.turn() == Turn::Chance;
                            match child_with_move(tree, first, count, mv) {
                                Some(child) => child,
                                // Not a move here (the other rank's tree never sends one).
                                None => break,
                            }
                        }
                        None => match state.turn() {
                            Turn::Player(_) => select_child::<T, SOLVER>(tree, node, first, count, params.uct, own_vl),
                            Turn::Chance => {
                                path[last].chance = true;
                                match params.chance {
                                    ChanceSelection::Sample => {
                                        sample_chance_child(tree, &state, first, count, &mut self.rng)
                                    }
                                    ChanceSelection::Walk => walk_chance_child(tree, &state, first, count, in_flight),
                                }
                            }
                        },
                    };
                    let mover = state.side_to_move();
                    state.play_unchecked(Move(tree.mv(child)));
                    own_vl = enter(tree, &mut path, child, mover, batching, params.batch_min_visits, in_flight);
                    node = child;
                    if let Some(partition) = params.partition {
                        if path.len() - 1 == partition.depth as usize && forced.is_empty() {
                            let at = partition.owner(path[1..].iter().map(|step| tree.mv(step.node)));
                            if at != partition.rank {
                                owner = Some(at);
                                break;
                            }
                        }
                    }
                }
                // A leaf for good (terminal, or the arena was full), or another thread is
                // building the children: play out from here rather than wait.
                Expansion::Expanded { .. } | Expansion::Expanding => break,
                Expansion::Unexpanded => {
                    if SOLVER {
                        // A finished game is proven at its first visit: claim it and
                        // publish it as a leaf with its value.
                        if let Some(outcome) = state.outcome() {
                            if tree.try_claim(node) {
                                tree.publish(node, NodeId(0), 0);
                                let mover = path[path.len() - 1].mover;
                                tree.prove(node, Proof::from_half_points(outcome.half_points(mover)));
                            }
                            exact = Some(outcome);
                            break;
                        }
                    }
                    // The visits include the virtual loss of the other walks in flight here:
                    // they count towards the threshold (most play out from here; one that
                    // has not looked yet may go below once the children are published,
                    // which invariant 3 allows for); this walk's own does not.
                    let must = path.len() <= forced.len();
                    if (!must && tree.stats(node).visits - in_flight.in_visits(own_vl) < params.expand_threshold)
                        || !tree.try_claim(node)
                    {
                        break;
                    }
                    if SOLVER && params.endgame_leaf_nodes > 0 {
                        // The game's exact solver, once per node, at its expansion: a
                        // settled node becomes a proven leaf, as a finished game does.
                        if let Some(solved) = state.solve_endgame(params.endgame_leaf_nodes) {
                            tree.publish(node, NodeId(0), 0);
                            let mover = path[path.len() - 1].mover;
                            tree.prove(node, Proof::from_half_points(solved.outcome.half_points(mover)));
                            exact = Some(solved.outcome);
                            break;
                        }
                    }
                    let implicit = params.implicit_network();
                    match expand(tree, node, &state, Some(&mut self.rng), params.priors(), implicit, params.prune) {
                        Expanded::Children => {}
                        Expanded::Leaf => break,
                        Expanded::ArenaFull => {
                            self.arena_full = true;
                            break;
                        }
                    }
                }
            }
        }
        self.max_depth = self.max_depth.max(path.len() as u32 - 1);
        self.paths[lane] = path;
        (state, exact, owner)
    }

    /// Backs up `outcome` along `self.paths[lane]` (removing its virtual loss), proves
    /// the path's ancestors when the value was `exact` (solver), and feeds RAVE the lane's
    /// recorded moves.
    #[inline(always)]
    fn back_up<T: TreeOps, const SOLVER: bool>(
        &mut self,
        tree: &mut T,
        params: IterationParams<'_>,
        lane: usize,
        outcome: Outcome,
        exact: bool,
    ) {
        let in_flight = InFlight::of::<T>(params);
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
    pub fn flush<T: TreeOps>(&mut self, tree: &mut T) {
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
struct InFlight {
    weight: u32,
    unobserved: bool,
}

impl InFlight {
    /// The search's choice on tree `T` (a tree without virtual loss marks nothing).
    #[inline(always)]
    fn of<T: TreeOps>(params: IterationParams<'_>) -> InFlight {
        InFlight { weight: if T::VIRTUAL_LOSS { params.virtual_loss } else { 0 }, unobserved: params.uct.wu_uct }
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

/// Steps onto `node`, entered by `mover`'s move: pushes it on `path` and marks the walk
/// in flight there ([`InFlight`]) unless its backups are batched. Returns the weight added.
#[inline(always)]
fn enter<T: TreeOps>(
    tree: &mut T,
    path: &mut Vec<Step>,
    node: NodeId,
    mover: Player,
    batching: bool,
    batch_min_visits: u32,
    in_flight: InFlight,
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

/// The outcome a proven value stands for, given the player who moved into the node.
fn outcome_of(proof: Proof, mover: Player) -> Outcome {
    match proof {
        Proof::Win => Outcome::Win(mover),
        Proof::Loss => Outcome::Win(mover.other()),
        _ => Outcome::Draw,
    }
}

/// MCTS-Solver backup (Winands, Björnsson & Saito 2008), from the proven end of `path`
/// upwards: a node is proven as soon as one child is proven won for the player to move
/// there, or once every child is proven (its value is then the best child's). The first
/// node that cannot be proven ends the walk: nothing above it changed.
///
/// On a shared tree, proofs only ever get added, and every thread that proves a node
/// proves its true value, so racing provers write the same bits; a prover that reads a
/// sibling's proof too early just leaves the parent unproven for a later iteration.
pub(crate) fn prove_ancestors<T: TreeOps>(tree: &mut T, path: &[Step]) {
    for pair in path.windows(2).rev() {
        let (parent, child) = (pair[0], pair[1]);
        if parent.chance || !tree.proof(child.node).is_known() {
            return;
        }
        if tree.proof(parent.node).is_known() {
            continue;
        }
        let Expansion::Expanded { first, count } = tree.expansion(parent.node) else { return };
        // The children's proofs are for the player to move at `parent` (their mover).
        let mut best = Proof::Unknown;
        let mut all_known = true;
        tree.scan_children::<true, false>(first, count, false, |_, child| {
            let proof = child.proof;
            if proof.is_known() {
                best = best.max(proof);
            } else {
                all_known = false;
            }
            if proof == Proof::Win {
                std::ops::ControlFlow::Break(())
            } else {
                std::ops::ControlFlow::Continue(())
            }
        });
        if best != Proof::Win && !all_known {
            return;
        }
        let value = if parent.mover == child.mover { best } else { best.flip() };
        tree.prove(parent.node, value);
    }
}

/// A finished game's value for `player` as a win probability: 1, 0.5 or 0.
fn result_value(outcome: Outcome, player: Player) -> f32 {
    outcome.half_points(player) as f32 * 0.5
}

/// The value of a node for its mover from the best of its children's values for theirs:
/// the same when one player moves twice in a row, else its complement.
fn minimax_value(best_child: f32, child_mover: Player, mover: Player) -> f32 {
    if child_mover == mover {
        best_child
    } else {
        1.0 - best_child
    }
}

/// Implicit minimax backup (Lanctot et al. 2014), from the leaf's parent upwards: each
/// node's value becomes the best of its children's, seen from its mover. The first node
/// whose value does not change ends the walk: nothing above it changes either. Chance
/// nodes end it too (their value would be an expectation, not a maximum).
///
/// On a shared tree two backups through a node may race: each stores a maximum over the
/// children it read, and the later store wins; a value left stale by the race is put
/// right by the next backup through the node (`docs/CONCURRENCY.md`).
fn back_up_values<T: TreeOps>(tree: &mut T, path: &[Step]) {
    for pair in path.windows(2).rev() {
        let (parent, child) = (pair[0], pair[1]);
        if parent.chance {
            return;
        }
        let Expansion::Expanded { first, count } = tree.expansion(parent.node) else { return };
        let mut best = f32::NEG_INFINITY;
        tree.scan_children::<false, true>(first, count, false, |_, view| {
            best = best.max(view.value);
            std::ops::ControlFlow::Continue(())
        });
        let value = minimax_value(best, child.mover, parent.mover);
        if value == tree.value(parent.node) {
            return;
        }
        tree.set_value(parent.node, value);
    }
}

/// RAVE's all-moves-as-first backup (Gelly & Silver 2011): at each node of the path,
/// every child whose move the player to move there made at any later point of the
/// iteration (further down the path or in the playout) is credited with the result, as
/// if it had been played first. `played` holds the playout's moves on entry. On a shared
/// tree whose root is batched, the root's children's credits go to `root_pending` (see
/// [`Worker::flush`]).
fn update_amaf<T: TreeOps>(
    tree: &mut T,
    path: &[Step],
    outcome: Outcome,
    played: &mut MovesPlayed,
    root_pending: &mut Vec<u64>,
) {
    for pair in path.windows(2).rev() {
        let (parent, child) = (pair[0], pair[1]);
        let mover = child.mover;
        played.insert(mover, Move(tree.mv(child.node)));
        if parent.chance {
            continue;
        }
        let Expansion::Expanded { first, count } = tree.expansion(parent.node) else { continue };
        let one = Stats::one_playout(outcome.half_points(mover));
        let played = &*played;
        let credit = |_, mv| one * played.bit(mover, Move(mv));
        if T::SHARED && parent.batched && parent.node == NodeId::ROOT {
            root_pending.resize(count as usize, 0);
            for (i, pending) in root_pending.iter_mut().enumerate() {
                *pending += credit(i, tree.mv(NodeId(first.0 + i as u32)));
            }
        } else {
            tree.add_amaf(first, count, credit);
        }
    }
}

/// What [`expand`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Expanded {
    /// The children are published.
    Children,
    /// The position is over: published as a leaf with no children.
    Leaf,
    /// No room in the arena: published as a leaf with no children.
    ArenaFull,
}

/// Builds and publishes the children of a node this thread has claimed.
///
/// With `shuffle`, the children are laid out in a random order: selection then takes the
/// first unvisited child and breaks exact UCB ties by position, which is the same as a
/// uniformly random choice but stops scanning early and needs no generator call per
/// selection (measured on Connect Four: half the branch misses of a reservoir draw). Root
/// children stay in move-generation order, so the trees of a root-parallel search line up.
///
/// With `prune`, only the moves [`Playouts::prune_moves`](crate::games::Playouts::prune_moves) keeps get children. With `priors`,
/// each child stores its move's share of the summed strengths, `P(m) = f(m) / Σ f`, for
/// progressive bias: `f` is [`Playouts::action_value`](crate::games::Playouts::action_value), or the learned gamma of the move's
/// feature when `priors` holds gammas.
///
/// With `implicit` (implicit minimax backups), each child gets the evaluator's value of
/// its position for its mover; `node`'s own value follows at the iteration's backup
/// ([`back_up_values`], which stops where a value does not change: set here, it would
/// stop there before the ancestors see it).
pub(crate) fn expand<G: SearchGame, T: TreeOps, R: RngCore>(
    tree: &mut T,
    node: NodeId,
    state: &G,
    shuffle: Option<&mut R>,
    priors: Option<Priors<'_>>,
    implicit: Option<&NTupleNetwork>,
    prune: bool,
) -> Expanded {
    let mut moves = state.legal_moves();
    let moves = moves.as_mut();
    // Pruned moves get no child at all (win-first / block-first).
    let moves = if prune && !moves.is_empty() {
        let kept = state.prune_moves(moves);
        &mut moves[..kept]
    } else {
        moves
    };
    if let Some(rng) = shuffle {
        for i in (1..moves.len()).rev() {
            moves.swap(i, random_below(rng, i as u32 + 1) as usize);
        }
    }
    let count = moves.len() as u32;
    if count == 0 {
        tree.publish(node, NodeId(0), 0);
        return Expanded::Leaf;
    }
    match tree.alloc(count) {
        Some(first) => {
            if let (Some(network), Turn::Player(to_move)) = (implicit, state.turn()) {
                for (i, &mv) in moves.iter().enumerate() {
                    let mut after = state.clone();
                    after.play_unchecked(mv);
                    tree.set_value(NodeId(first.0 + i as u32), afterstate_value(&after, to_move, |g| network.value(g)));
                }
            }
            let Some(priors) = priors.filter(|_| moves.len() <= MAX_PRIOR_MOVES) else {
                for (i, &mv) in moves.iter().enumerate() {
                    tree.init_child(NodeId(first.0 + i as u32), mv.0, 0);
                }
                tree.publish(node, first, count);
                return Expanded::Children;
            };
            // Unnormalised priors, on the stack (no allocation on the search's path).
            let mut weights = [0.0f32; MAX_PRIOR_MOVES];
            let weights = &mut weights[..moves.len()];
            match priors {
                Priors::Strengths(gammas) => {
                    let strengths = PlayoutPolicy { gammas, ..PlayoutPolicy::default() };
                    for (w, &m) in weights.iter_mut().zip(moves.iter()) {
                        *w = strengths.strength(state, m).max(0.0);
                    }
                }
                Priors::Evaluator(network) => {
                    if !Evaluator::priors(network, state, moves, weights) {
                        weights.fill(0.0);
                    }
                }
            }
            let total: f32 = weights.iter().sum();
            for (i, (&mv, &w)) in moves.iter().zip(weights.iter()).enumerate() {
                let prior = if total > 0.0 && total.is_finite() { (w / total * 65535.0).round() as u16 } else { 0 };
                tree.init_child(NodeId(first.0 + i as u32), mv.0, prior);
            }
            tree.publish(node, first, count);
            Expanded::Children
        }
        None => {
            // This node stays a leaf; the search goes on from the leaves.
            tree.publish(node, NodeId(0), 0);
            Expanded::ArenaFull
        }
    }
}

/// At a chance node the child is drawn by the game's chance weights, not by UCB.
fn sample_chance_child<G: SearchGame, T: TreeOps, R: RngCore>(
    tree: &mut T,
    state: &G,
    first: NodeId,
    count: u32,
    rng: &mut R,
) -> NodeId {
    let moves = state.legal_moves();
    let mv = sample_weighted(state, moves.as_ref(), rng);
    (0..count).map(|i| NodeId(first.0 + i)).find(|&c| tree.mv(c) == mv.0).unwrap_or(first)
}

/// At a chance node, walking the outcomes in proportion ([`ChanceSelection::Walk`]): the
/// child furthest below its share of the walks, counting the walks in flight through it
/// (in its visits, the weight each, as virtual loss; WU-UCT's unobserved count over the
/// weight per walk; none on a tree without virtual loss). Two passes over the children
/// (totals, then deficits), so any number of outcomes is weighed; on a
/// shared tree a count may move between the passes, which only shifts one choice.
fn walk_chance_child<G: SearchGame, T: TreeOps>(
    tree: &mut T,
    state: &G,
    first: NodeId,
    count: u32,
    in_flight: InFlight,
) -> NodeId {
    let children = (0..count).map(|i| NodeId(first.0 + i));
    let walks_and_weight = |tree: &mut T, child: NodeId| {
        let walks = f64::from(tree.stats(child).visits) + f64::from(in_flight.apart(tree, child));
        (walks, f64::from(state.chance_weight(Move(tree.mv(child))).max(0.0)))
    };
    let (mut total_walks, mut total_weight) = (1.0, 0.0);
    for child in children.clone() {
        let (walks, weight) = walks_and_weight(tree, child);
        total_walks += walks;
        total_weight += weight;
    }
    if total_weight <= 0.0 || !total_weight.is_finite() {
        return first;
    }
    let mut best = (first, f64::NEG_INFINITY);
    for child in children {
        let (walks, weight) = walks_and_weight(tree, child);
        let deficit = weight / total_weight * total_walks - walks;
        if deficit > best.1 {
            best = (child, deficit);
        }
    }
    best.0
}

#[cfg(test)]
mod leaf_value_tests {
    use super::*;

    #[test]
    fn mixed_outcomes_are_exact_at_the_ends_and_unbiased_between() {
        let mut rng = worker_rng(7, 0);
        let me = Player::One;
        // Certain values, with or without a playout, never draw a random outcome.
        assert_eq!(mixed_outcome(1.0, None, 1.0, me, &mut rng), Outcome::Win(me));
        assert_eq!(mixed_outcome(0.0, None, 1.0, me, &mut rng), Outcome::Win(me.other()));
        assert_eq!(mixed_outcome(0.5, None, 1.0, me, &mut rng), Outcome::Draw);
        assert_eq!(mixed_outcome(0.9, Some(Outcome::Win(me)), 0.0, me, &mut rng), Outcome::Win(me));
        // In between: the mean of the half points is the mix, 2·(λ·v + (1 − λ)·z).
        for (value, playout, lambda) in
            [(0.7, None, 1.0), (0.3, Some(Outcome::Win(me)), 0.5), (0.8, Some(Outcome::Win(me.other())), 0.25)]
        {
            let target =
                2.0 * lambda * value + (1.0 - lambda) * playout.map_or(0.0, |o: Outcome| o.half_points(me) as f64);
            let target = if playout.is_none() { 2.0 * value } else { target };
            let n = 200_000;
            let sum: u64 = (0..n)
                .map(|_| mixed_outcome(value as f32, playout, lambda as f32, me, &mut rng).half_points(me) as u64)
                .sum();
            let mean = sum as f64 / n as f64;
            // Each sample is one of two neighbouring values: sd <= 0.5, so 5 sd is 0.0056.
            assert!((mean - target).abs() < 0.006, "v {value} λ {lambda}: mean {mean}, expected {target}");
        }
    }
}

#[cfg(test)]
mod implicit_minimax_tests {
    use super::*;
    use crate::games::{Game, Othello};
    use crate::search::{Evaluation, Mode, Search, SearchConfig};
    use crate::tree::Arena;

    /// Walks the tree under `node` (position `state`, entered by `mover`) and checks each
    /// node's implicit minimax value: a child never visited keeps the evaluator's value of
    /// its position (or the exact result), an expanded node the best of its children's.
    fn check_values(arena: &mut Arena, node: NodeId, state: &Othello, mover: Player, network: &NTupleNetwork) -> f32 {
        let value = arena.value_plain(node);
        let mut tree = crate::tree::ExclusiveTree::<false>(arena);
        match tree.expansion(node) {
            Expansion::Expanded { first, count } if count > 0 => {
                let mut best = f32::NEG_INFINITY;
                for i in 0..count {
                    let child = NodeId(first.0 + i);
                    let mut after = *state;
                    after.play_unchecked(Move(tree.mv(child)));
                    best = best.max(check_values(tree.0, child, &after, state.side_to_move(), network));
                    tree = crate::tree::ExclusiveTree::<false>(arena);
                }
                // Othello alternates: a pass is the passing player's move.
                assert_eq!(
                    value,
                    1.0 - best,
                    "node {} is not the minimax of its children ({count}, first {})",
                    node.0,
                    first.0
                );
            }
            _ => {
                let expected = afterstate_value(state, mover, |g| network.value(g));
                assert!((value - expected).abs() < 1e-6, "leaf {}: {value}, expected {expected}", node.0);
            }
        }
        value
    }

    #[test]
    fn a_sequential_search_leaves_every_value_the_minimax_of_the_evaluator_below_it() {
        let network = NTupleNetwork::shipped::<Othello>().expect("Othello ships a network").unwrap();
        // Late in a game, so that some iterations reach finished games.
        let mut root = Othello::new();
        let mut rng = worker_rng(3, 0);
        for _ in 0..44 {
            let moves = root.legal_moves();
            root.play_unchecked(moves[random_below(&mut rng, moves.len() as u32) as usize]);
        }
        assert!(root.outcome().is_none());
        let config = SearchConfig::builder()
            .playouts(3000)
            .mode(Mode::Sequential)
            .eval(Evaluation::Shipped)
            .implicit(0.5)
            .build()
            .unwrap();
        let mut search = Search::new(config).unwrap();
        let result = search.run(&root).unwrap();
        assert_eq!(result.playouts, 3000);
        search.check_invariants().unwrap();
        let mover = root.side_to_move().other();
        let root_value = check_values(&mut search.arenas[0], NodeId::ROOT, &root, mover, &network);
        assert!(root_value > 0.0 && root_value < 1.0, "the root's value {root_value}");
    }
}

#[cfg(test)]
mod chance_walk_tests {
    use super::*;
    use crate::games::{Einstein, Game, Turn};
    use crate::search::{ChanceSelection, Mode, Search, SearchConfig};
    use crate::tree::{Arena, ExclusiveTree};

    /// Walks the tree under `node` (position `state`) and checks every expanded chance
    /// node's children: each outcome's walks are within one of its share (EinStein's die
    /// is fair). Returns the chance nodes checked.
    fn check_shares(arena: &mut Arena, node: NodeId, state: &Einstein) -> u32 {
        let mut tree = ExclusiveTree::<false>(arena);
        let Expansion::Expanded { first, count } = tree.expansion(node) else { return 0 };
        let children: Vec<(NodeId, Move, u32)> =
            (0..count).map(|i| NodeId(first.0 + i)).map(|c| (c, Move(tree.mv(c)), tree.stats(c).visits)).collect();
        let mut checked = 0;
        if state.turn() == Turn::Chance && count > 0 {
            let walks: u32 = children.iter().map(|c| c.2).sum();
            let share = f64::from(walks) / f64::from(count);
            for &(_, mv, visits) in &children {
                let off = (f64::from(visits) - share).abs();
                assert!(off < 1.0, "outcome {} walked {visits} times of {walks}", state.format_move(mv));
            }
            checked += 1;
        }
        for (child, mv, _) in children {
            let mut after = *state;
            after.play_unchecked(mv);
            checked += check_shares(arena, child, &after);
        }
        checked
    }

    #[test]
    fn walked_chance_nodes_share_their_walks_by_the_weights() {
        let root = Einstein::new();
        let config = SearchConfig::builder()
            .playouts(20_000)
            .mode(Mode::Sequential)
            .expand_threshold(1)
            .chance(ChanceSelection::Walk)
            .build()
            .unwrap();
        let mut search = Search::new(config).unwrap();
        search.run(&root).unwrap();
        search.check_invariants().unwrap();
        let checked = check_shares(&mut search.arenas[0], NodeId::ROOT, &root);
        assert!(checked > 1000, "only {checked} chance nodes expanded");
    }

    /// The rule itself with unequal weights: after every walk, each outcome's count is
    /// within one of `p_i · N`.
    #[test]
    fn the_walk_follows_unequal_weights() {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        struct Loaded;
        const WEIGHTS: [f32; 4] = [1.0, 2.0, 3.0, 6.0];
        impl Game for Loaded {
            const NAME: &'static str = "loaded";
            const HAS_CHANCE: bool = true;
            type Moves = crate::games::MoveList<4>;
            fn new() -> Self {
                Loaded
            }
            fn side_to_move(&self) -> Player {
                Player::One
            }
            fn turn(&self) -> Turn {
                Turn::Chance
            }
            fn outcome(&self) -> Option<Outcome> {
                None
            }
            fn legal_moves(&self) -> Self::Moves {
                (0..4).map(Move).collect()
            }
            fn chance_weight(&self, mv: Move) -> f32 {
                WEIGHTS[usize::from(mv.0)]
            }
            fn play_unchecked(&mut self, _mv: Move) {}
            fn hash(&self) -> u64 {
                0
            }
            fn parse_move(&self, text: &str) -> Result<Move, crate::games::GameError> {
                Err(crate::games::GameError::BadMove(text.to_string()))
            }
            fn format_move(&self, mv: Move) -> String {
                mv.0.to_string()
            }
        }
        impl crate::games::Playouts for Loaded {}
        impl crate::games::Tuning for Loaded {}
        impl crate::solver::Endgame for Loaded {}
        impl crate::evaluator::NTupleBoard for Loaded {}

        let mut arena = Arena::new(8).unwrap();
        let mut tree = ExclusiveTree::<false>(&mut arena);
        assert!(tree.try_claim(NodeId::ROOT));
        let first = tree.alloc(4).unwrap();
        for i in 0..4 {
            tree.init_child(NodeId(first.0 + i), i as u16, 0);
        }
        tree.publish(NodeId::ROOT, first, 4);
        let total: f32 = WEIGHTS.iter().sum();
        for n in 1..=1200u32 {
            let child = walk_chance_child(&mut tree, &Loaded, first, 4, InFlight { weight: 0, unobserved: false });
            tree.record(child, 2, 0);
            for i in 0..4 {
                let visits = tree.stats(NodeId(first.0 + i)).visits;
                let share = f64::from(WEIGHTS[i as usize] / total) * f64::from(n);
                assert!((f64::from(visits) - share).abs() < 1.0, "walk {n}: outcome {i} has {visits}, share {share}");
            }
        }
    }
}
