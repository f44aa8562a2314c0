//! Exact game solvers.
//!
//! * [`connect4`]: a strong (and weak) Connect Four 7x6 solver in the style of Pascal
//!   Pons, "Solving Connect 4: how to build a perfect AI" (blog.gamesolver.org), checked
//!   against his published benchmark positions in `tests/connect4_solver.rs`.
//! * [`othello`]: an exact Othello endgame solver (alpha-beta on bitboards, final disc
//!   difference with the empties to the winner), checked against the FFO endgame
//!   positions #1-#19 in `tests/othello_endgame.rs`.

pub mod connect4;
pub mod othello;

use crate::games::{Game, Move, Outcome};

pub use connect4::{SolveError, SolveResult, Solver, DEFAULT_TT_ENTRIES};
pub use othello::{EndgameError, EndgameSolution, EndgameSolver};

/// A position settled by a game's exact solver: the result with perfect play and a move
/// that keeps it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Solved {
    /// The game's result with perfect play from the position.
    pub outcome: Outcome,
    /// A move that keeps `outcome` (the game's pass move for a forced pass); `None` when
    /// the game is over.
    pub best_move: Option<Move>,
    /// Nodes the solver visited.
    pub nodes: u64,
}

/// A game whose exact solver the search may call near the end of the game: the MCTS
/// player before it searches (`endgame=NODES`), and the MCTS-Solver at each node it
/// expands (`endgame-leaf=NODES`), so that its proofs reach down to the solver's.
///
/// Every item has a default (no solver): an embedder writes `impl Endgame for MyGame {}`.
pub trait Endgame: Game {
    /// The win, draw or loss of this position with perfect play, and a move that keeps
    /// it, if the game's solver proves it within about `max_nodes` nodes; `None` when it
    /// gives up (or the game has no solver).
    fn solve_endgame(&self, _max_nodes: u64) -> Option<Solved> {
        None
    }
}
