//! # parmcts
//!
//! Lock-free parallel Monte Carlo Tree Search on a preallocated arena, with bitboard
//! games.
//!
//! The library (what `cargo build --lib --no-default-features` builds):
//!
//! * [`games`]: the [`Game`] trait and its capability traits, and the registered games:
//!   tic-tac-toe, Connect Four (7x6 and run-time boards), Othello (proven by perft
//!   against published tables), Go 9x9, 13x13 and 19x19 (checked against GNU Go), Hex
//!   and EinStein; [`with_game!`] and [`GameKind`] name them.
//! * [`mod@search`]: the validated [`SearchConfig`] (every setting declared once in
//!   [`search::SETTINGS`]), the [`Search`] engine with one driver per mode (sequential,
//!   tree-parallel, root-parallel, synced, virtual threads, and
//!   [`search::distributed`], one process per machine under `mpirun` with the `mpi`
//!   feature), and the [`SearchResult`]. The tree (24-byte nodes in a preallocated
//!   arena, the lock-free expansion protocol of `docs/CONCURRENCY.md`) and the UCT
//!   policy are internal: the crate exports what an embedder needs.
//! * [`weights`]: learned move strengths (Bradley-Terry gammas), the file format.
//! * [`evaluator`]: learned position evaluators, the n-tuple network ([`NTupleNetwork`])
//!   and its TD(0) self-play training; Othello and Connect Four ship trained networks.
//! * [`solver`]: the exact Connect Four solver and Othello endgame solver (each in its
//!   game's folder).
//! * [`alphabeta`] and [`expectimax`]: the baselines (alpha-beta with its enhancements;
//!   expectimax with Star1 pruning for games with chance turns).
//!
//! For the binary and the experiments (the `harness` feature, on by default through
//! `cli`): `harness` (players, matches, bench, scale, the contention model, training,
//! the Connect Four quality and review tools, the JSON reports) and the front end `gtp`
//! (the Go Text Protocol engine for GUIs and referees).
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
#[cfg(feature = "harness")]
pub mod analysis;
mod atomics;
pub mod evaluator;
pub mod expectimax;
pub mod games;
#[cfg(feature = "harness")]
pub mod gtp;
#[cfg(feature = "harness")]
pub mod harness;
mod policy;
pub mod search;
pub mod solver;
mod tree;
pub mod weights;

#[cfg(feature = "onnx")]
pub use evaluator::onnx::{OnnxError, OnnxEvaluator};
pub use evaluator::{Evaluator, NTupleBoard, NTupleNetwork, NetworkError};
#[cfg(feature = "encoding")]
pub use games::OnnxEncoding;
pub use games::{
    BoardError, ConnectFour, ConnectFourBoard, Einstein, Game, GameError, GameKind, Go, Go13, Go19, Go9, Hex, Hex11,
    Hex13, Hex19, Hex9, Move, MoveList, MovesPlayed, Othello, Outcome, Player, Playouts, SearchGame, TicTacToe, Tuning,
    Turn,
};
pub use search::{
    search, ChildResult, ConfigError, EvaluationError, Finished, Mode, Search, SearchConfig, SearchError, SearchHandle,
    SearchResult, Snapshot, SnapshotChild,
};
pub use solver::Endgame;
pub use tree::invariants::InvariantViolation;
pub use tree::{contention, Proof, NODE_BYTES};
