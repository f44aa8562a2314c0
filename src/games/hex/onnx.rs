//! Hex's input encoding for neural networks ([`OnnxEncoding`], feature `onnx`).

use super::Hex;
use crate::games::onnx::stone_planes;
use crate::games::{Game, Move, OnnxEncoding, Player};

/// Three planes of N rows × N columns, from the side to move's view: plane 0 its
/// stones, plane 1 its opponent's, plane 2 all ones when the side to move is Black (who
/// joins the top and bottom rows) and all zeros when it is White (left and right
/// columns), since the two sides' goals differ. Cell `(row, col)` (row 0 at the top, as
/// `Move(row * N + col)`) is element `row * N + col` of each plane. The policy has
/// `N² + 1` logits: cell `Move(i)` is slot `i`, the swap ([`Hex::SWAP`]) slot `N²`.
impl<const N: usize> OnnxEncoding for Hex<N> {
    const PLANES: usize = 3;
    const HEIGHT: usize = N;
    const WIDTH: usize = N;
    const POLICY_SIZE: usize = N * N + 1;

    fn encode(&self, out: &mut [f32]) {
        let me = self.side_to_move();
        let cells = N * N;
        stone_planes(cells, me, |i| self.stone_at(Move(i as u16)), out);
        out[2 * cells..3 * cells].fill(f32::from(u8::from(me == Player::One)));
    }

    fn policy_index(&self, mv: Move) -> Option<usize> {
        (usize::from(mv.0) <= N * N).then_some(usize::from(mv.0))
    }
}
