//! The search tree: a preallocated [`Arena`] of 24-byte [`node::Node`]s and the two ways to
//! operate on it ([`TreeOps`]): exclusive (`&mut`, no atomic instructions, for the
//! sequential baseline) and shared (lock-free atomics, for tree-parallel workers).

mod access;
mod arena;
pub mod contention;
pub mod invariants;
mod node;
#[cfg(not(loom))]
mod zeroed;

pub use access::{ExclusiveTree, SharedTree, TreeOps};
pub(crate) use arena::CapacityError;
pub use arena::{Arena, NODE_BYTES};
pub use node::{Expansion, NodeId, Proof, Stats};
