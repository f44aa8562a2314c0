//! The harness behind the binary and the experiments (the `harness` feature): players,
//! matches and what is measured with them. An embedder of the search needs none of it.
//!
//! * [`players`]: every kind of player (MCTS, alpha-beta, minimax, expectimax, random,
//!   GTP engines, a person at the board) behind one trait, built from a spec string.
//! * [`referee`]: one game's turns (dice, take-backs, quits), shared by `play` and
//!   `match`.
//! * [`mod@matches`]: the match harness (alternating colours, openings, Elo with its
//!   interval, records) and [`pool`], the threads it plays on.
//! * [`benchmark`], [`scale`] and [`model`]: throughput, scaling across threads and the
//!   contention model that predicts it.
//! * [`ladder`]: what more search is worth, doubling by doubling.
//! * [`training`]: Coulom's minorization-maximization fit of move strengths.
//! * [`connect4`]: move quality and game review against the exact Connect Four solver.
//! * [`report`]: the `Serialize` reports behind every `parmcts … --json`.
//! * [`interrupt`]: a request to stop a long run early, read between units of work.

pub mod benchmark;
pub mod connect4;
pub mod interrupt;
pub mod ladder;
pub mod matches;
pub mod model;
pub mod players;
pub mod pool;
pub mod referee;
pub mod report;
pub mod scale;
pub mod training;
