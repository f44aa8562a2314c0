//! Selection policies: how a search iteration picks a child.

pub mod uct;

pub use uct::{progressive_bias_scale, rave_beta, select_child, ucb1, UctParams};
