//! The search tree: a preallocated [`Arena`] of 24-byte [`node::Node`]s and the two ways to
//! operate on it ([`TreeOps`]): exclusive (`&mut`, no atomic instructions, for the
//! sequential baseline) and shared (lock-free atomics, for tree-parallel workers).

mod access;
mod arena;
pub mod contention;
pub(crate) mod invariants;
mod node;
#[cfg(not(loom))]
mod zeroed;

pub(crate) use access::{ChildView, ExclusiveTree, SharedTree, TreeOps};
pub(crate) use arena::Arena;
pub use arena::NODE_BYTES;
pub(crate) use arena::{available_bytes, CapacityError};
pub use node::Proof;
pub(crate) use node::{Expansion, NodeId, Stats};
