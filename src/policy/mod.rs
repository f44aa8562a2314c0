//! Selection policies: how a search iteration picks a child.

pub mod halving;
pub mod uct;

pub use uct::{select_child, UctParams};
