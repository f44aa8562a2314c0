//! Othello's board for n-tuple networks ([`NTupleBoard`]): 64 cells (`a1` = 0, `h8` =
//! 63), the 8 symmetries of the square, and Buro's Logistello pattern set as the tuples.

use super::Othello;
use crate::games::{square_symmetries, NTupleBoard};

/// The 8 symmetries of the 8×8 board.
const SYMMETRIES: [[u8; 64]; 8] = square_symmetries::<8, 64>();

/// The symmetries as slices.
static SYMMETRY_SLICES: [&[u8]; 8] = [
    &SYMMETRIES[0],
    &SYMMETRIES[1],
    &SYMMETRIES[2],
    &SYMMETRIES[3],
    &SYMMETRIES[4],
    &SYMMETRIES[5],
    &SYMMETRIES[6],
    &SYMMETRIES[7],
];

/// Cell index of a square given as (file 0-7, rank 0-7).
const fn sq(file: u8, rank: u8) -> u8 {
    rank * 8 + file
}

impl NTupleBoard for Othello {
    const CELLS: usize = 64;

    /// Trained by TD(0) self-play; the command is in the file's header.
    const SHIPPED_NETWORK: Option<&'static [u8]> = Some(include_bytes!("network.pmnt"));

    #[inline]
    fn cells(&self, out: &mut [u8]) {
        for (i, cell) in out.iter_mut().enumerate().take(64) {
            *cell = ((self.me >> i) & 1) as u8 | (((self.opp >> i) & 1) as u8) << 1;
        }
    }

    fn symmetries() -> &'static [&'static [u8]] {
        &SYMMETRY_SLICES
    }

    /// Buro's Logistello patterns (Buro 1997, "Experiments with Multi-ProbCut and a New
    /// High-Quality Evaluation Function for Othello"), each applied under the 8
    /// symmetries: the edge with its two X-squares, the 3×3 and 2×5 corners, the
    /// second to fourth rows, and the diagonals of lengths 4 to 8.
    fn default_tuples() -> Vec<Vec<u8>> {
        let row = |rank: u8| (0..8).map(|f| sq(f, rank)).collect::<Vec<u8>>();
        let diagonal = |len: u8| (0..len).map(|i| sq(8 - len + i, i)).collect::<Vec<u8>>();
        let mut edge_2x = row(0);
        edge_2x.extend([sq(1, 1), sq(6, 1)]);
        let corner_3x3 = (0..3).flat_map(|r| (0..3).map(move |f| sq(f, r))).collect();
        let corner_2x5 = (0..2).flat_map(|r| (0..5).map(move |f| sq(f, r))).collect();
        let mut tuples = vec![edge_2x, corner_3x3, corner_2x5, row(1), row(2), row(3)];
        tuples.extend((4..=8).map(diagonal));
        tuples
    }
}
