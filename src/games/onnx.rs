//! A game's input encoding for neural networks ([`OnnxEncoding`], feature `encoding`,
//! which `onnx` turns on): the
//! tensor an ONNX model reads for one position and the slot of each move in the model's
//! policy output. Declared with the games, like [`NTupleBoard`](super::NTupleBoard), so
//! that each game's folder holds its own encoding; [`crate::evaluator::onnx`] runs the
//! models. docs/EVALUATORS.md lists the shipped encodings.

use super::{Game, Move};

/// A game whose positions a neural network reads as a `[PLANES, HEIGHT, WIDTH]` tensor
/// of `f32`, from the side to move's view, and whose moves have slots in a policy
/// vector of [`OnnxEncoding::POLICY_SIZE`] logits.
///
/// A model for the game takes an input of shape `[batch, PLANES, HEIGHT, WIDTH]` (see
/// [`OnnxEvaluator`](crate::evaluator::onnx::OnnxEvaluator)); element `(p, r, c)` of a
/// position is `out[(p * HEIGHT + r) * WIDTH + c]` in [`OnnxEncoding::encode`].
///
/// # Examples
/// ```
/// use parmcts::games::OnnxEncoding;
/// use parmcts::{ConnectFour, Game, Move};
///
/// let mut game = ConnectFour::new();
/// game.play_sequence("4").unwrap(); // the first player's disc in column 4 (index 3)
/// let mut input = vec![0.0; ConnectFour::INPUT_SIZE];
/// game.encode(&mut input);
/// // The side to move is the second player: the disc is the opponent's (plane 1), row 0.
/// assert_eq!(input[6 * 7 + 3], 1.0);
/// assert_eq!(input.iter().sum::<f32>(), 1.0);
/// assert_eq!(game.policy_index(Move(3)), Some(3));
/// ```
pub trait OnnxEncoding: Game {
    /// Planes of the input (feature maps: one per kind of piece, say).
    const PLANES: usize;
    /// Rows of each plane.
    const HEIGHT: usize;
    /// Columns of each plane.
    const WIDTH: usize;
    /// Floats in one position's input: `PLANES * HEIGHT * WIDTH`.
    const INPUT_SIZE: usize = Self::PLANES * Self::HEIGHT * Self::WIDTH;
    /// Logits in the model's policy output for one position.
    const POLICY_SIZE: usize;

    /// Writes this position's input into every element of `out[..INPUT_SIZE]` (ones and
    /// zeros for the shipped games), from the side to move's view. `out` holds at least
    /// [`OnnxEncoding::INPUT_SIZE`] floats.
    fn encode(&self, out: &mut [f32]);

    /// The slot of legal move `mv` in the policy output (below
    /// [`OnnxEncoding::POLICY_SIZE`]); `None` for a move the encoding has no slot for
    /// (its prior is then zero).
    fn policy_index(&self, mv: Move) -> Option<usize>;
}

/// Writes two planes of a square-celled board: cell `i` (row-major, `i < rows × cols`)
/// is 1 in plane 0 where bit `i` of `me` is set, 1 in plane 1 where bit `i` of `opp` is,
/// 0 elsewhere; `cells` is the plane's size.
pub(crate) fn two_planes(me: u64, opp: u64, cells: usize, out: &mut [f32]) {
    let (mine, theirs) = out[..2 * cells].split_at_mut(cells);
    for (i, (m, o)) in mine.iter_mut().zip(theirs.iter_mut()).enumerate() {
        *m = (me >> i & 1) as f32;
        *o = (opp >> i & 1) as f32;
    }
}

/// Writes a board's stones into two planes of `cells`, from `me`'s view: plane 0 where
/// `stone_at(i)` is `me`, plane 1 where it is the other player (Go and Hex).
pub(crate) fn stone_planes(
    cells: usize,
    me: super::Player,
    stone_at: impl Fn(usize) -> Option<super::Player>,
    out: &mut [f32],
) {
    let (mine, theirs) = out[..2 * cells].split_at_mut(cells);
    for (i, (m, o)) in mine.iter_mut().zip(theirs.iter_mut()).enumerate() {
        let stone = stone_at(i);
        *m = f32::from(u8::from(stone == Some(me)));
        *o = f32::from(u8::from(stone == Some(me.other())));
    }
}
