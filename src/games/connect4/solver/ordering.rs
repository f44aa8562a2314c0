//! Move ordering: [`MoveSorter`] pops moves by decreasing score, centre first among ties.

use crate::games::connect4::WIDTH;

/// Moves sorted by score, popped best first; equal scores pop in the reverse of their
/// insertion order (Pons's `MoveSorter`), so inserting edge columns first puts the centre
/// first among ties.
pub(super) struct MoveSorter {
    entries: [(u64, u32); WIDTH as usize],
    len: usize,
}

impl MoveSorter {
    #[inline]
    pub(super) fn new() -> MoveSorter {
        MoveSorter { entries: [(0, 0); WIDTH as usize], len: 0 }
    }

    #[inline]
    pub(super) fn add(&mut self, cell: u64, score: u32) {
        let mut pos = self.len;
        self.len += 1;
        while pos > 0 && self.entries[pos - 1].1 > score {
            self.entries[pos] = self.entries[pos - 1];
            pos -= 1;
        }
        self.entries[pos] = (cell, score);
    }

    #[inline]
    pub(super) fn pop(&mut self) -> Option<u64> {
        self.len = self.len.checked_sub(1)?;
        Some(self.entries[self.len].0)
    }
}
