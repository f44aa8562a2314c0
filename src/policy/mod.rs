//! Selection policies: how a search iteration picks a child.

pub(crate) mod halving;
pub(crate) mod uct;

pub(crate) use uct::{select_child, UctParams};
