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

pub use connect4::{SolveError, SolveResult, Solver, DEFAULT_TT_ENTRIES};
pub use othello::{EndgameError, EndgameSolution, EndgameSolver};
