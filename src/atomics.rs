//! The one place atomics are imported from, so that `--cfg loom` swaps in loom's
//! model-checked types and the model checker exercises the real tree code.

#[cfg(loom)]
pub(crate) use loom::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};
#[cfg(not(loom))]
pub(crate) use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

/// Plain (non-atomic) access through `&mut`: exclusive ownership makes the atomic
/// instruction unnecessary. The sequential baseline uses only this.
pub(crate) trait Exclusive {
    /// The integer inside.
    type Value;
    /// Runs `f` on the value with a plain `&mut`.
    fn with_exclusive<R>(&mut self, f: impl FnOnce(&mut Self::Value) -> R) -> R;
}

macro_rules! exclusive {
    ($atomic:ty, $value:ty) => {
        impl Exclusive for $atomic {
            type Value = $value;
            #[inline(always)]
            fn with_exclusive<R>(&mut self, f: impl FnOnce(&mut $value) -> R) -> R {
                #[cfg(not(loom))]
                return f(self.get_mut());
                #[cfg(loom)]
                return self.with_mut(f);
            }
        }
    };
}

exclusive!(AtomicU32, u32);
exclusive!(AtomicU64, u64);
