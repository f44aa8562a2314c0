//! The tract side of [`OnnxEvaluator`](super::OnnxEvaluator): an ONNX model parsed,
//! checked against a game's encoding, typed with a symbolic batch dimension, optimised
//! into a plan, and run on a batch of encoded positions.

use std::sync::Arc;

use tract_onnx::prelude::{
    tvec, Datum, DatumExt, Framework, InferenceFact, InferenceModel, InferenceModelExt, IntoRunnable, Tensor,
    TypedModel, TypedSimplePlan,
};
use tract_onnx::tract_hir::internal::{DimLike, Factoid, TDim};

use super::OnnxError;
use crate::evaluator::EvalError;
use crate::games::OnnxEncoding;

/// The name of the batch dimension in the typed model and in error messages.
const BATCH: &str = "batch";

/// A model ready to run on batches of one game's positions.
#[derive(Debug)]
pub(super) struct Model {
    /// The optimised plan: runs with `&self` (each run has its own state), so one plan
    /// serves every thread.
    plan: Arc<TypedSimplePlan>,
    /// The index of the `value` output among the plan's outputs.
    value: usize,
    /// The index of the `policy` output, if the model has one.
    policy: Option<usize>,
    /// The input shape of one position: `[PLANES, HEIGHT, WIDTH]`.
    position_shape: [usize; 3],
    /// Logits per position in the `policy` output.
    policy_size: usize,
}

/// A tract error with its chain of causes, on one line.
fn words(error: impl std::fmt::Display) -> String {
    format!("{error:#}")
}

/// A shape written `[batch, 2, 6, 7]`.
fn shape_text<'a>(dims: impl IntoIterator<Item = &'a dyn std::fmt::Display>) -> String {
    let dims: Vec<String> = dims.into_iter().map(|d| d.to_string()).collect();
    format!("[{}]", dims.join(", "))
}

impl Model {
    /// Parses `bytes` as an ONNX model and prepares it for `G`'s encoding.
    ///
    /// # Errors
    /// [`OnnxError`] naming what does not parse or does not fit.
    pub(super) fn prepare<G: OnnxEncoding>(bytes: &[u8]) -> Result<Model, OnnxError> {
        let mut reader = bytes;
        let model = tract_onnx::onnx().model_for_read(&mut reader).map_err(|e| OnnxError::Parse(words(e)))?;
        let inputs = model.input_outlets().map_err(|e| OnnxError::Parse(words(e)))?.len();
        if inputs != 1 {
            return Err(OnnxError::InputCount(inputs));
        }
        let position_shape = [G::PLANES, G::HEIGHT, G::WIDTH];
        check_input(&model, position_shape)?;
        let names = output_names(&model)?;
        let value =
            names.iter().position(|n| n == "value").ok_or(OnnxError::MissingValue { outputs: names.clone() })?;
        let policy = names.iter().position(|n| n == "policy");
        let batch = TDim::from(model.sym(BATCH));
        let dims = [batch.clone(), TDim::from(G::PLANES), TDim::from(G::HEIGHT), TDim::from(G::WIDTH)];
        let prepare = |e| OnnxError::Prepare(words(e));
        let typed = model
            .with_input_fact(0, InferenceFact::from(f32::fact(dims)))
            .and_then(|m| m.into_optimized())
            .map_err(prepare)?;
        check_output(&typed, value, "value", &batch, 1)?;
        if let Some(policy) = policy {
            check_output(&typed, policy, "policy", &batch, G::POLICY_SIZE)?;
        }
        let plan = typed.into_runnable().map_err(prepare)?;
        Ok(Model { plan, value, policy, position_shape, policy_size: G::POLICY_SIZE })
    }

    /// Whether the model has a `policy` output.
    pub(super) fn has_policy(&self) -> bool {
        self.policy.is_some()
    }

    /// Runs the model once on `positions` encoded positions laid end to end in `input`,
    /// and hands `take` the values (one per position) and the policy logits
    /// (`POLICY_SIZE` per position), if the model has them.
    ///
    /// # Errors
    /// [`EvalError::Failed`] with tract's words, or when an output has the wrong size.
    pub(super) fn run<R>(
        &self,
        input: &[f32],
        positions: usize,
        take: impl FnOnce(&[f32], Option<&[f32]>) -> R,
    ) -> Result<R, EvalError> {
        let failed = |e| EvalError::Failed(words(e));
        let [planes, height, width] = self.position_shape;
        let tensor = Tensor::from_shape::<f32>(&[positions, planes, height, width], input).map_err(failed)?;
        let outputs = self.plan.run(tvec!(tensor.into())).map_err(failed)?;
        let read = |index: usize, per_position: usize, name: &str| -> Result<&[f32], EvalError> {
            let output = outputs.get(index).ok_or_else(|| EvalError::Failed(format!("no output `{name}`")))?;
            let slice = output.try_as_plain_ram().and_then(|v| v.as_slice::<f32>()).map_err(failed)?;
            if slice.len() != positions * per_position {
                return Err(EvalError::Failed(format!(
                    "output `{name}` holds {} floats for {positions} positions, expected {per_position} each",
                    slice.len()
                )));
            }
            Ok(slice)
        };
        let values = read(self.value, 1, "value")?;
        let policy = self.policy.map(|p| read(p, self.policy_size, "policy")).transpose()?;
        Ok(take(values, policy))
    }
}

/// Fails unless the model's declared input (where it declares one) is
/// `[any, PLANES, HEIGHT, WIDTH]`.
fn check_input(model: &InferenceModel, expected: [usize; 3]) -> Result<(), OnnxError> {
    let fact = model.input_fact(0).map_err(|e| OnnxError::Parse(words(e)))?;
    let dims: Vec<Option<TDim>> = fact.shape.dims().map(|d| d.concretize()).collect();
    let rank_fits = dims.len() == 4 || (fact.shape.is_open() && dims.len() < 4);
    let dims_fit = dims.iter().skip(1).zip(expected).all(|(d, e)| match d.as_ref().map(DimLike::to_usize) {
        Some(Ok(n)) => n == e,
        _ => true,
    });
    if rank_fits && dims_fit {
        return Ok(());
    }
    let unknown = "?".to_string();
    let texts: Vec<String> = dims.iter().map(|d| d.as_ref().map_or(unknown.clone(), ToString::to_string)).collect();
    let mut found = shape_text(texts.iter().map(|t| t as &dyn std::fmt::Display));
    if fact.shape.is_open() {
        found.insert_str(found.len() - 1, ", ..");
    }
    let [p, h, w] = expected;
    Err(OnnxError::InputShape { expected: format!("[{BATCH}, {p}, {h}, {w}]"), found })
}

/// The names of the model's outputs, in order: their ONNX names (tract's outlet labels),
/// or the producing node's name where one has none.
fn output_names(model: &InferenceModel) -> Result<Vec<String>, OnnxError> {
    let outlets = model.output_outlets().map_err(|e| OnnxError::Parse(words(e)))?;
    Ok(outlets
        .iter()
        .map(|&outlet| model.outlet_label(outlet).unwrap_or(&model.node(outlet.node).name).to_string())
        .collect())
}

/// Fails unless output `index` of the typed model is `[batch, ...]` with `per_position`
/// floats after the batch dimension.
fn check_output(
    model: &TypedModel,
    index: usize,
    name: &'static str,
    batch: &TDim,
    per_position: usize,
) -> Result<(), OnnxError> {
    let fact = model.output_fact(index).map_err(|e| OnnxError::Prepare(words(e)))?;
    let dims = fact.shape.dims();
    let rest: Option<usize> = dims.iter().skip(1).map(|d| d.to_usize().ok()).product();
    let is_f32 = fact.datum_type == f32::datum_type();
    if is_f32 && dims.first() == Some(batch) && rest == Some(per_position) {
        return Ok(());
    }
    let mut found = shape_text(dims.iter().map(|d| d as &dyn std::fmt::Display));
    if !is_f32 {
        found.push_str(&format!(" of {:?}", fact.datum_type));
    }
    Err(OnnxError::OutputShape { output: name, expected: format!("[{BATCH}, {per_position}] of f32"), found })
}
