//! Batched evaluation: the [`Batch`] of positions a search hands an evaluator at once
//! ([`super::Evaluator::evaluate`]), and the [`EvalError`] an evaluator may answer.

use std::fmt;

use crate::games::{Game, Move};

/// Positions to evaluate together, with a slot for each one's value and, where the search
/// asks for them, for priors over its legal moves. The search reuses its batches: once
/// warm, filling one allocates nothing.
///
/// # Examples
/// ```
/// use parmcts::evaluator::Batch;
/// use parmcts::{ConnectFour, Game};
///
/// let mut batch = Batch::new();
/// batch.push(ConnectFour::new(), true);
/// assert_eq!(batch.moves(0).len(), 7);
/// batch.set_value(0, 0.5);
/// batch.priors_mut(0).fill(1.0 / 7.0);
/// assert!(batch.check().is_ok());
/// ```
#[derive(Clone, Debug)]
pub struct Batch<G> {
    positions: Vec<G>,
    /// Where each position's moves (and priors) begin in `moves` (and `priors`); one
    /// more entry than positions.
    starts: Vec<u32>,
    moves: Vec<Move>,
    priors: Vec<f32>,
    /// NaN until set: a value the evaluator left unset is caught by [`Batch::check`].
    values: Vec<f32>,
}

impl<G: Game> Default for Batch<G> {
    fn default() -> Self {
        Batch::new()
    }
}

impl<G: Game> Batch<G> {
    /// An empty batch.
    pub fn new() -> Batch<G> {
        Batch { positions: Vec::new(), starts: vec![0], moves: Vec::new(), priors: Vec::new(), values: Vec::new() }
    }

    /// Adds `position` (not over) to evaluate; with `priors`, its legal moves are listed
    /// ([`Batch::moves`]) for the evaluator to give their priors. Returns its index.
    pub fn push(&mut self, position: G, priors: bool) -> usize {
        if priors {
            let legal = position.legal_moves();
            self.moves.extend_from_slice(legal.as_ref());
            self.priors.resize(self.moves.len(), 0.0);
        }
        self.starts.push(self.moves.len() as u32);
        self.positions.push(position);
        self.values.push(f32::NAN);
        self.positions.len() - 1
    }

    /// Empties the batch, keeping its memory.
    pub fn clear(&mut self) {
        self.positions.clear();
        self.starts.truncate(1);
        self.moves.clear();
        self.priors.clear();
        self.values.clear();
    }

    /// The positions in the batch.
    pub fn len(&self) -> usize {
        self.positions.len()
    }

    /// Whether the batch holds no position.
    pub fn is_empty(&self) -> bool {
        self.positions.is_empty()
    }

    /// The positions, in order.
    pub fn positions(&self) -> &[G] {
        &self.positions
    }

    /// Position `i`.
    pub fn position(&self, i: usize) -> &G {
        &self.positions[i]
    }

    /// Whether the search asks for position `i`'s priors.
    pub fn wants_priors(&self, i: usize) -> bool {
        self.starts[i] != self.starts[i + 1]
    }

    /// The legal moves of position `i` whose priors the search asks for, in the order of
    /// [`Batch::priors_mut`] (empty when it asks for none).
    pub fn moves(&self, i: usize) -> &[Move] {
        &self.moves[self.range(i)]
    }

    /// Sets the value of position `i`: the probability that its side to move wins (a
    /// draw counting one half), in `[0, 1]`.
    pub fn set_value(&mut self, i: usize, value: f32) {
        self.values[i] = value;
    }

    /// The value of position `i` (NaN until set).
    pub fn value(&self, i: usize) -> f32 {
        self.values[i]
    }

    /// The values, in order, to fill at once (NaN where not yet set).
    pub fn values_mut(&mut self) -> &mut [f32] {
        &mut self.values
    }

    /// The priors of position `i`'s [`Batch::moves`], to fill: non-negative weights
    /// (the search normalises them; all zero means none). Zero until set.
    pub fn priors_mut(&mut self, i: usize) -> &mut [f32] {
        let range = self.range(i);
        &mut self.priors[range]
    }

    /// Position `i`, its moves and their priors to fill, borrowed together.
    pub fn entry_mut(&mut self, i: usize) -> (&G, &[Move], &mut [f32]) {
        let range = self.range(i);
        (&self.positions[i], &self.moves[range.clone()], &mut self.priors[range])
    }

    /// The priors of position `i`, as set (empty when none were asked for).
    pub fn priors(&self, i: usize) -> &[f32] {
        &self.priors[self.range(i)]
    }

    /// Checks what the evaluator left: every value in `[0, 1]` (an unset one is NaN),
    /// every prior finite and non-negative.
    ///
    /// # Errors
    /// The first [`EvalError::BadValue`] or [`EvalError::BadPrior`].
    pub fn check(&self) -> Result<(), EvalError> {
        if let Some((index, &value)) = self.values.iter().enumerate().find(|(_, v)| !(0.0..=1.0).contains(*v)) {
            return Err(EvalError::BadValue { index, value });
        }
        for index in 0..self.len() {
            if let Some((move_index, &prior)) =
                self.priors(index).iter().enumerate().find(|(_, p)| !(p.is_finite() && **p >= 0.0))
            {
                return Err(EvalError::BadPrior { index, move_index, prior });
            }
        }
        Ok(())
    }

    fn range(&self, i: usize) -> std::ops::Range<usize> {
        self.starts[i] as usize..self.starts[i + 1] as usize
    }
}

/// Why an evaluation failed: the search that asked for it stops with this error
/// (in [`SearchError::Evaluator`](crate::search::SearchError::Evaluator)), its tree
/// intact.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum EvalError {
    /// The evaluator reported a failure (its own words).
    Failed(String),
    /// Position `index` of a batch got a value outside `[0, 1]`, NaN, or none.
    BadValue {
        /// The position's index in its batch.
        index: usize,
        /// The value it got.
        value: f32,
    },
    /// A prior negative or not finite.
    BadPrior {
        /// The position's index in its batch.
        index: usize,
        /// The move's index in [`Batch::moves`].
        move_index: usize,
        /// The prior it got.
        prior: f32,
    },
}

impl fmt::Display for EvalError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvalError::Failed(message) => write!(f, "the evaluator failed: {message}"),
            EvalError::BadValue { index, value } if value.is_nan() => {
                write!(f, "the evaluator gave position {index} of a batch no value (NaN), not one in [0, 1]")
            }
            EvalError::BadValue { index, value } => {
                write!(f, "the evaluator gave position {index} of a batch the value {value}, not one in [0, 1]")
            }
            EvalError::BadPrior { index, move_index, prior } => write!(
                f,
                "the evaluator gave move {move_index} of position {index} of a batch the prior {prior}, not a finite non-negative weight"
            ),
        }
    }
}

impl std::error::Error for EvalError {}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::TicTacToe;

    #[test]
    fn a_batch_lays_out_moves_only_where_priors_are_wanted_and_catches_what_is_left_unset() {
        let mut batch = Batch::new();
        let mut after = TicTacToe::new();
        after.play_unchecked(Move(4));
        assert_eq!((batch.push(TicTacToe::new(), false), batch.push(after, true)), (0, 1));
        assert!(!batch.wants_priors(0) && batch.wants_priors(1));
        assert_eq!((batch.moves(0).len(), batch.moves(1).len()), (0, 8));
        assert!(matches!(batch.check(), Err(EvalError::BadValue { index: 0, value }) if value.is_nan()));
        batch.values_mut().fill(0.25);
        assert_eq!(batch.check(), Ok(()));
        batch.priors_mut(1)[3] = -1.0;
        assert_eq!(batch.check(), Err(EvalError::BadPrior { index: 1, move_index: 3, prior: -1.0 }));
        batch.set_value(1, 1.5);
        assert_eq!(batch.check(), Err(EvalError::BadValue { index: 1, value: 1.5 }));
        batch.clear();
        assert!(batch.is_empty() && batch.check().is_ok());
        batch.push(TicTacToe::new(), true);
        assert_eq!(batch.priors(0), &[0.0; 9], "cleared priors start at zero");
    }
}
