//! A game's [`OnnxEncoding`] as values ([`Encoder`]) and the one list of the games that
//! have one ([`encoder`]), for code that holds a game type without the trait in its
//! bounds (the Python bindings serve every game). Apart from `onnx.rs`, which the games'
//! encodings import, so that no game file and this list import each other.

use std::any::Any;

use super::onnx::OnnxEncoding;
use super::{ConnectFour, Game, Go13, Go19, Go9, Hex11, Hex13, Hex19, Hex9, Move, Othello, TicTacToe};

/// A game's [`OnnxEncoding`] as values, for code that holds a game type without the
/// trait in its bounds (a binding that serves every game): the shape and the two functions.
#[derive(Debug)]
pub struct Encoder<G> {
    /// [`OnnxEncoding::PLANES`].
    pub planes: usize,
    /// [`OnnxEncoding::HEIGHT`].
    pub height: usize,
    /// [`OnnxEncoding::WIDTH`].
    pub width: usize,
    /// [`OnnxEncoding::POLICY_SIZE`].
    pub policy_size: usize,
    /// [`OnnxEncoding::encode`].
    pub encode: fn(&G, &mut [f32]),
    /// [`OnnxEncoding::policy_index`].
    pub policy_index: fn(&G, Move) -> Option<usize>,
}

// Copy whatever `G` is: the fields are sizes and function pointers.
impl<G> Clone for Encoder<G> {
    fn clone(&self) -> Self {
        *self
    }
}
impl<G> Copy for Encoder<G> {}

impl<G: OnnxEncoding> Encoder<G> {
    /// The encoding of `G`.
    pub fn of() -> Encoder<G> {
        Encoder {
            planes: G::PLANES,
            height: G::HEIGHT,
            width: G::WIDTH,
            policy_size: G::POLICY_SIZE,
            encode: G::encode,
            policy_index: G::policy_index,
        }
    }
}

/// The encoding of game `G` if it has one: every game with an [`OnnxEncoding`] impl is
/// listed here (docs/EVALUATORS.md lists them too).
///
/// # Examples
/// ```
/// use parmcts::games::encoder;
/// use parmcts::{ConnectFour, Einstein};
///
/// assert_eq!(encoder::<ConnectFour>().map(|e| (e.planes, e.height, e.width)), Some((2, 6, 7)));
/// assert!(encoder::<Einstein>().is_none());
/// ```
pub fn encoder<G: Game + 'static>() -> Option<Encoder<G>> {
    fn try_as<T: OnnxEncoding + 'static, G: 'static>() -> Option<Encoder<G>> {
        let boxed: Box<dyn Any> = Box::new(Encoder::<T>::of());
        boxed.downcast::<Encoder<G>>().ok().map(|e| *e)
    }
    try_as::<TicTacToe, G>()
        .or_else(try_as::<ConnectFour, G>)
        .or_else(try_as::<Othello, G>)
        .or_else(try_as::<Go9, G>)
        .or_else(try_as::<Go13, G>)
        .or_else(try_as::<Go19, G>)
        .or_else(try_as::<Hex9, G>)
        .or_else(try_as::<Hex11, G>)
        .or_else(try_as::<Hex13, G>)
        .or_else(try_as::<Hex19, G>)
}
