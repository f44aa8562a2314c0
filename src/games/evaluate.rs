//! Heuristic evaluations for the depth cut-off of [`crate::alphabeta::minimax`],
//! [`crate::alphabeta::AlphaBeta`] and [`crate::expectimax`] (which squashes them into
//! `[-1, 1]`): the [`Evaluate`] trait. Each game's evaluation sits
//! beside the game (`tictactoe.rs`, `connect4/mod.rs`, `othello/evaluate.rs`).
//!
//! An evaluation scores a *non-terminal* position for the side to move, in "centipawn"
//! units far below [`WIN`]: finished games are scored exactly by the searches themselves
//! (`WIN - ply` for a win, `-WIN + ply` for a loss, `0` for a draw, `ply` counted from
//! the search root), so a proven result always outranks any heuristic.

use super::Game;

/// The score of a win at the root; a win `ply` plies from the root scores `WIN - ply`.
pub const WIN: i32 = 1_000_000;

/// Every evaluation stays within `±EVAL_LIMIT`, far from the win scores.
pub const EVAL_LIMIT: i32 = WIN / 2;

/// A game with a heuristic evaluation for depth-limited search.
pub trait Evaluate: Game {
    /// Heuristic value of this non-terminal position for the side to move (positive:
    /// good for it), within `±EVAL_LIMIT`. Called only at the depth cut-off.
    fn evaluate(&self) -> i32;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{ConnectFour, Othello, TicTacToe};

    #[test]
    fn evaluations_are_symmetric_at_the_start() {
        assert_eq!(TicTacToe::new().evaluate(), 0);
        assert_eq!(ConnectFour::new().evaluate(), 0);
        assert_eq!(Othello::new().evaluate(), 0);
    }

    #[test]
    fn evaluations_see_obvious_advantages() {
        // X has two in the top row, O to move: bad for O.
        assert!(TicTacToe::parse_position("142").unwrap().evaluate() < 0);
        // The side to move has a playable threat (three in the bottom row, open end).
        assert_eq!(ConnectFour::parse_position("112233").unwrap().evaluate(), EVAL_LIMIT / 2);
        // White to move after Black took a corner-adjacent swing: just bounded.
        let o = Othello::parse_position("f5d6c3d3c4").unwrap();
        assert!(o.evaluate().abs() < EVAL_LIMIT);
    }
}
