//! The arena's large arrays: zero-filled memory from the system allocator, whose pages
//! the operating system maps lazily, so an arena costs only what a search touches.
//!
//! Through the global allocator (mimalloc) a zeroed allocation of this size was
//! `memset` when mimalloc reused memory it had freed, as it did for the second search of
//! a process: every fresh search paid for its whole capacity up front (about 0.25 s of
//! page faults for the default 384 MiB arena with RAVE's 128 MiB beside it), which a
//! match pays for every player in every game. glibc's `calloc` takes blocks this large
//! straight from `mmap`, already zero, and returns them with `munmap`.

use std::alloc::{GlobalAlloc, Layout, System};
use std::ptr::NonNull;

use crate::tree::node::Node;

/// Types whose value with every byte zero is valid, and which need no drop.
///
/// # Safety
/// An implementor must be valid when all its bytes are zero and must not need `Drop`.
pub(crate) unsafe trait Zeroable {}

// SAFETY: a `Node` is four atomic integers (`repr(C)`), each valid as zero; the all-zero
// node is `Node::default()`. No drop glue.
unsafe impl Zeroable for Node {}
// SAFETY: an atomic integer is valid as zero (the value 0); no drop glue.
unsafe impl Zeroable for std::sync::atomic::AtomicU64 {}
// SAFETY: as above.
unsafe impl Zeroable for std::sync::atomic::AtomicU32 {}

/// A fixed-length slice of zero-initialised `T`, allocated from [`System`] and freed there.
pub(crate) struct ZeroedSlice<T: Zeroable> {
    ptr: NonNull<T>,
    len: usize,
}

impl<T: Zeroable> ZeroedSlice<T> {
    /// `len` zeroed values. Aborts, as `Box` does, when the memory cannot be had.
    pub(crate) fn new(len: usize) -> ZeroedSlice<T> {
        const { assert!(!std::mem::needs_drop::<T>()) };
        let layout = Self::layout(len);
        if layout.size() == 0 {
            return ZeroedSlice { ptr: NonNull::dangling(), len };
        }
        // SAFETY: the layout's size is not zero.
        let raw = unsafe { System.alloc_zeroed(layout) };
        let ptr = NonNull::new(raw.cast::<T>()).unwrap_or_else(|| std::alloc::handle_alloc_error(layout));
        ZeroedSlice { ptr, len }
    }

    fn layout(len: usize) -> Layout {
        Layout::array::<T>(len).expect("an arena array's size fits an isize (capacity is at most 2^32 nodes)")
    }
}

impl<T: Zeroable> std::ops::Deref for ZeroedSlice<T> {
    type Target = [T];
    fn deref(&self) -> &[T] {
        // SAFETY: `ptr` holds `len` initialised values (zero bytes, valid for `T` by
        // `Zeroable`), aligned by the layout and owned by `self` while it lives; for a
        // layout of size zero the dangling pointer is aligned, which is all a slice of
        // no bytes needs.
        unsafe { std::slice::from_raw_parts(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Zeroable> std::ops::DerefMut for ZeroedSlice<T> {
    fn deref_mut(&mut self) -> &mut [T] {
        // SAFETY: as `deref`, and `&mut self` makes the access exclusive.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl<T: Zeroable> Drop for ZeroedSlice<T> {
    fn drop(&mut self) {
        let layout = Self::layout(self.len);
        if layout.size() != 0 {
            // SAFETY: allocated by `System` with this layout in `new`; `T` needs no drop.
            unsafe { System.dealloc(self.ptr.as_ptr().cast(), layout) };
        }
    }
}

// SAFETY: the slice owns its values as a `Box<[T]>` would; sending or sharing it sends or
// shares them.
unsafe impl<T: Zeroable + Send> Send for ZeroedSlice<T> {}
// SAFETY: as above.
unsafe impl<T: Zeroable + Sync> Sync for ZeroedSlice<T> {}

impl<T: Zeroable> std::fmt::Debug for ZeroedSlice<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "ZeroedSlice({} values)", self.len)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    #[test]
    fn values_start_at_zero_and_keep_what_is_written() {
        let mut words = ZeroedSlice::<AtomicU64>::new(1 << 20);
        assert_eq!(words.len(), 1 << 20);
        assert!(words.iter().step_by(4096).all(|w| w.load(Ordering::Relaxed) == 0));
        words[12345].store(7, Ordering::Relaxed);
        *words[999_999].get_mut() = 9;
        assert_eq!(words[12345].load(Ordering::Relaxed) + words[999_999].load(Ordering::Relaxed), 16);
        let empty = ZeroedSlice::<AtomicU64>::new(0);
        assert!(empty.is_empty());
    }
}
