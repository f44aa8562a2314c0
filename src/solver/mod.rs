//! Exact game solvers.
//!
//! * [`connect4`]: a strong (and weak) Connect Four 7x6 solver in the style of Pascal
//!   Pons, "Solving Connect 4: how to build a perfect AI" (blog.gamesolver.org), checked
//!   against his published benchmark positions in `tests/connect4_solver.rs`.

pub mod connect4;

pub use connect4::{SolveError, SolveResult, Solver, DEFAULT_TT_ENTRIES};
