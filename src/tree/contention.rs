//! Contention counting, for the scaling model (`docs/SCALING.md`, "The contention
//! model"). Built with the cargo feature `contention` (off by default), every operation of
//! the shared tree (`SharedTree`) is counted by the depth of the node it touches:
//! atomic read-modify-writes, plain stores, and loads of node words; and each one is run
//! through an emulation of the cache lines' coherence (which workers hold a valid copy of
//! each 64-byte line), which counts the *line transfers*: a load of a line whose last
//! writer was another worker, and a write to a line another worker holds. Those are the
//! accesses that cost a cache-line handoff between cores.
//!
//! Without the feature every hook is an empty `#[inline(always)]` function: the search
//! compiles to the same code (checked by instruction counts, docs/SCALING.md).
//!
//! Counts and emulated lines belong to the calling thread, so the counts come from the
//! virtual-thread simulator, where the logical workers take turns in one thread in a fixed
//! order: there they are exact and reproducible. (Real threads each count only their own
//! accesses, and see no transfers.) The drivers and the iteration tell the counter which
//! worker is running and at which tree depth.

use serde::Serialize;

/// The deepest depth counted separately; deeper accesses count at this depth.
pub const MAX_DEPTH: usize = 63;

/// What an access to a node word does.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Access {
    /// A load.
    Load,
    /// A plain store (initialising or publishing a node).
    Store,
    /// An atomic read-modify-write (`fetch_add`, `fetch_or`, compare-and-swap).
    Rmw,
}

/// Counts gathered since the last [`take`], per tree depth (index = depth; accesses with
/// no depth, such as batched backups flushed from a worker's table, at [`MAX_DEPTH`] + 1).
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize)]
pub struct ContentionCounts {
    /// Atomic read-modify-writes per depth.
    pub rmw: Vec<u64>,
    /// Plain stores per depth.
    pub stores: Vec<u64>,
    /// Loads of node words per depth.
    pub loads: Vec<u64>,
    /// Cache-line transfers between workers per depth (emulated coherence).
    pub transfers: Vec<u64>,
    /// The part of `transfers` made by stores and read-modify-writes (taking a line
    /// exclusive: these stall; loads of other workers' lines can overlap).
    pub write_transfers: Vec<u64>,
}

impl ContentionCounts {
    #[cfg_attr(not(feature = "contention"), allow(dead_code))]
    fn zeroed(buckets: usize) -> ContentionCounts {
        let zeros = vec![0; buckets];
        ContentionCounts {
            rmw: zeros.clone(),
            stores: zeros.clone(),
            loads: zeros.clone(),
            transfers: zeros.clone(),
            write_transfers: zeros,
        }
    }

    /// Sum over the depths of one of the count vectors.
    pub fn total(counts: &[u64]) -> u64 {
        counts.iter().sum()
    }
}

#[cfg(feature = "contention")]
mod counting {
    use super::{Access, ContentionCounts, MAX_DEPTH};
    use std::cell::{Cell, RefCell};
    use std::collections::HashMap;

    const BUCKETS: usize = MAX_DEPTH + 2;

    /// One thread's counts and emulated lines (line address -> the set of workers that
    /// hold a valid copy, one bit per worker modulo 64).
    #[derive(Default)]
    struct Counter {
        counts: ContentionCounts,
        lines: HashMap<usize, u64>,
    }

    thread_local! {
        static DEPTH: Cell<usize> = const { Cell::new(MAX_DEPTH + 1) };
        static WORKER: Cell<u32> = const { Cell::new(0) };
        static COUNTER: RefCell<Counter> = RefCell::new(Counter::default());
    }

    pub(super) fn at_depth(depth: usize) {
        DEPTH.with(|d| d.set(depth.min(MAX_DEPTH)));
    }

    pub(super) fn no_depth() {
        DEPTH.with(|d| d.set(MAX_DEPTH + 1));
    }

    pub(super) fn set_worker(worker: usize) {
        WORKER.with(|w| w.set((worker % 64) as u32));
    }

    pub(super) fn access(address: usize, access: Access) {
        let depth = DEPTH.with(Cell::get);
        let me = 1u64 << WORKER.with(Cell::get);
        COUNTER.with_borrow_mut(|c| {
            let counts = &mut c.counts;
            if counts.rmw.is_empty() {
                *counts = ContentionCounts::zeroed(BUCKETS);
            }
            match access {
                Access::Load => counts.loads[depth] += 1,
                Access::Store => counts.stores[depth] += 1,
                Access::Rmw => counts.rmw[depth] += 1,
            }
            let holders = c.lines.entry(address / 64).or_insert(0);
            let transfer = match access {
                // A copy from another worker's cache.
                Access::Load => *holders != 0 && *holders & me == 0,
                // Taking the line exclusive from (or invalidating) other holders.
                Access::Store | Access::Rmw => *holders & !me != 0,
            };
            if transfer {
                counts.transfers[depth] += 1;
                if access != Access::Load {
                    counts.write_transfers[depth] += 1;
                }
            }
            *holders = if access == Access::Load { *holders | me } else { me };
        });
    }

    pub(super) fn take() -> ContentionCounts {
        COUNTER.with_borrow_mut(|c| {
            c.lines.clear();
            let counts = std::mem::take(&mut c.counts);
            if counts.rmw.is_empty() {
                ContentionCounts::zeroed(BUCKETS)
            } else {
                counts
            }
        })
    }
}

/// Attributes the following accesses of this thread to tree depth `depth`.
#[inline(always)]
pub(crate) fn at_depth(depth: usize) {
    #[cfg(feature = "contention")]
    counting::at_depth(depth);
    #[cfg(not(feature = "contention"))]
    let _ = depth;
}

/// The following accesses of this thread have no depth (batched backups being flushed).
#[inline(always)]
pub(crate) fn no_depth() {
    #[cfg(feature = "contention")]
    counting::no_depth();
}

/// The following accesses of this thread are worker `worker`'s (a real thread, or a
/// logical worker of the simulator).
#[inline(always)]
pub(crate) fn set_worker(worker: usize) {
    #[cfg(feature = "contention")]
    counting::set_worker(worker);
    #[cfg(not(feature = "contention"))]
    let _ = worker;
}

/// Counts an access to the word `offset` bytes into `base` (a node's field, by the
/// offsets of [`super::node::FIELD_OFFSETS`]).
#[inline(always)]
pub(crate) fn access<T>(base: &T, offset: usize, access: Access) {
    #[cfg(feature = "contention")]
    counting::access(base as *const T as usize + offset, access);
    #[cfg(not(feature = "contention"))]
    let _ = (base, offset, access);
}

/// Whether this build counts (the `contention` feature).
pub const ENABLED: bool = cfg!(feature = "contention");

/// This thread's counts since its last call (all zero without the `contention` feature),
/// and resets them and the emulated lines: take them before and after a search.
pub fn take() -> ContentionCounts {
    #[cfg(feature = "contention")]
    return counting::take();
    #[cfg(not(feature = "contention"))]
    ContentionCounts::default()
}
