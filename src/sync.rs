//! The one place atomics are imported from, so that `--cfg loom` swaps in loom's
//! model-checked types and the model checker exercises the real tree code.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicU32, AtomicU64, Ordering};
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
