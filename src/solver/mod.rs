//! Exact game solvers.
//!
//! * [`connect4`]: a strong (and weak) Connect Four 7x6 solver in the style of Pascal
//!   Pons, "Solving Connect 4: how to build a perfect AI" (blog.gamesolver.org), checked
//!   against his published benchmark positions in `tests/connect4_solver.rs`.
//! * [`connect4x`]: a win/draw/loss solver for Connect Four on small run-time boards
//!   (`ConnectFourBoard`), checked against John Tromp's results in
//!   `tests/connect4_boards.rs`.
//! * [`othello`]: an exact Othello endgame solver (alpha-beta on bitboards, final disc
//!   difference with the empties to the winner), checked against the FFO endgame
//!   positions #1-#19 and #40-#44 in `tests/othello_endgame.rs`.

pub mod connect4;
pub mod connect4x;
pub mod othello;

use crate::games::{Game, Move, Outcome, Player};

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

impl Solved {
    /// A solve's result from its score for `mover`, the side to move (positive: a win,
    /// 0: a draw, negative: a loss; any scale).
    pub fn from_score(score: i32, mover: Player, best_move: Option<Move>, nodes: u64) -> Solved {
        let outcome = match score {
            1.. => Outcome::Win(mover),
            0 => Outcome::Draw,
            _ => Outcome::Win(mover.other()),
        };
        Solved { outcome, best_move, nodes }
    }
}

/// The solver's result for `game` within `budget` nodes (0: not tried) when it proves a
/// win or a draw for the side to move, and so gives a move to play at once: what the MCTS
/// and alpha-beta players do before searching. A proven loss is left to the search,
/// whose move may make the opponent's task harder.
pub fn solved_to_play<G: Endgame>(game: &G, budget: u64) -> Option<Solved> {
    if budget == 0 {
        return None;
    }
    let solved = game.solve_endgame(budget)?;
    let lost = solved.outcome == Outcome::Win(game.side_to_move().other());
    (!lost && solved.best_move.is_some()).then_some(solved)
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

    /// The win, draw or loss of this position with perfect play, without a move, if the
    /// solver proves it within about `max_nodes` nodes (what `train-network
    /// --solver-nodes` labels positions with). By default [`Endgame::solve_endgame`]'s.
    fn solve_value(&self, max_nodes: u64) -> Option<Outcome> {
        self.solve_endgame(max_nodes).map(|solved| solved.outcome)
    }
}
