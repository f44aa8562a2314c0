//! The bitboard words of [`super::ConnectFourBoard`] (one to three `u64`s, by the board's
//! size) and the line tests on them: four in a row, and the cells that would complete one.

use std::ops::{BitAnd, BitOr, BitXor, Shl, Shr};

/// Whether `stones` hold four in a row; `h1` bits per column.
#[inline(always)]
pub(super) fn has_four<W: Word>(stones: W, h1: u32) -> bool {
    let line = |dir: u32| {
        let pairs = stones & (stones >> dir);
        pairs & (pairs >> (2 * dir))
    };
    (line(1) | line(h1) | line(h1 - 1) | line(h1 + 1)) != W::ZERO
}

/// The cells where a stone would complete four in a row with `stones` (`h1` bits per
/// column), filled or not, sentinels included: vertical (three stones below), horizontal
/// and both diagonals (the four windows of four through each cell). As `games/connect4/`'s
/// `winning_cells` (Pons, part 9, `compute_winning_position`) without the final mask;
/// the sentinels stop lines from wrapping across columns.
#[inline(always)]
pub(super) fn winning_cells<W: Word>(stones: W, h1: u32) -> W {
    let mut cells = (stones << 1) & (stones << 2) & (stones << 3);
    for dir in [h1, h1 - 1, h1 + 1] {
        // Two neighbours on one side, then either a third on that side or one opposite.
        let pair = (stones << dir) & (stones << (2 * dir));
        cells = cells | (pair & (stones << (3 * dir))) | (pair & (stones >> dir));
        let pair = (stones >> dir) & (stones >> (2 * dir));
        cells = cells | (pair & (stones >> (3 * dir))) | (pair & (stones << dir));
    }
    cells
}

/// The words the bitboards live in: `u64` and `Words<2>` for the boards that fit,
/// [`Wide`] for every board. Shifts are by 1 to 63 bits (the line strides and their multiples,
/// at most 3 x 14 = 42).
pub(super) trait Word:
    Copy
    + PartialEq
    + BitAnd<Output = Self>
    + BitOr<Output = Self>
    + BitXor<Output = Self>
    + Shl<u32, Output = Self>
    + Shr<u32, Output = Self>
{
    /// No bit set.
    const ZERO: Self;
    /// Bit `i` alone (`i` below the word's bits).
    fn bit(i: u32) -> Self;
    /// Whether bit `i` (below the word's bits) is set.
    fn test(&self, i: u32) -> bool;
    /// The low bits of `wide` that fit.
    fn from_wide(wide: Wide) -> Self;
    /// The same bits in a [`Wide`].
    fn to_wide(self) -> Wide;
    /// [`has_four`] for stones with no four but, perhaps, one through bit `cell`.
    #[inline(always)]
    fn has_four_through(self, _cell: u32, h1: u32) -> bool {
        has_four(self, h1)
    }
}

impl Word for u64 {
    const ZERO: Self = 0;
    #[inline(always)]
    fn bit(i: u32) -> Self {
        1 << i
    }
    #[inline(always)]
    fn test(&self, i: u32) -> bool {
        *self >> i & 1 != 0
    }
    #[inline(always)]
    fn from_wide(wide: Wide) -> Self {
        wide.0[0]
    }
    #[inline(always)]
    fn to_wide(self) -> Wide {
        Words([self, 0, 0])
    }
}

/// A bitboard of `N` words, bit `i` in word `i / 64`: `Words<3>` ([`Wide`]) holds the
/// widest board's 156 bits. Not a `u128` for two words: its shifts by a run-time amount
/// must allow for 64 and more, these only for 1 to 63 (one double-word shift a word).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub(super) struct Words<const N: usize>(pub(super) [u64; N]);

/// Room for every board.
pub(super) type Wide = Words<3>;

impl Wide {
    /// The `len` (below 64) bits from bit `from` (below 192) on, at the bottom of a `u64`.
    pub(super) fn bits_at(self, from: u32, len: u32) -> u64 {
        let (word, shift) = ((from / 64) as usize, from % 64);
        let low = self.0[word] >> shift;
        let high = match self.0.get(word + 1) {
            Some(&next) if shift > 0 => next << (64 - shift),
            _ => 0,
        };
        (low | high) & ((1 << len) - 1)
    }
}

impl<const N: usize> Word for Words<N> {
    const ZERO: Self = Words([0; N]);
    #[inline(always)]
    fn bit(i: u32) -> Self {
        let mut words = [0; N];
        words[(i / 64) as usize] = 1 << (i % 64);
        Words(words)
    }
    #[inline(always)]
    fn test(&self, i: u32) -> bool {
        self.0[(i / 64) as usize] >> (i % 64) & 1 != 0
    }
    #[inline(always)]
    fn from_wide(wide: Wide) -> Self {
        Words(std::array::from_fn(|k| wide.0[k]))
    }
    #[inline(always)]
    fn to_wide(self) -> Wide {
        Words(std::array::from_fn(|k| self.0.get(k).copied().unwrap_or(0)))
    }
    /// On three words, [`has_four`] of the two-word window from bit `cell - 63` on: the
    /// lines through `cell` lie within 3 x 14 = 42 bits of it, and the strides are the
    /// same in the window (a line cut at its edge is not through `cell`; none other has
    /// four).
    #[inline(always)]
    fn has_four_through(self, cell: u32, h1: u32) -> bool {
        if N < 3 {
            return has_four(self, h1);
        }
        let from = cell.saturating_sub(63);
        let (k, shift) = ((from / 64) as usize, from % 64);
        let word = |k: usize| u128::from(self.0.get(k).copied().unwrap_or(0));
        // The third word's bits past the window's top fall off; `<< 64 << (64 - shift)`
        // is 0 when `shift` is 0.
        let window = (word(k) | word(k + 1) << 64) >> shift | word(k + 2) << 64 << (64 - shift);
        has_four(Words([window as u64, (window >> 64) as u64]), h1)
    }
}

impl<const N: usize> BitAnd for Words<N> {
    type Output = Self;
    #[inline(always)]
    fn bitand(self, other: Self) -> Self {
        Words(std::array::from_fn(|k| self.0[k] & other.0[k]))
    }
}

impl<const N: usize> BitOr for Words<N> {
    type Output = Self;
    #[inline(always)]
    fn bitor(self, other: Self) -> Self {
        Words(std::array::from_fn(|k| self.0[k] | other.0[k]))
    }
}

impl<const N: usize> BitXor for Words<N> {
    type Output = Self;
    #[inline(always)]
    fn bitxor(self, other: Self) -> Self {
        Words(std::array::from_fn(|k| self.0[k] ^ other.0[k]))
    }
}

impl<const N: usize> Shl<u32> for Words<N> {
    type Output = Self;
    /// Towards higher bits by `n` in 1..64; the bits past the last word are lost.
    #[inline(always)]
    fn shl(self, n: u32) -> Self {
        let w = self.0;
        Words(std::array::from_fn(|k| if k == 0 { w[0] << n } else { w[k] << n | w[k - 1] >> (64 - n) }))
    }
}

impl<const N: usize> Shr<u32> for Words<N> {
    type Output = Self;
    /// Towards lower bits by `n` in 1..64.
    #[inline(always)]
    fn shr(self, n: u32) -> Self {
        let w = self.0;
        Words(std::array::from_fn(|k| if k + 1 == N { w[k] >> n } else { w[k] >> n | w[k + 1] << (64 - n) }))
    }
}
