//! A walk as its own type: one one-lane iteration split in two, [`Worker::start_walk`]
//! (selection and expansion, virtual loss on the way down) and [`Worker::finish_walk`]
//! (the playout and the back-up), for drivers that keep walks in flight between the two
//! halves (the virtual-thread simulator, the distributed farm and split). How a walk
//! goes down is a [`Descent`], chosen at compile time: [`Select`], the plain descent of
//! every iteration, compiles to exactly what `iterate` runs; a driver that needs more (a
//! forced line, a partition of the tree between processes) brings its own.

use crate::evaluator::EvalError;
use crate::games::{Game, Move, Outcome, SearchGame};
use crate::search::params::{IterationParams, Priors};
use crate::tree::TreeOps;

use super::expand::expand;
use super::leaf::{evaluate_leaf, valued_outcome};
use super::{playout_policy, Step, WalkMark, Worker};

/// A walk in flight: started by [`Worker::start_walk`] (its path, with its virtual loss,
/// is in the worker's lane 0), its playout and back-up still to come
/// ([`Worker::finish_walk`]).
#[derive(Clone, Debug)]
pub(crate) struct Walk<G> {
    /// The position the walk reached.
    pub state: G,
    /// Its value when known without a playout (a proven node or, with the solver, a
    /// finished game).
    pub exact: Option<Outcome>,
    /// Whether the walk claimed its last node and left its expansion to the evaluator's
    /// answer ([`IterationParams::defers_expansion`]): [`Worker::finish_valued_walk`]
    /// expands it.
    pub claimed: bool,
}

/// How a walk goes down the tree, beyond selection: chosen at compile time, so that the
/// plain descent ([`Select`]) carries none of it.
pub(crate) trait Descent {
    /// The move the walk follows from the node `ply` plies below the root instead of
    /// selecting, if one is forced there. Default: none.
    #[inline(always)]
    fn forced(&self, ply: usize) -> Option<u16> {
        let _ = ply;
        None
    }

    /// The plies forced from the root: nodes on them are expanded whatever their visits.
    /// Default: none.
    #[inline(always)]
    fn forced_plies(&self) -> usize {
        0
    }

    /// Called after the walk entered the last node of `path` (the root first): whether it
    /// stops there because the node is another's to grow. Default: never.
    #[inline(always)]
    fn stops_at<T: TreeOps>(&mut self, tree: &mut T, path: &[Step]) -> bool {
        let _ = (tree, path);
        false
    }
}

/// The plain descent: selection all the way.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Select;

impl Descent for Select {}

impl Worker {
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
        params: IterationParams<'_, G>,
    ) -> Walk<G> {
        self.start_walk_by::<G, T, SOLVER, Select>(tree, root, params, &mut Select)
    }

    /// [`Worker::start_walk`] going down by `descent`.
    #[inline(always)]
    pub(crate) fn start_walk_by<G: SearchGame, T: TreeOps, const SOLVER: bool, D: Descent>(
        &mut self,
        tree: &mut T,
        root: &G,
        params: IterationParams<'_, G>,
        descent: &mut D,
    ) -> Walk<G> {
        let (state, exact) = self.descend::<G, T, SOLVER, D>(tree, root, params, 0, descent);
        Walk { state, exact, claimed: std::mem::take(&mut self.claimed_leaf) }
    }

    /// The second half of a one-lane iteration: the playout of `walk` on `rng` (none when
    /// its value is exact), then the back-up along lane 0's path, which removes the
    /// walk's virtual loss. `walk` must be this worker's walk in flight.
    #[inline(always)]
    pub(crate) fn finish_walk<G: SearchGame, T: TreeOps, const SOLVER: bool>(
        &mut self,
        tree: &mut T,
        params: IterationParams<'_, G>,
        walk: Walk<G>,
    ) {
        self.finish_walk_returning::<G, T, SOLVER>(tree, params, walk);
    }

    /// [`Worker::finish_walk`], returning the walk's result. When the evaluator fails,
    /// the walk is abandoned, the error kept in [`Worker::eval_error`] and a draw stands
    /// in for the result (the search stops with the error).
    #[inline(always)]
    pub(crate) fn finish_walk_returning<G: SearchGame, T: TreeOps, const SOLVER: bool>(
        &mut self,
        tree: &mut T,
        params: IterationParams<'_, G>,
        walk: Walk<G>,
    ) -> Outcome {
        let Walk { mut state, exact, .. } = walk;
        let outcome = match exact {
            Some(outcome) => outcome,
            None => match self.try_value_leaf(&mut state, params) {
                Ok(outcome) => {
                    self.count_criticality(&state, outcome, params);
                    outcome
                }
                Err(error) => {
                    self.abandon_lane(tree, params, 0);
                    self.eval_error.get_or_insert(error);
                    return Outcome::Draw;
                }
            },
        };
        self.back_up::<T, SOLVER>(tree, params, 0, outcome, exact.is_some());
        outcome
    }

    /// Finishes this worker's walk in flight with the value a batch's evaluation gave its
    /// leaf (the probability that its side to move wins) and, for a walk that `claimed`
    /// its leaf, the priors of the leaf's `moves`: expands the leaf with them, then backs
    /// the value up (mixed with a playout by λ).
    pub(crate) fn finish_valued_walk<G: SearchGame, T: TreeOps, const SOLVER: bool>(
        &mut self,
        tree: &mut T,
        params: IterationParams<'_, G>,
        mut walk: Walk<G>,
        value: f32,
        (moves, priors): (&[Move], &[f32]),
    ) {
        if walk.claimed {
            self.expand_claimed(tree, params, &walk.state, Priors::Given { moves, priors });
        }
        let outcome = valued_outcome(&mut walk.state, value, params, &mut self.rng, &mut self.played[0]);
        self.back_up::<T, SOLVER>(tree, params, 0, outcome, false);
    }

    /// Ends this worker's walk in flight without a result: expands the leaf it claimed,
    /// if any (with no priors), and takes its virtual loss back along lane 0's path.
    pub(crate) fn drop_walk<G: SearchGame, T: TreeOps>(
        &mut self,
        tree: &mut T,
        params: IterationParams<'_, G>,
        walk: &Walk<G>,
    ) {
        if walk.claimed {
            self.expand_claimed(tree, params, &walk.state, Priors::Given { moves: &[], priors: &[] });
        }
        self.abandon_lane(tree, params, 0);
    }

    /// Expands the node lane 0's walk claimed and left unexpanded (its last), at
    /// `state`, with `priors`.
    fn expand_claimed<G: SearchGame, T: TreeOps>(
        &mut self,
        tree: &mut T,
        params: IterationParams<'_, G>,
        state: &G,
        priors: Priors<'_, G>,
    ) {
        let node = self.paths[0][self.paths[0].len() - 1].node;
        debug_assert_eq!(tree.expansion(node), crate::tree::Expansion::Expanding, "a claimed node");
        let priors = params.priors().map(|_| priors);
        if expand(tree, node, state, Some(&mut self.rng), priors, None, params.child_layout())
            == super::Expanded::ArenaFull
        {
            self.arena_full = true;
        }
    }

    /// Ends this worker's walk in flight without a result: takes its virtual loss back
    /// along lane 0's path (the walk was valued and backed up elsewhere: the distributed
    /// split's walks end on the ranks that own them).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn abandon_walk<T: TreeOps>(&mut self, tree: &mut T, params: IterationParams<'_, impl Game>) {
        self.abandon_lane(tree, params, 0);
    }

    /// Takes the virtual loss of `lane`'s walk back along its path, without a result.
    pub(crate) fn abandon_lane<T: TreeOps>(
        &mut self,
        tree: &mut T,
        params: IterationParams<'_, impl Game>,
        lane: usize,
    ) {
        let in_flight = WalkMark::of::<T>(params);
        for step in self.paths[lane].iter().filter(|step| !step.batched) {
            in_flight.withdraw(tree, step.node);
        }
    }

    /// The value of a leaf not known exactly, on `rng`: the evaluator's (mixed with a
    /// playout by λ) or a playout's result. Lane 0's recorded moves get the playout's
    /// (RAVE). A farm's other ranks value the leaves they are sent with it: there, a
    /// failure of the evaluator is kept in [`Worker::eval_error`] and a draw stands in
    /// (the search stops with the error).
    #[cfg_attr(not(feature = "mpi"), allow(dead_code))]
    pub(crate) fn value_leaf<G: SearchGame>(&mut self, state: &mut G, params: IterationParams<'_, G>) -> Outcome {
        self.try_value_leaf(state, params).unwrap_or_else(|error| {
            self.eval_error.get_or_insert(error);
            Outcome::Draw
        })
    }

    /// [`Worker::value_leaf`], or the evaluator's failure.
    #[inline(always)]
    fn try_value_leaf<G: SearchGame>(
        &mut self,
        state: &mut G,
        params: IterationParams<'_, G>,
    ) -> Result<Outcome, EvalError> {
        let (policy, recorded) = playout_policy(params);
        Ok(match params.evaluator {
            Some(evaluator) => return evaluate_leaf(state, evaluator, params, &mut self.rng, &mut self.played[0]),
            None if recorded => {
                self.played[0].clear();
                state.recorded_playout(&mut self.rng, policy, &mut self.played[0])
            }
            None => {
                let [outcome] = G::playouts(std::array::from_mut(state), std::array::from_mut(&mut self.rng), policy);
                outcome
            }
        })
    }
}
