//! Which evaluator a search values its leaves with: the one the embedder set for the
//! game ([`Search::set_evaluator`](super::Search::set_evaluator)), else the n-tuple
//! network the `eval` setting names; and the root's priors when the leaves go in batches.

use std::any::Any;
use std::sync::Arc;

use crate::evaluator::{Batch, EvalError, Evaluator, NTupleNetwork, NetworkError};
use crate::games::{Move, SearchGame};

use super::error::{EvaluationError, SearchError};
use super::options::Evaluation;

/// The evaluators a [`Search`](super::Search) keeps between runs.
#[derive(Default)]
pub(super) struct Evaluators {
    /// The embedder's evaluator and the name of its game: an `Arc<dyn Evaluator<G>>`.
    user: Option<(&'static str, Box<dyn Any + Send + Sync>)>,
    /// The shipped n-tuple network of the last game searched
    /// ([`NTupleBoard::SHIPPED_NETWORK`](crate::games::NTupleBoard::SHIPPED_NETWORK)),
    /// parsed once rather than on every move.
    shipped: Option<(&'static str, Arc<NTupleNetwork>)>,
}

impl std::fmt::Debug for Evaluators {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Evaluators")
            .field("user", &self.user.as_ref().map(|(game, _)| game))
            .field("shipped", &self.shipped.as_ref().map(|(game, _)| game))
            .finish()
    }
}

impl Evaluators {
    /// Sets the embedder's evaluator for game `G`.
    pub(super) fn set<G: SearchGame>(&mut self, evaluator: Arc<dyn Evaluator<G>>) {
        self.user = Some((G::NAME, Box::new(evaluator)));
    }

    /// Forgets the embedder's evaluator.
    pub(super) fn clear(&mut self) {
        self.user = None;
    }

    /// The evaluator of a search of `G` by `eval`: none with `eval=none`; else the
    /// embedder's, if set; else the network `eval` names, checked against the game.
    ///
    /// # Errors
    /// [`SearchError::Evaluation`] for an evaluator set for another game, a network of
    /// another game, or `eval=network` in a game that ships none.
    pub(super) fn resolve<G: SearchGame>(
        &mut self,
        eval: &Evaluation,
    ) -> Result<Option<Arc<dyn Evaluator<G>>>, SearchError> {
        if *eval == Evaluation::None {
            return Ok(None);
        }
        if let Some((game, user)) = &self.user {
            return match user.downcast_ref::<Arc<dyn Evaluator<G>>>() {
                Some(evaluator) => Ok(Some(Arc::clone(evaluator))),
                None => Err(SearchError::Evaluation(EvaluationError::OtherGame { set_for: game, searched: G::NAME })),
            };
        }
        let network = self.network::<G>(eval)?;
        Ok(network.map(|n| n as Arc<dyn Evaluator<G>>))
    }

    /// The n-tuple network `eval` names for game `G`, checked against the game; the
    /// game's shipped network is parsed once and kept (keyed by the game's name).
    fn network<G: SearchGame>(&mut self, eval: &Evaluation) -> Result<Option<Arc<NTupleNetwork>>, SearchError> {
        let bad = |e: NetworkError| SearchError::Evaluation(EvaluationError::Network(e));
        let shipped = &mut self.shipped;
        let mut shipped_network = || -> Option<Result<Arc<NTupleNetwork>, NetworkError>> {
            if let Some((_, network)) = shipped.as_ref().filter(|(name, _)| *name == G::NAME) {
                return Some(Ok(Arc::clone(network)));
            }
            let network = NTupleNetwork::shipped::<G>()?;
            if let Ok(network) = &network {
                *shipped = Some((G::NAME, Arc::clone(network)));
            }
            Some(network)
        };
        match eval {
            Evaluation::None => Ok(None),
            Evaluation::Default if !G::LEAF_EVALUATION => Ok(None),
            Evaluation::Default => shipped_network().transpose().map_err(bad),
            Evaluation::Network(network) => network.check::<G>().map(|()| Some(Arc::clone(network))).map_err(bad),
            Evaluation::Shipped => match shipped_network() {
                Some(network) => network.map(Some).map_err(bad),
                None => Err(bad(NetworkError::NoShippedNetwork { game: G::NAME })),
            },
        }
    }
}

/// The priors of `root`'s legal moves by `evaluator`, asked as a batch of one (the path
/// of an evaluator that answers only in batches), with the moves they are for.
///
/// # Errors
/// The evaluator's failure, or what it left that [`Batch::check`] rejects.
pub(super) fn root_priors<G: SearchGame>(
    evaluator: &dyn Evaluator<G>,
    root: &G,
) -> Result<(Vec<Move>, Vec<f32>), EvalError> {
    let mut batch = Batch::new();
    batch.push(root.clone(), true);
    evaluator.evaluate(&mut batch)?;
    batch.check()?;
    Ok((batch.moves(0).to_vec(), batch.priors(0).to_vec()))
}
