//! [`OnnxError`]: why an ONNX model could not become an evaluator.

use std::fmt;
use std::path::PathBuf;

/// Why [`OnnxEvaluator::load`](super::OnnxEvaluator::load) or
/// [`OnnxEvaluator::from_bytes`](super::OnnxEvaluator::from_bytes) refused a model.
#[derive(Debug)]
#[non_exhaustive]
pub enum OnnxError {
    /// The model file could not be read.
    Unreadable {
        /// The file.
        path: PathBuf,
        /// Why.
        source: std::io::Error,
    },
    /// The bytes are not an ONNX model tract can read (tract's words).
    Parse(String),
    /// The model has not exactly one input.
    InputCount(usize),
    /// The model's declared input does not fit the game's encoding
    /// `[batch, PLANES, HEIGHT, WIDTH]`.
    InputShape {
        /// The shape the game's encoding gives, `batch` for the batch dimension.
        expected: String,
        /// The shape the model declares.
        found: String,
    },
    /// The model has no output named `value`.
    MissingValue {
        /// The names of the outputs it has.
        outputs: Vec<String>,
    },
    /// An output does not hold what it should for each position: `value` one float,
    /// `policy` [`POLICY_SIZE`](crate::games::OnnxEncoding::POLICY_SIZE) of them.
    OutputShape {
        /// The output's name.
        output: &'static str,
        /// The shape expected, `batch` for the batch dimension.
        expected: String,
        /// The shape the model gives it.
        found: String,
    },
    /// The model could not be typed or optimised for the game's input (tract's words):
    /// an inner shape that does not follow from the input, an operator tract lacks.
    Prepare(String),
}

impl fmt::Display for OnnxError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            OnnxError::Unreadable { path, source } => {
                write!(f, "cannot read the ONNX model {}: {source}", path.display())
            }
            OnnxError::Parse(message) => write!(f, "not an ONNX model tract can read: {message}"),
            OnnxError::InputCount(count) => write!(f, "the ONNX model has {count} inputs, expected 1"),
            OnnxError::InputShape { expected, found } => {
                write!(f, "the ONNX model's input has shape {found}, but the game's encoding is {expected}")
            }
            OnnxError::MissingValue { outputs } => {
                write!(f, "the ONNX model has no output named `value` (its outputs: {})", outputs.join(", "))
            }
            OnnxError::OutputShape { output, expected, found } => {
                write!(f, "the ONNX model's output `{output}` has shape {found}, expected {expected}")
            }
            OnnxError::Prepare(message) => {
                write!(f, "the ONNX model does not run on the game's encoding: {message}")
            }
        }
    }
}

impl std::error::Error for OnnxError {
    fn source(&self) -> Option<&(dyn std::error::Error + 'static)> {
        match self {
            OnnxError::Unreadable { source, .. } => Some(source),
            _ => None,
        }
    }
}
