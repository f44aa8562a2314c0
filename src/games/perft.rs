//! Perft: counting move sequences to prove the rules against published tables.
//!
//! Convention (shared by the tic-tac-toe, Connect Four and OEIS A124004 / Edax Othello
//! tables): every move counts at its own ply, a forced pass is a move and so a ply, and
//! a finished game contributes nothing after the ply at which it ended.

use super::Game;

/// The number of move sequences of exactly `depth` plies from `game`.
///
/// At depth 1 the legal moves are counted without being played (bulk counting), which
/// is exact under this convention because a finished game has no legal moves.
pub fn perft<G: Game>(game: &G, depth: u32) -> u64 {
    if depth == 0 {
        return 1;
    }
    let moves = game.legal_moves();
    if depth == 1 {
        return moves.as_ref().len() as u64;
    }
    moves
        .into_iter()
        .map(|mv| {
            let mut child = game.clone();
            child.play_unchecked(mv);
            perft(&child, depth - 1)
        })
        .sum()
}

/// Perft split by first move: `(move, count)` for each legal move of `game`.
pub fn perft_divide<G: Game>(game: &G, depth: u32) -> Vec<(super::Move, u64)> {
    game.legal_moves()
        .into_iter()
        .map(|mv| {
            let mut child = game.clone();
            child.play_unchecked(mv);
            (mv, perft(&child, depth.saturating_sub(1)))
        })
        .collect()
}
