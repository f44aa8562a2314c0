//! Stable discs: discs that no sequence of moves can flip, a bound on the final score.
//!
//! After Edax's `get_stability` (Richard Delorme, `src/board.c`): the exactly stable
//! discs of the four edges (from a table over every edge configuration), the discs of the
//! mover inside the board whose four lines (row, column, both diagonals) are full, then
//! every disc that in each of the four directions touches a stable disc or lies on a full
//! line, repeated to a fixed point. A count, not all stable discs: a lower bound.
//!
//! The solver's use ("stability cutoff"): the opponent keeps at least its `s` stable discs,
//! so the side to move ends with at most `64 - 2s`; a node searched with `alpha` at or
//! above that bound fails low at once.

use std::sync::OnceLock;

/// Files a (col 0) and h (col 7) as bit masks.
const FILE_A: u64 = 0x0101_0101_0101_0101;
#[cfg(test)]
const FILE_H: u64 = 0x8080_8080_8080_8080;
/// The squares off the edges, where the full-line rule applies.
const INNER: u64 = 0x007E_7E7E_7E7E_7E00;

/// The 15 diagonals (a8-h1 direction: square index step 7) and 15 anti-diagonals (step 9).
const DIAGONALS_7: [u64; 15] = diagonals(7);
const DIAGONALS_9: [u64; 15] = diagonals(9);

/// The 15 lines of squares `(row, col)` with `row + col` (step 7) or `row - col`
/// (step 9) constant.
const fn diagonals(step: u32) -> [u64; 15] {
    let mut lines = [0u64; 15];
    let mut sq = 0;
    while sq < 64 {
        let (row, col) = (sq / 8, sq % 8);
        let line = if step == 7 { row + col } else { row + 7 - col };
        lines[line] |= 1 << sq;
        sq += 1;
    }
    lines
}

/// The squares on full lines in each of the four directions: (rows, columns, step-7
/// diagonals, step-9 diagonals).
#[inline]
fn full_lines(discs: u64) -> [u64; 4] {
    let mut rows = discs & (discs >> 1);
    rows &= rows >> 2;
    rows &= rows >> 4;
    let rows = (rows & FILE_A) * 0xFF;
    let mut cols = discs & discs.rotate_right(8);
    cols &= cols.rotate_right(16);
    cols &= cols.rotate_right(32);
    let full = |lines: &[u64; 15]| lines.iter().fold(0, |acc, &l| if discs & l == l { acc | l } else { acc });
    [rows, cols, full(&DIAGONALS_7), full(&DIAGONALS_9)]
}

/// Stable discs of the mover on one edge of 8 squares, for every `(mover, opponent)`
/// pair of edge bytes (64 KiB, computed once).
fn edge_table() -> &'static [[u8; 256]; 256] {
    static TABLE: OnceLock<Box<[[u8; 256]; 256]>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = Box::new([[0u8; 256]; 256]);
        for me in 0..256u32 {
            for opp in 0..256u32 {
                if me & opp == 0 {
                    table[me as usize][opp as usize] = edge_stable(me, opp, me) as u8;
                }
            }
        }
        table
    })
}

/// The discs of `stable` (a subset of `me`'s edge discs) that stay `me`'s whatever is
/// played on the edge's empty squares, by either side, in any order (a superset of the
/// legal play, as discs may arrive on the edge from moves elsewhere).
fn edge_stable(me: u32, opp: u32, stable: u32) -> u32 {
    let stable = stable & me;
    let empty = !(me | opp) & 0xFF;
    if stable == 0 || empty == 0 {
        return stable;
    }
    let mut stable = stable;
    let mut squares = empty;
    while squares != 0 {
        let x = squares.trailing_zeros();
        squares &= squares - 1;
        let flipped = edge_flips(me, opp, x);
        stable = edge_stable(me | flipped | 1 << x, opp & !flipped, stable);
        if stable == 0 {
            return 0;
        }
        let flipped = edge_flips(opp, me, x);
        stable = edge_stable(me & !flipped, opp | flipped | 1 << x, stable);
        if stable == 0 {
            return 0;
        }
    }
    stable
}

/// The `opp` discs of an edge flipped when the owner of `me` plays its square `x`.
fn edge_flips(me: u32, opp: u32, x: u32) -> u32 {
    let mut flipped = 0;
    for step in [-1i32, 1] {
        let (mut run, mut y) = (0, x as i32 + step);
        while (0..8).contains(&y) && opp >> y & 1 != 0 {
            run |= 1 << y;
            y += step;
        }
        if (0..8).contains(&y) && me >> y & 1 != 0 {
            flipped |= run;
        }
    }
    flipped
}

/// The a-file (or, shifted, any file) packed into a byte: a1 -> bit 0 … a8 -> bit 7.
#[inline]
fn pack_file_a(bits: u64) -> usize {
    ((bits & FILE_A).wrapping_mul(0x0102_0408_1020_4080) >> 56) as usize
}

/// The inverse of [`pack_file_a`]: bit k of `byte` -> square 8k (the a-file).
#[inline]
fn unpack_file_a(byte: u8) -> u64 {
    let mut bits = 0;
    let mut rest = byte;
    while rest != 0 {
        bits |= 1 << (8 * rest.trailing_zeros());
        rest &= rest - 1;
    }
    bits
}

/// The mover's stable discs on the four edges.
#[inline]
fn stable_edges(me: u64, opp: u64) -> u64 {
    let table = edge_table();
    let row1 = u64::from(table[(me & 0xFF) as usize][(opp & 0xFF) as usize]);
    let row8 = u64::from(table[(me >> 56) as usize][(opp >> 56) as usize]) << 56;
    let file_a = unpack_file_a(table[pack_file_a(me)][pack_file_a(opp)]);
    let file_h = unpack_file_a(table[pack_file_a(me >> 7)][pack_file_a(opp >> 7)]) << 7;
    row1 | row8 | file_a | file_h
}

/// A lower bound on the number of stable discs of the owner of `me` (Edax's
/// `get_stability`).
pub(super) fn stable_discs(me: u64, opp: u64) -> u32 {
    let full = full_lines(me | opp);
    let inner = me & INNER;
    let mut stable = stable_edges(me, opp) | (inner & full[0] & full[1] & full[2] & full[3]);
    if stable == 0 {
        return 0;
    }
    loop {
        let rows = (stable >> 1) | (stable << 1) | full[0];
        let cols = (stable >> 8) | (stable << 8) | full[1];
        let diag7 = (stable >> 7) | (stable << 7) | full[2];
        let diag9 = (stable >> 9) | (stable << 9) | full[3];
        let grown = stable | (rows & cols & diag7 & diag9 & inner);
        if grown == stable {
            return stable.count_ones();
        }
        stable = grown;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn file_packing_round_trips() {
        for byte in 0..=255u8 {
            let bits = unpack_file_a(byte);
            assert_eq!(bits & !FILE_A, 0);
            assert_eq!(pack_file_a(bits), byte as usize);
            assert_eq!(pack_file_a((bits << 7 | 0x7E7E_7E7E_7E7E_7E7E) >> 7), byte as usize);
        }
        assert_eq!(FILE_H, FILE_A << 7);
    }

    #[test]
    fn full_lines_and_diagonals() {
        assert_eq!(DIAGONALS_7.iter().fold(0, |a, &l| a | l), !0);
        assert_eq!(DIAGONALS_9.iter().map(|l| l.count_ones()).sum::<u32>(), 64);
        assert_eq!(DIAGONALS_9[7], 0x8040_2010_0804_0201); // a1-h8
        assert_eq!(DIAGONALS_7[7], 0x0102_0408_1020_4080); // h1-a8
        assert_eq!(full_lines(!0), [!0; 4]);
        assert_eq!(full_lines(0xFF)[0], 0xFF);
        assert_eq!(full_lines(FILE_A)[1], FILE_A);
    }

    /// Corners are stable, an edge filled with one colour is stable, and a disc an
    /// opponent could flip is not.
    #[test]
    fn stable_disc_examples() {
        assert_eq!(stable_discs(1, 0), 1);
        assert_eq!(stable_discs(0b10, 0), 0);
        assert_eq!(stable_discs(0b111, 0), 3);
        assert_eq!(stable_discs(0b011, 0b100), 2);
        // a1 mine, b1 opponent's, c1 empty: b1 is not the mover's, a1 stable.
        assert_eq!(stable_discs(0b001, 0b010), 1);
        // A full board: every disc stable.
        assert_eq!(stable_discs(0xFFFF_FFFF, !0xFFFF_FFFF), 32);
        // b1 between an empty a1 and an opponent's c1: flippable.
        assert_eq!(stable_discs(0b010, 0b100), 0);
    }
}
