//! A walk as its own type: one one-lane iteration split in two, [`Worker::start_walk`]
//! (selection and expansion, virtual loss on the way down) and [`Worker::finish_walk`]
//! (the playout and the back-up), for drivers that keep walks in flight between the two
//! halves (the virtual-thread simulator, the distributed farm and split). How a walk
//! goes down is a [`Descent`], chosen at compile time: [`Select`], the plain descent of
//! every iteration, compiles to exactly what `iterate` runs; a driver that needs more (a
//! forced line, a partition of the tree between processes) brings its own.

use crate::games::{Outcome, SearchGame};
use crate::search::params::IterationParams;
use crate::tree::TreeOps;

use super::leaf::evaluate_leaf;
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
        params: IterationParams<'_>,
    ) -> Walk<G> {
        self.start_walk_by::<G, T, SOLVER, Select>(tree, root, params, &mut Select)
    }

    /// [`Worker::start_walk`] going down by `descent`.
    #[inline(always)]
    pub(crate) fn start_walk_by<G: SearchGame, T: TreeOps, const SOLVER: bool, D: Descent>(
        &mut self,
        tree: &mut T,
        root: &G,
        params: IterationParams<'_>,
        descent: &mut D,
    ) -> Walk<G> {
        let (state, exact) = self.descend::<G, T, SOLVER, D>(tree, root, params, 0, descent);
        Walk { state, exact }
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
        let Walk { mut state, exact } = walk;
        let outcome = match exact {
            Some(outcome) => outcome,
            None => self.value_leaf(&mut state, params),
        };
        self.back_up::<T, SOLVER>(tree, params, 0, outcome, exact.is_some());
        outcome
    }

    /// Ends this worker's walk in flight without a result: takes its virtual loss back
    /// along lane 0's path (the walk was valued and backed up elsewhere).
    // Only the distributed split abandons walks (theirs end on the ranks that own them);
    // kept here, with start and finish, as the third thing a walk does.
    #[allow(dead_code)]
    pub(crate) fn abandon_walk<T: TreeOps>(&mut self, tree: &mut T, params: IterationParams<'_>) {
        let in_flight = WalkMark::of::<T>(params);
        for step in self.paths[0].iter().filter(|step| !step.batched) {
            in_flight.withdraw(tree, step.node);
        }
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
}
