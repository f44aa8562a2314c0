//! The transposition table: two-slot buckets of exact positions with bounds on their values.

use super::EndgameError;

/// One table slot: the position in full, bounds on its value, and its best square.
#[derive(Clone, Copy, Default)]
pub(super) struct Entry {
    pub(super) me: u64,
    pub(super) opp: u64,
    pub(super) lower: i8,
    pub(super) upper: i8,
    /// The best square, or 64 for none.
    pub(super) best: u8,
}

impl Entry {
    #[inline]
    pub(super) fn holds(&self, me: u64, opp: u64) -> bool {
        self.me == me && self.opp == opp
    }

    /// The position's empty squares (the size of its subtree, roughly); 0 for an unused
    /// slot (no discs).
    #[inline]
    pub(super) fn empties(&self) -> u32 {
        if self.me | self.opp == 0 {
            0
        } else {
            (!(self.me | self.opp)).count_ones()
        }
    }
}

/// The transposition table: a fixed-size array of two-slot buckets, allocated once.
/// A position lives in either slot of its bucket: the first keeps the deeper of the
/// positions that met there (the larger subtree, the dearer to search again), the
/// second takes the rest, always replaced (Breuker, Uiterwijk & van den Herik's
/// "two-deep" scheme).
pub(super) struct Table {
    pub(super) slots: Vec<Entry>,
}

impl Table {
    pub(super) fn new(entries: usize) -> Result<Table, EndgameError> {
        if entries == 0 {
            return Err(EndgameError::BadTableSize(entries));
        }
        // Whole buckets: an odd size gets one slot more.
        let slots_wanted = entries.checked_add(entries & 1).ok_or(EndgameError::BadTableSize(entries))?;
        let mut slots = Vec::new();
        slots.try_reserve_exact(slots_wanted).map_err(|_| EndgameError::BadTableSize(entries))?;
        slots.resize(slots_wanted, Entry::default());
        Ok(Table { slots })
    }

    /// The first slot of a position's bucket: the two bitboards mixed by
    /// multiplications, mapped onto the buckets by Lemire's multiply-shift range
    /// reduction (no division).
    #[inline]
    fn index(&self, me: u64, opp: u64) -> usize {
        let mut h = me.wrapping_mul(0x9E37_79B9_7F4A_7C15) ^ opp.wrapping_mul(0xC2B2_AE3D_27D4_EB4F);
        h ^= h >> 29;
        h = h.wrapping_mul(0xBF58_476D_1CE4_E5B9);
        2 * ((u128::from(h) * (self.slots.len() / 2) as u128) >> 64) as usize
    }

    #[inline]
    pub(super) fn get(&self, me: u64, opp: u64) -> Option<Entry> {
        let i = self.index(me, opp);
        [self.slots[i], self.slots[i + 1]].into_iter().find(|entry| entry.holds(me, opp))
    }

    /// Records a fail-soft `score` searched in `(alpha, beta)`, tightening the bounds
    /// already known for the same position.
    #[inline]
    pub(super) fn put(&mut self, me: u64, opp: u64, alpha: i32, beta: i32, score: i32, best: u32) {
        let i = self.index(me, opp);
        let (slot, mut lower, mut upper) = if let Some(j) = (i..i + 2).find(|&j| self.slots[j].holds(me, opp)) {
            (j, i32::from(self.slots[j].lower), i32::from(self.slots[j].upper))
        } else if (!(me | opp)).count_ones() >= self.slots[i].empties() {
            // The deeper position keeps the first slot; its old one moves to the second.
            self.slots[i + 1] = self.slots[i];
            (i, -64, 64)
        } else {
            (i + 1, -64, 64)
        };
        if score > alpha {
            lower = lower.max(score);
        }
        if score < beta {
            upper = upper.min(score);
        }
        self.slots[slot] = Entry { me, opp, lower: lower as i8, upper: upper as i8, best: best as u8 };
    }
}
