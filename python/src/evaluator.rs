//! A Python callable as the search's [`Evaluator`]: the search's workers (or its
//! evaluator threads) hand it batches of positions as NumPy arrays of input planes and
//! legal-move masks, holding the GIL only inside the call.
//!
//! The callable is `evaluator(planes, masks)`: `planes` a float32 array of shape
//! `(n, planes, height, width)`, `masks` a boolean array `(n, policy_size)` true at the
//! legal moves' slots. It returns the `n` values (the side to move's win probability,
//! in [0, 1]), or a pair `(values, priors)` with `priors` of shape `(n, policy_size)`
//! (non-negative; normalised over each position's legal moves). An exception or a value
//! outside [0, 1] stops the search, which raises it (`EvaluatorError`, the exception as
//! its cause).

use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Mutex, PoisonError};
use std::time::{Duration, Instant};

use parmcts::evaluator::{Batch, EvalError, Evaluator};
use parmcts::games::Encoder;
use parmcts::{Game, Move};
use pyo3::prelude::*;
use pyo3::types::PyTuple;

use crate::numpy::{array_f32, read_f32};

/// What a Python evaluator did in a search: its calls, the positions they held, and the
/// time spent holding the GIL (from asking for it to letting it go).
#[derive(Default)]
pub struct EvalStats {
    pub calls: AtomicU64,
    pub positions: AtomicU64,
    pub gil_ns: AtomicU64,
    pub largest: AtomicU64,
}

/// A Python callable evaluating positions of `G` in its encoding.
pub struct PyEvaluator<G> {
    callable: Py<PyAny>,
    encoder: Encoder<G>,
    /// The first exception the callable raised (raised again by the search's caller).
    pub error: Mutex<Option<PyErr>>,
    pub stats: EvalStats,
}

impl<G: Game> PyEvaluator<G> {
    pub fn new(callable: Py<PyAny>, encoder: Encoder<G>) -> PyEvaluator<G> {
        PyEvaluator { callable, encoder, error: Mutex::new(None), stats: EvalStats::default() }
    }

    /// The positions' planes and masks, the call, and its values and priors read back.
    fn call(&self, py: Python<'_>, positions: &[&G]) -> PyResult<(Vec<f32>, Option<Vec<f32>>)> {
        let e = &self.encoder;
        let (n, input) = (positions.len(), e.planes * e.height * e.width);
        let mut planes = vec![0.0f32; n * input];
        let mut masks = vec![0.0f32; n * e.policy_size];
        for (i, game) in positions.iter().enumerate() {
            (e.encode)(game, &mut planes[i * input..(i + 1) * input]);
            for &mv in game.legal_moves().as_ref() {
                if let Some(slot) = (e.policy_index)(game, mv) {
                    masks[i * e.policy_size + slot] = 1.0;
                }
            }
        }
        let planes = array_f32(py, &planes, &[n, e.planes, e.height, e.width])?;
        let masks = array_f32(py, &masks, &[n, e.policy_size])?.call_method1("astype", ("bool",))?;
        let answer = self.callable.bind(py).call1((planes, masks))?;
        let (values, priors) = match answer.cast::<PyTuple>() {
            Ok(pair) if pair.len() == 2 => (pair.get_item(0)?, Some(pair.get_item(1)?)),
            _ => (answer, None),
        };
        let values = read_f32(py, &values, n, "the evaluator's values")?;
        let priors = priors.map(|p| read_f32(py, &p, n * e.policy_size, "the evaluator's priors")).transpose()?;
        Ok((values, priors))
    }

    /// Calls the callable on `positions` with the GIL held for the call alone; an
    /// exception is kept for the caller and answered as a failure.
    fn evaluate_positions(&self, positions: &[&G]) -> Result<(Vec<f32>, Option<Vec<f32>>), String> {
        let asked = Instant::now();
        let answer = Python::attach(|py| {
            let answer = self.call(py, positions);
            answer.map_err(|e| {
                let text = e.to_string();
                self.error.lock().unwrap_or_else(PoisonError::into_inner).get_or_insert(e);
                text
            })
        });
        self.stats.gil_ns.fetch_add(duration_ns(asked.elapsed()), Ordering::Relaxed);
        self.stats.calls.fetch_add(1, Ordering::Relaxed);
        self.stats.positions.fetch_add(positions.len() as u64, Ordering::Relaxed);
        self.stats.largest.fetch_max(positions.len() as u64, Ordering::Relaxed);
        answer
    }

    /// The priors of `game`'s `moves` from its row of the policy, normalised over them
    /// (uniform where the row gives them nothing).
    fn fill_priors(&self, game: &G, moves: &[Move], row: &[f32], out: &mut [f32]) {
        for (out, &mv) in out.iter_mut().zip(moves) {
            *out = (self.encoder.policy_index)(game, mv).map_or(0.0, |slot| row[slot].max(0.0));
        }
        let sum: f32 = out[..moves.len()].iter().sum();
        let share = if sum > 0.0 && sum.is_finite() { 1.0 / sum } else { 0.0 };
        for p in &mut out[..moves.len()] {
            *p = if share > 0.0 { *p * share } else { 1.0 / moves.len() as f32 };
        }
    }
}

fn duration_ns(d: Duration) -> u64 {
    u64::try_from(d.as_nanos()).unwrap_or(u64::MAX)
}

impl<G: Game + Send + Sync> Evaluator<G> for PyEvaluator<G> {
    /// One position (`eval-batch=0`): a batch of one; a failure is NaN, which stops the
    /// search with the kept exception.
    fn value(&self, game: &G) -> f32 {
        self.evaluate_positions(&[game]).map_or(f32::NAN, |(values, _)| values[0])
    }

    fn priors(&self, game: &G, moves: &[Move], out: &mut [f32]) -> bool {
        match self.evaluate_positions(&[game]) {
            Ok((_, Some(priors))) => {
                self.fill_priors(game, moves, &priors, out);
                true
            }
            _ => false,
        }
    }

    fn evaluate(&self, batch: &mut Batch<G>) -> Result<(), EvalError> {
        let positions: Vec<&G> = (0..batch.len()).map(|i| batch.position(i)).collect();
        let (values, priors) = self.evaluate_positions(&positions).map_err(EvalError::Failed)?;
        let size = self.encoder.policy_size;
        for (i, value) in values.into_iter().enumerate() {
            batch.set_value(i, value);
            if let (true, Some(priors)) = (batch.wants_priors(i), &priors) {
                let (game, moves, out) = batch.entry_mut(i);
                self.fill_priors(game, moves, &priors[i * size..(i + 1) * size], out);
            }
        }
        Ok(())
    }
}

/// `parmcts.LinearEvaluator(weights, bias=0.0)`: a logistic model of the input planes,
/// evaluated in Rust (no GIL): a position's value is `1 / (1 + exp(-(w · planes + b)))`.
/// The baseline a Python evaluator is measured against, and a start for a learned one.
#[pyclass(module = "parmcts", frozen)]
pub struct LinearEvaluator {
    pub weights: Vec<f32>,
    pub bias: f32,
}

#[pymethods]
impl LinearEvaluator {
    #[new]
    #[pyo3(signature = (weights, bias = 0.0))]
    fn new(py: Python<'_>, weights: &Bound<'_, PyAny>, bias: f32) -> PyResult<LinearEvaluator> {
        let size: usize = py.import("numpy")?.call_method1("size", (weights,))?.extract()?;
        let weights = read_f32(py, weights, size, "weights")?;
        Ok(LinearEvaluator { weights, bias })
    }
}

/// A [`LinearEvaluator`] for positions of `G`.
pub struct Linear<G> {
    weights: Vec<f32>,
    bias: f32,
    encoder: Encoder<G>,
}

impl<G> Linear<G> {
    /// The model for `encoder`'s inputs; `None` when the weights do not number them.
    pub fn new(model: &LinearEvaluator, encoder: Encoder<G>) -> Option<Linear<G>> {
        let inputs = encoder.planes * encoder.height * encoder.width;
        (model.weights.len() == inputs).then(|| Linear { weights: model.weights.clone(), bias: model.bias, encoder })
    }
}

impl<G: Game + Send + Sync> Evaluator<G> for Linear<G> {
    fn value(&self, game: &G) -> f32 {
        let mut input = vec![0.0; self.weights.len()];
        (self.encoder.encode)(game, &mut input);
        let z: f32 = input.iter().zip(&self.weights).map(|(x, w)| x * w).sum::<f32>() + self.bias;
        1.0 / (1.0 + (-z).exp())
    }
}
