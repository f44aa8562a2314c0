//! # parmcts
//!
//! Lock-free parallel Monte Carlo Tree Search on a preallocated arena, with bitboard
//! games.
//!
//! * [`games`]: the [`Game`] trait and tic-tac-toe, Connect Four, Othello (proven by
//!   perft against published tables) and Go 9x9, 13x13 and 19x19 (checked against GNU Go).
//! * [`gtp`]: the Go Text Protocol; a client for other engines.
//! * [`mod@search`]: the validated [`SearchConfig`] (every setting declared once in
//!   [`search::SETTINGS`]), the [`Search`] engine with its sequential, tree-parallel and
//!   root-parallel drivers, and the [`SearchResult`]. The tree (24-byte nodes in a
//!   preallocated arena, the lock-free expansion protocol of `docs/CONCURRENCY.md`) and
//!   the UCT policy are internal: the crate exports what an embedder needs.
//! * [`report`]: the `Serialize` reports behind every `parmcts … --json`.
//! * [`with_game!`] and [`GameKind`]: the registered games, by name.
//! * [`weights`]: learned move strengths (Bradley-Terry gammas), the file format;
//!   [`training`] fits them by Coulom's MM.
//! * [`evaluator`]: learned position evaluators, the n-tuple network ([`NTupleNetwork`])
//!   and its TD(0) self-play training; Othello and Connect Four ship trained networks.
//! * [`expectimax`]: the baseline for games with chance turns (EinStein): expectimax
//!   with Star1 pruning.
//! * [`alphabeta`], [`solver`], [`mod@matches`], [`players`]: the baselines, the exact
//!   Connect Four solver and Othello endgame solver, the match harness and the players
//!   behind one trait.
//! * [`gtp`]: the Go Text Protocol engine (`parmcts gtp`) for GUIs and referees, generic
//!   over the game, with its time controls.
//! * [`quality`]: move quality against the exact Connect Four solver (the fraction of
//!   moves that keep a won or drawn position's class, on Pons's benchmark files).
//! * [`review`]: where a match's Connect Four games were decided (every position of its
//!   records from a given ply solved, each value-losing move charged to its player).
//! * [`search::distributed`]: the distributed search (`mode=dist`, one process per
//!   machine under `mpirun`; MPI with the `mpi` feature).
//!
//! # Examples
//! ```
//! use parmcts::{Game, Mode, Search, SearchConfig, TicTacToe};
//!
//! let config = SearchConfig::builder().playouts(5_000).mode(Mode::TreeParallel).threads(2).build()?;
//! let result = Search::new(config)?.run(&TicTacToe::new())?;
//! assert_eq!(result.playouts, 5_000);
//! # Ok::<(), Box<dyn std::error::Error>>(())
//! ```
#![warn(missing_docs)]
#![warn(unreachable_pub)]

pub mod alphabeta;
mod atomics;
#[cfg(feature = "harness")]
pub mod benchmark;
pub mod evaluator;
pub mod expectimax;
pub mod games;
#[cfg(feature = "harness")]
pub mod gtp;
#[cfg(feature = "harness")]
pub mod matches;
#[cfg(feature = "harness")]
pub mod model;
#[cfg(feature = "harness")]
pub mod players;
mod policy;
#[cfg(feature = "harness")]
pub mod pool;
#[cfg(feature = "harness")]
pub mod quality;
#[cfg(feature = "harness")]
pub mod report;
#[cfg(feature = "harness")]
pub mod review;
#[cfg(feature = "harness")]
pub mod scale;
pub mod search;
pub mod solver;
#[cfg(feature = "harness")]
pub mod training;
mod tree;
pub mod weights;

pub use evaluator::{Evaluator, NTupleBoard, NTupleNetwork, NetworkError};
pub use games::{
    BoardError, ConnectFour, ConnectFourBoard, Einstein, Game, GameError, GameKind, Go, Go13, Go19, Go9, Hex, Hex11,
    Hex13, Hex19, Hex9, Move, MoveList, MovesPlayed, Othello, Outcome, Player, Playouts, SearchGame, TicTacToe, Tuning,
    Turn,
};
pub use search::{
    search, ChildResult, ConfigError, EvaluationError, Mode, Search, SearchConfig, SearchError, SearchResult,
};
pub use solver::Endgame;
pub use tree::invariants::InvariantViolation;
pub use tree::{contention, Proof, NODE_BYTES};
