//! The solver's bitboard position and its move generation.

use super::CELLS;
use crate::games::connect4::{playable_cells, winning_cells};
use crate::games::ConnectFour;

/// The solver's own copy of a position: stones of the side to move, all stones, plies.
#[derive(Clone, Copy, Debug)]
pub(super) struct Board {
    pub(super) current: u64,
    pub(super) mask: u64,
    pub(super) moves: i32,
}

impl Board {
    pub(super) fn from_game(game: &ConnectFour) -> Board {
        Board { current: game.current_stones(), mask: game.all_stones(), moves: game.plies() as i32 }
    }

    /// Unique position key (Pons): the stones of the side to move plus one bit above the
    /// top of every column.
    #[inline]
    pub(super) fn key(&self) -> u64 {
        self.current + self.mask
    }

    #[inline]
    pub(super) fn possible(&self) -> u64 {
        playable_cells(self.mask)
    }

    #[inline]
    pub(super) fn can_win_next(&self) -> bool {
        winning_cells(self.current, self.mask) & self.possible() != 0
    }

    /// Plays the single-bit `cell` (from [`Board::possible`]).
    #[inline]
    pub(super) fn play(&mut self, cell: u64) {
        self.current ^= self.mask;
        self.mask |= cell;
        self.moves += 1;
    }

    /// The playable cells that do not let the opponent win at once: when the opponent
    /// threatens one playable cell it must be blocked (two: every move loses, `0`), and a
    /// cell directly below an opponent threat is never played.
    #[inline]
    pub(super) fn non_losing_moves(&self) -> u64 {
        let mut possible = self.possible();
        let opponent_wins = winning_cells(self.current ^ self.mask, self.mask);
        let forced = possible & opponent_wins;
        if forced != 0 {
            if forced & (forced - 1) != 0 {
                return 0;
            }
            possible = forced;
        }
        possible & !(opponent_wins >> 1)
    }

    /// Threat cells the mover has after playing `cell` (the ordering key).
    #[inline]
    pub(super) fn move_score(&self, cell: u64) -> u32 {
        winning_cells(self.current | cell, self.mask).count_ones()
    }

    /// The score of winning with the next move.
    #[inline]
    pub(super) fn win_next_score(&self) -> i32 {
        (CELLS + 1 - self.moves) / 2
    }
}
