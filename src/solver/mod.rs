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

use crate::games::Outcome;

pub use crate::games::connect4::solver as connect4;
pub use crate::games::connect4x::solver as connect4x;
pub use crate::games::othello::solver as othello;

pub use crate::games::{Endgame, Solved};
pub use connect4::{SolveError, SolveResult, Solver, DEFAULT_TT_ENTRIES};
pub use othello::{EndgameError, EndgameSolution, EndgameSolver};

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
