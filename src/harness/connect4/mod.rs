//! Connect Four tools that judge play with the exact solver: [`quality`] (does a
//! player's move keep the position's game-theoretic class, over a benchmark set) and
//! [`review`] (where a match's games were decided).

pub mod quality;
pub mod review;
