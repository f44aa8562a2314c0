//! Go's input encoding for neural networks ([`OnnxEncoding`], feature `onnx`).

use super::Go;
use crate::games::onnx::stone_planes;
use crate::games::{Game, Move, OnnxEncoding};

/// Two planes of N rows × N columns, from the side to move's view: plane 0 its stones,
/// plane 1 its opponent's; point `(row, col)` (row 0 at the bottom, as `Move(row * N +
/// col)`) is element `row * N + col` of each plane. The policy has `N² + 1` logits: point
/// `Move(i)` is slot `i`, the pass ([`Go::PASS`]) slot `N²`. Komi, the superko history
/// and the side to move's colour are not encoded (a model that needs them takes them
/// from elsewhere).
impl<const N: usize> OnnxEncoding for Go<N> {
    const PLANES: usize = 2;
    const HEIGHT: usize = N;
    const WIDTH: usize = N;
    const POLICY_SIZE: usize = N * N + 1;

    fn encode(&self, out: &mut [f32]) {
        stone_planes(N * N, self.side_to_move(), |i| self.stone_at(Move(i as u16)), out);
    }

    fn policy_index(&self, mv: Move) -> Option<usize> {
        (usize::from(mv.0) <= N * N).then_some(usize::from(mv.0))
    }
}
