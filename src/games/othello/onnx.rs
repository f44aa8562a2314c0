//! Othello's input encoding for neural networks ([`OnnxEncoding`], feature `onnx`).

use super::{Othello, PASS};
use crate::games::onnx::two_planes;
use crate::games::{Move, OnnxEncoding};

/// Two planes of 8 rows × 8 columns, from the side to move's view: plane 0 its discs,
/// plane 1 its opponent's; row `r` is rank `r + 1`, column `c` file `a + c`, so square
/// `i` (`a1` = 0, `h8` = 63) is element `i` of its plane. The policy has 65 logits:
/// square `i` is slot `i`, the pass ([`PASS`], `Move(64)`) slot 64.
impl OnnxEncoding for Othello {
    const PLANES: usize = 2;
    const HEIGHT: usize = 8;
    const WIDTH: usize = 8;
    const POLICY_SIZE: usize = 65;

    fn encode(&self, out: &mut [f32]) {
        two_planes(self.me, self.opp, 64, out);
    }

    fn policy_index(&self, mv: Move) -> Option<usize> {
        (mv.0 <= PASS.0).then_some(usize::from(mv.0))
    }
}
