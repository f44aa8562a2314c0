//! An exact win/draw/loss solver for Connect Four on small run-time boards
//! ([`ConnectFourBoard`]): negamax with alpha-beta on the window [-1, 1], a winning move
//! played at once, centre columns first, and a transposition table keyed by the exact
//! position (no hash collisions). It solves the empty 4x4 to 6x4 and 5x5 boards in a
//! fraction of a second (`tests/connect4_boards.rs` checks them against John Tromp's
//! results); larger boards need the node budget to give up.

use std::collections::HashMap;

use crate::games::connect4x::ConnectFourBoard;
use crate::games::{Game, Move, Outcome, Playouts};

use crate::games::{Endgame, Solved};

/// Bound kinds in the table.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Bound {
    Exact,
    Lower,
    Upper,
}

/// A win/draw/loss solver with a node budget.
#[derive(Debug)]
pub struct BoardSolver {
    table: HashMap<ConnectFourBoard, (i8, Bound)>,
    nodes: u64,
    max_nodes: u64,
}

impl BoardSolver {
    /// A solver that gives up after about `max_nodes` nodes.
    pub fn new(max_nodes: u64) -> Self {
        BoardSolver { table: HashMap::new(), nodes: 0, max_nodes }
    }

    /// The result of `game` with perfect play and a move that keeps it, or `None` when
    /// the budget runs out.
    pub fn solve(&mut self, game: &ConnectFourBoard) -> Option<Solved> {
        let mover = game.side_to_move();
        if let Some(outcome) = game.outcome() {
            return Some(Solved { outcome, best_move: None, nodes: 0 });
        }
        let mut best: Option<(i8, Move)> = None;
        for mv in ordered(game) {
            let mut child = *game;
            child.play_unchecked(mv);
            let alpha = best.map_or(-1, |(s, _)| s);
            let score = -self.negamax(&child, -1, -alpha)?;
            if best.is_none_or(|(s, _)| score > s) {
                best = Some((score, mv));
            }
            if score == 1 {
                break;
            }
        }
        let (score, mv) = best?;
        Some(Solved::from_score(i32::from(score), mover, Some(mv), self.nodes))
    }

    /// Nodes visited so far.
    pub fn nodes(&self) -> u64 {
        self.nodes
    }

    fn negamax(&mut self, game: &ConnectFourBoard, mut alpha: i8, mut beta: i8) -> Option<i8> {
        self.nodes += 1;
        if self.nodes > self.max_nodes {
            return None;
        }
        match game.outcome() {
            Some(Outcome::Draw) => return Some(0),
            // The player who just moved won.
            Some(Outcome::Win(_)) => return Some(-1),
            None => {}
        }
        let moves = game.legal_moves();
        if moves.iter().any(|m| game.is_winning_move(u32::from(m.0))) {
            return Some(1);
        }
        let original_alpha = alpha;
        if let Some(&(value, bound)) = self.table.get(game) {
            match bound {
                Bound::Exact => return Some(value),
                Bound::Lower => alpha = alpha.max(value),
                Bound::Upper => beta = beta.min(value),
            }
            if alpha >= beta {
                return Some(value);
            }
        }
        let mut best = -1;
        for mv in ordered(game) {
            let mut child = *game;
            child.play_unchecked(mv);
            let score = -self.negamax(&child, -beta, -alpha)?;
            best = best.max(score);
            alpha = alpha.max(score);
            if alpha >= beta {
                break;
            }
        }
        let bound = if best <= original_alpha {
            Bound::Upper
        } else if best >= beta {
            Bound::Lower
        } else {
            Bound::Exact
        };
        self.table.insert(*game, (best, bound));
        Some(best)
    }
}

/// The legal moves worth searching, centre columns first.
fn ordered(game: &ConnectFourBoard) -> Vec<Move> {
    let mut moves: Vec<Move> = game.legal_moves().into_iter().collect();
    let centre = game.width() as i32 - 1;
    moves.sort_by_key(|m| (2 * i32::from(m.0) - centre).abs());
    // Exact: a lone win; else the blocks (any other move loses at once); else the moves
    // that do not let the opponent win at once (a gift loses), unless all do.
    let kept = game.prune_moves(&mut moves);
    moves.truncate(kept);
    moves
}

impl Endgame for ConnectFourBoard {
    /// [`BoardSolver`] with a budget of `max_nodes`.
    fn solve_endgame(&self, max_nodes: u64) -> Option<Solved> {
        BoardSolver::new(max_nodes).solve(self)
    }
}
