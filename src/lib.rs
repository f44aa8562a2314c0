//! # parmcts
//!
//! Lock-free parallel Monte Carlo Tree Search on a preallocated arena, with bitboard
//! games.
//!
//! * [`games`]: the [`Game`] trait and tic-tac-toe, Connect Four and Othello, proven by
//!   perft against published tables.
//! * [`tree`]: the 24-byte [`tree::Node`], the [`tree::Arena`] and the lock-free
//!   expansion protocol (`docs/CONCURRENCY.md`).
//! * [`policy`]: UCT selection.
//! * [`mod@search`]: the validated [`SearchConfig`], the [`Search`] engine with its
//!   sequential, tree-parallel and root-parallel drivers, and the [`SearchResult`].
//! * [`weights`]: learned move strengths (Bradley-Terry gammas), the file format;
//!   [`training`] fits them by Coulom's MM.
//! * [`alphabeta`], [`solver`], [`mod@matches`], [`players`]: the baselines, the exact
//!   Connect Four solver, the match harness and the players behind one trait.
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

pub mod alphabeta;
pub mod benchmark;
pub mod games;
pub mod matches;
pub mod players;
pub mod policy;
pub mod report;
pub mod search;
pub mod solver;
mod sync;
pub mod training;
pub mod tree;
pub mod weights;

pub use games::{
    ConnectFour, Game, GameError, GameKind, Move, MoveList, MovesPlayed, Othello, Outcome, Player, Playouts,
    SearchGame, TicTacToe, Tuning, Turn,
};
pub use search::{search, ChildResult, ConfigError, Mode, Search, SearchConfig, SearchError, SearchResult};
pub use tree::Proof;
