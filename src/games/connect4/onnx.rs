//! Connect Four's input encoding for neural networks ([`OnnxEncoding`], feature `onnx`).

use super::{ConnectFour, HEIGHT, WIDTH};
use crate::games::{Move, OnnxEncoding};

/// Two planes of 6 rows × 7 columns, from the side to move's view: plane 0 its discs,
/// plane 1 its opponent's; row 0 is the bottom row, column 0 the left column (move
/// `Move(0)`, written `1`). The policy has 7 logits, one per column: move `Move(c)` is
/// slot `c`.
impl OnnxEncoding for ConnectFour {
    const PLANES: usize = 2;
    const HEIGHT: usize = HEIGHT as usize;
    const WIDTH: usize = WIDTH as usize;
    const POLICY_SIZE: usize = WIDTH as usize;

    fn encode(&self, out: &mut [f32]) {
        let (me, opp) = (self.current, self.current ^ self.mask);
        let cells = Self::HEIGHT * Self::WIDTH;
        let (mine, theirs) = out[..2 * cells].split_at_mut(cells);
        for row in 0..HEIGHT {
            for col in 0..WIDTH {
                let bit = col * super::H1 + row;
                let at = (row * WIDTH + col) as usize;
                mine[at] = (me >> bit & 1) as f32;
                theirs[at] = (opp >> bit & 1) as f32;
            }
        }
    }

    fn policy_index(&self, mv: Move) -> Option<usize> {
        (u32::from(mv.0) < WIDTH).then_some(usize::from(mv.0))
    }
}
