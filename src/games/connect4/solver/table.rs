//! The transposition table: a bound per position, forgotten in O(1) by generations.

use super::SolveError;

/// The transposition table: `key << 15 | generation << 8 | value` per slot, value 0 =
/// empty. Always-replace (Pons, part 11).
pub(super) struct Table {
    pub(super) slots: Vec<u64>,
    generation: u64,
}

impl Table {
    const GENERATIONS: u64 = 1 << 7;

    pub(super) fn new(entries: usize) -> Result<Table, SolveError> {
        if entries == 0 {
            return Err(SolveError::BadTableSize(entries));
        }
        let size = entries;
        let mut slots = Vec::new();
        slots.try_reserve_exact(size).map_err(|_| SolveError::BadTableSize(entries))?;
        slots.resize(size, 0);
        Ok(Table { slots, generation: 1 })
    }

    /// `key` scrambled by a multiplication, then mapped onto the table by Lemire's
    /// multiply-shift range reduction: no division on the hot path.
    #[inline]
    fn index(&self, key: u64) -> usize {
        let mixed = key.wrapping_mul(0x9E37_79B9_7F4A_7C15);
        ((u128::from(mixed) * self.slots.len() as u128) >> 64) as usize
    }

    #[inline]
    pub(super) fn get(&self, key: u64) -> u8 {
        let slot = self.slots[self.index(key)];
        if slot >> 8 == (key << 7 | self.generation) {
            slot as u8
        } else {
            0
        }
    }

    #[inline]
    pub(super) fn put(&mut self, key: u64, value: u8) {
        let i = self.index(key);
        self.slots[i] = key << 15 | self.generation << 8 | u64::from(value);
    }

    /// Forgets every entry: a new generation, and a real clear when generations wrap.
    pub(super) fn reset(&mut self) {
        self.generation += 1;
        if self.generation == Self::GENERATIONS {
            self.slots.fill(0);
            self.generation = 1;
        }
    }
}
