//! Hex over GTP: its [`GtpGame`] (no komi and no pass, the swap rule on request, the
//! winner as the score), at every board size.

use super::Hex;
use crate::games::{Game, Move, Outcome, Player};
use crate::gtp::game::{point, score_text, GtpGame};

/// Hex at every size: no komi and no pass, moves in turn, the swap rule on request.
impl<const N: usize> GtpGame for Hex<N> {
    const BOARD_SIZE: u32 = N as u32;
    const SGF_GAME: u32 = 11;

    /// Cells are numbered row by row from `a1` at the top left, as SGF counts them; the
    /// swap is HexGui's `swap-pieces`.
    fn sgf_point(&self, mv: Move) -> String {
        let cell = usize::from(mv.0);
        if cell < N * N {
            point(cell % N, cell / N)
        } else {
            self.format_move(mv)
        }
    }

    fn set_swap_rule(&mut self, on: bool) -> bool {
        Hex::set_swap_rule(self, on);
        true
    }

    fn pass() -> Option<Move> {
        None
    }

    /// `B+1` or `W+1` for the winner of a finished game (Hex has no score, only a
    /// winner); `0` while the game is on.
    fn final_score(&self) -> String {
        match self.outcome() {
            Some(Outcome::Win(Player::One)) => score_text(1.0),
            Some(Outcome::Win(Player::Two)) => score_text(-1.0),
            _ => score_text(0.0),
        }
    }

    /// Half the empty cells (rounded up): the side to move fills about every other one.
    fn moves_left(&self) -> u32 {
        self.empty_cells().count().div_ceil(2)
    }
}
