//! ONNX models as evaluators (feature `onnx`): [`OnnxEvaluator`] runs a neural network
//! on a game's positions, encoded by the game's [`OnnxEncoding`], with tract (pure Rust:
//! no system library, nothing downloaded).
//!
//! # The model
//! * one input, `[batch, PLANES, HEIGHT, WIDTH]` of `f32` (the batch dimension
//!   symbolic, or undeclared), holding each position as [`OnnxEncoding::encode`] writes
//!   it;
//! * an output named `value`, `[batch, 1]` of `f32`: the probability that the side to
//!   move wins, in `[0, 1]` (a sigmoid, say; a value outside stops the search with an
//!   error);
//! * optionally an output named `policy`, `[batch, POLICY_SIZE]` of `f32`: logits, one
//!   per slot of [`OnnxEncoding::policy_index`]. A position's priors are their softmax
//!   over its legal moves; without a `policy` output the evaluator gives no priors.
//!
//! docs/EVALUATORS.md gives each shipped game's encoding; `tests/data/onnx/` holds
//! small untrained models and the script that writes them.
//!
//! # Examples
//! ```no_run
//! use parmcts::evaluator::onnx::OnnxEvaluator;
//! use parmcts::evaluator::Evaluator;
//! use parmcts::{ConnectFour, Game};
//!
//! let evaluator = OnnxEvaluator::<ConnectFour>::load("connect4.onnx")?;
//! let value = evaluator.value(&ConnectFour::new());
//! assert!((0.0..=1.0).contains(&value));
//! # Ok::<(), parmcts::evaluator::onnx::OnnxError>(())
//! ```

mod error;
mod model;

use std::fmt;
use std::marker::PhantomData;
use std::path::Path;

use super::{Batch, EvalError, Evaluator};
use crate::games::Move;

pub use crate::games::OnnxEncoding;
pub use error::OnnxError;
use model::Model;

/// An ONNX model evaluating positions of the game `G`: values from its `value` output
/// and, where it has a `policy` output, priors (see the [module](self) for the model's
/// shape). [`Evaluator::evaluate`] runs a whole batch in one call of the model;
/// [`Evaluator::value`] and [`Evaluator::priors`] each run a batch of one.
///
/// The evaluator is `Send + Sync`: tract's plan runs with `&self`, each call with its
/// own state, so threads share one evaluator.
pub struct OnnxEvaluator<G> {
    model: Model,
    game: PhantomData<fn() -> G>,
}

// The search shares evaluators across threads (`Evaluator: Send + Sync`).
const _: () = {
    const fn shared<T: Send + Sync>() {}
    shared::<OnnxEvaluator<crate::games::ConnectFour>>();
};

impl<G: OnnxEncoding> OnnxEvaluator<G> {
    /// Reads the ONNX model at `path` for `G`'s encoding.
    ///
    /// # Errors
    /// [`OnnxError::Unreadable`] when the file cannot be read, and the errors of
    /// [`OnnxEvaluator::from_bytes`].
    pub fn load(path: impl AsRef<Path>) -> Result<Self, OnnxError> {
        let path = path.as_ref();
        let bytes = std::fs::read(path).map_err(|source| OnnxError::Unreadable { path: path.to_path_buf(), source })?;
        Self::from_bytes(&bytes)
    }

    /// Parses an ONNX model for `G`'s encoding, checks its input and outputs, and
    /// optimises it for batches of any size.
    ///
    /// # Errors
    /// [`OnnxError::Parse`] for bytes that are not an ONNX model;
    /// [`OnnxError::InputCount`] or [`OnnxError::InputShape`] for an input that does
    /// not fit `G`'s encoding; [`OnnxError::MissingValue`] without a `value` output;
    /// [`OnnxError::OutputShape`] for an output of the wrong size;
    /// [`OnnxError::Prepare`] when tract cannot type or optimise the model for the input.
    pub fn from_bytes(bytes: &[u8]) -> Result<Self, OnnxError> {
        Ok(OnnxEvaluator { model: Model::prepare::<G>(bytes)?, game: PhantomData })
    }

    /// Whether the model has a `policy` output (and so the evaluator gives priors).
    pub fn has_policy(&self) -> bool {
        self.model.has_policy()
    }

    /// Runs the model once on `positions` and hands `take` the values and the policy
    /// logits (if any), [`OnnxEncoding::POLICY_SIZE`] per position.
    fn run<R>(&self, positions: &[G], take: impl FnOnce(&[f32], Option<&[f32]>) -> R) -> Result<R, EvalError> {
        self.model.run(&encode_all(positions), positions.len(), take)
    }
}

/// The encodings of `positions`, end to end: the model's input.
fn encode_all<G: OnnxEncoding>(positions: &[G]) -> Vec<f32> {
    let mut input = vec![0.0; positions.len() * G::INPUT_SIZE];
    for (game, chunk) in positions.iter().zip(input.chunks_exact_mut(G::INPUT_SIZE)) {
        game.encode(chunk);
    }
    input
}

impl<G> fmt::Debug for OnnxEvaluator<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("OnnxEvaluator").field("model", &self.model).finish()
    }
}

/// The priors of `moves` into `out[..moves.len()]`: the softmax of their `logits` (one
/// per policy slot of `game`'s encoding). A move without a slot gets zero; where no move
/// has a finite weight, all are zero (no priors).
fn softmax_priors<G: OnnxEncoding>(game: &G, moves: &[Move], logits: &[f32], out: &mut [f32]) {
    let out = &mut out[..moves.len()];
    let logit = |mv: Move| game.policy_index(mv).and_then(|i| logits.get(i)).copied();
    let max = moves.iter().filter_map(|&mv| logit(mv)).fold(f32::NEG_INFINITY, f32::max);
    let mut total = 0.0;
    for (&mv, prior) in moves.iter().zip(out.iter_mut()) {
        *prior = logit(mv).map_or(0.0, |l| (l - max).exp());
        total += *prior;
    }
    if total > 0.0 && total.is_finite() {
        out.iter_mut().for_each(|p| *p /= total);
    } else {
        out.fill(0.0);
    }
}

impl<G: OnnxEncoding> Evaluator<G> for OnnxEvaluator<G> {
    /// The model's `value` for `game` alone; NaN if the model fails (the search then
    /// stops with an error).
    fn value(&self, game: &G) -> f32 {
        self.run(std::slice::from_ref(game), |values, _| values.first().copied()).ok().flatten().unwrap_or(f32::NAN)
    }

    /// The softmax of the model's `policy` logits over `moves`, for `game` alone;
    /// `false` without a `policy` output, or if the model fails.
    fn priors(&self, game: &G, moves: &[Move], out: &mut [f32]) -> bool {
        if !self.has_policy() || moves.is_empty() || out.len() < moves.len() {
            return false;
        }
        let done = self.run(std::slice::from_ref(game), |_, policy| {
            policy.map(|logits| softmax_priors(game, moves, logits, out)).is_some()
        });
        done.unwrap_or(false)
    }

    /// The whole batch in one call of the model: every value, and the priors of the
    /// positions that want them (left at zero without a `policy` output).
    fn evaluate(&self, batch: &mut Batch<G>) -> Result<(), EvalError> {
        if batch.is_empty() {
            return Ok(());
        }
        let input = encode_all(batch.positions());
        self.model.run(&input, batch.len(), |values, policy| {
            batch.values_mut().copy_from_slice(values);
            let Some(policy) = policy else { return };
            for (i, logits) in policy.chunks_exact(G::POLICY_SIZE).enumerate() {
                if batch.wants_priors(i) {
                    let (game, moves, out) = batch.entry_mut(i);
                    softmax_priors(game, moves, logits, out);
                }
            }
        })
    }
}
