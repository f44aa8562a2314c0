//! Othello's bitboard primitives, the hot path of every playout, in two builds:
//! [`Portable`] Rust for any target, and [`Avx2`] (x86-64 with AVX2, BMI1/2, POPCNT and
//! LZCNT), chosen at run time.
//!
//! The crate is built for baseline x86-64 so that a release binary runs on any x86-64
//! machine, and baseline x86-64 has neither `popcnt` nor 256-bit vectors. A playout is a
//! chain of about 60 dependent moves (generate, pick, flip, generate, …), each waiting
//! for the last, so what pays is a shorter chain: the AVX2 build runs the four line
//! directions of the doubling fill as the four lanes of one vector, for the legal squares
//! and for the flips alike, keeps the board in vector registers from the flips to the
//! next generation, and picks the `k`-th legal square with one `pdep`. Both builds
//! enumerate squares in the same order and draw the same random numbers, so from the same
//! generator state they play the same game (tested).

use rand_core::RngCore;

use crate::games::random_below;

/// The primitives of a playout, implemented once per instruction set.
pub(super) trait Kernels: Copy {
    /// The empty squares where the owner of `me` outflanks at least one run of `opp` discs.
    fn legal_squares(self, me: u64, opp: u64) -> u64;

    /// Plays the empty, legal square `placed` (one set bit) for the owner of `me`:
    /// returns the position from the opponent's side, `(opp', me')`, and the opponent's
    /// legal squares there.
    fn play(self, me: u64, opp: u64, placed: u64) -> (u64, u64, u64);

    /// A uniformly random square (one set bit) of the non-empty `mask`: its `k`-th set
    /// bit counting from bit 0, for `k = random_below(rng, popcount(mask))`.
    fn random_square<R: RngCore>(self, mask: u64, rng: &mut R) -> u64;

    /// Calls `f`, compiled so that this build's instructions are enabled in everything
    /// inlined into it.
    fn run<T>(self, f: impl FnOnce(Self) -> T) -> T;
}

/// Plain Rust: any target, no feature detection.
#[derive(Clone, Copy, Debug)]
pub(super) struct Portable;

impl Kernels for Portable {
    #[inline(always)]
    fn legal_squares(self, me: u64, opp: u64) -> u64 {
        legal_squares(me, opp)
    }

    #[inline(always)]
    fn play(self, me: u64, opp: u64, placed: u64) -> (u64, u64, u64) {
        let flipped = flips(me, opp, placed.trailing_zeros());
        let (me, opp) = (me | placed | flipped, opp & !flipped);
        (opp, me, legal_squares(opp, me))
    }

    #[inline(always)]
    fn random_square<R: RngCore>(self, mask: u64, rng: &mut R) -> u64 {
        let prefix = byte_prefix_counts(mask);
        1 << select_bit(mask, prefix, random_below(rng, (prefix >> 56) as u32))
    }

    #[inline(always)]
    fn run<T>(self, f: impl FnOnce(Self) -> T) -> T {
        f(self)
    }
}

/// Every square except those on the a- and h-files. Horizontal and diagonal runs of
/// discs are confined to it so that a shift never wraps from one rank to the next.
const NOT_EDGE_FILES: u64 = 0x7E7E_7E7E_7E7E_7E7E;

/// Grows, along direction `d` and its opposite, the runs of `o` discs that start next to
/// a disc of `seed`, and returns the squares just beyond each run (one step further).
///
/// `o` must already be masked off the edge files for horizontal and diagonal `d`. The
/// doubling steps (`pre` = discs of `o` whose neighbour is also in `o`) reach run length
/// 6, the longest an 8-square line allows, in four steps instead of six.
#[inline(always)]
fn runs(seed: u64, o: u64, d: u32) -> (u64, u64) {
    let pre_l = o & (o << d);
    let pre_r = pre_l >> d;
    let mut l = o & (seed << d);
    let mut r = o & (seed >> d);
    l |= o & (l << d);
    r |= o & (r >> d);
    l |= pre_l & (l << (2 * d));
    r |= pre_r & (r >> (2 * d));
    l |= pre_l & (l << (2 * d));
    r |= pre_r & (r >> (2 * d));
    (l, r)
}

/// The empty squares where the owner of `me` outflanks at least one run of `opp` discs.
#[inline]
pub(super) fn legal_squares(me: u64, opp: u64) -> u64 {
    let inner = opp & NOT_EDGE_FILES;
    let mut reach = 0;
    for (o, d) in [(inner, 1), (opp, 8), (inner, 7), (inner, 9)] {
        let (l, r) = runs(me, o, d);
        reach |= (l << d) | (r >> d);
    }
    reach & !(me | opp)
}

/// The 8 directions as (file step, rank step): the first four go towards higher
/// square indices (+1, +9, +8, +7), the last four towards lower ones.
const DIRECTIONS: [(i32, i32); 8] = [(1, 0), (1, 1), (0, 1), (-1, 1), (-1, 0), (-1, -1), (0, -1), (1, -1)];

/// `RAYS[sq][dir]`: the squares from `sq` (exclusive) to the board's edge in direction
/// `DIRECTIONS[dir]`.
static RAYS: Aligned<[[u64; 8]; 64]> = Aligned(rays());

/// A table aligned to a cache line, so that each 64-byte row of [`RAYS`] is one line.
#[repr(align(64))]
struct Aligned<T>(T);

/// Builds [`RAYS`] at compile time.
const fn rays() -> [[u64; 8]; 64] {
    let mut table = [[0u64; 8]; 64];
    let mut sq = 0;
    while sq < 64 {
        let mut dir = 0;
        while dir < 8 {
            let (df, dr) = DIRECTIONS[dir];
            let (mut file, mut rank) = (sq as i32 % 8 + df, sq as i32 / 8 + dr);
            while file >= 0 && file < 8 && rank >= 0 && rank < 8 {
                table[sq][dir] |= 1 << (rank * 8 + file);
                file += df;
                rank += dr;
            }
            dir += 1;
        }
        sq += 1;
    }
    table
}

/// The `opp` discs flipped when the owner of `me` plays the empty square `sq`.
///
/// Along each ray from `sq`, the nearest square not holding an `opp` disc is isolated
/// (lowest set bit on rays that go up, highest on rays that go down); if it holds a disc
/// of `me`, the `opp` discs between it and `sq` flip. Branch-free, one table row.
#[inline]
pub(super) fn flips(me: u64, opp: u64, sq: u32) -> u64 {
    let rays = &RAYS.0[sq as usize & 63];
    let empty_or_me = !opp;
    let mut flipped = 0;
    for &ray in &rays[..4] {
        let stop = ray & empty_or_me;
        let outflank = stop & stop.wrapping_neg() & me;
        flipped |= outflank.wrapping_sub(u64::from(outflank != 0)) & ray;
    }
    for &ray in &rays[4..] {
        // Bit 0 is a sentinel so `leading_zeros` stays below 64; `& ray` discards it
        // when it is not on the ray.
        let stop = (ray & empty_or_me) | 1;
        let outflank = ((1u64 << 63) >> stop.leading_zeros()) & me & ray;
        flipped |= outflank.wrapping_neg().wrapping_shl(1) & ray;
    }
    flipped
}

/// Eight copies of a byte: `BYTES * b` repeats `b` in every byte of a `u64`.
const BYTES: u64 = 0x0101_0101_0101_0101;

/// Running bit counts by byte: byte `i` of the result is the number of set bits of
/// `mask` in bytes `0..=i`, so the top byte is the popcount (each byte is at most 64).
/// The classic SWAR popcount without its final shift (baseline x86-64 has no `popcnt`).
#[inline]
fn byte_prefix_counts(mask: u64) -> u64 {
    let x = mask - ((mask >> 1) & 0x5555_5555_5555_5555);
    let x = (x & 0x3333_3333_3333_3333) + ((x >> 2) & 0x3333_3333_3333_3333);
    let x = (x + (x >> 4)) & 0x0F0F_0F0F_0F0F_0F0F;
    x.wrapping_mul(BYTES)
}

/// `SELECT_IN_BYTE[b][r]`: the position of the `r`-th set bit of the byte `b` (8 when
/// `b` has at most `r` set bits).
static SELECT_IN_BYTE: [[u8; 8]; 256] = select_in_byte();

/// Builds [`SELECT_IN_BYTE`] at compile time.
const fn select_in_byte() -> [[u8; 8]; 256] {
    let mut table = [[8u8; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let (mut bit, mut r) = (0, 0);
        while bit < 8 {
            if b >> bit & 1 != 0 {
                table[b][r] = bit as u8;
                r += 1;
            }
            bit += 1;
        }
        b += 1;
    }
    table
}

/// The square of the `k`-th set bit of `mask`, counting from bit 0, given
/// `prefix = byte_prefix_counts(mask)` and `k < popcount(mask)`.
///
/// Branch-free broadword select (after Vigna, "Broadword implementation of rank/select
/// queries", 2008): the bytes whose running count is at most `k` precede the byte that
/// holds the bit, and a table finishes inside that byte.
#[inline]
fn select_bit(mask: u64, prefix: u64, k: u32) -> u32 {
    // High bit of byte i set ⇔ prefix_i <= k (both below 128, so no borrow crosses bytes).
    let at_most_k = (((u64::from(k) * BYTES) | 0x8080_8080_8080_8080) - prefix) & 0x8080_8080_8080_8080;
    let shift = (((at_most_k >> 7).wrapping_mul(BYTES) >> 56) * 8) as u32;
    let before = ((prefix << 8) >> shift) as u32 & 0xFF;
    let byte = (mask >> shift) as usize & 0xFF;
    shift + u32::from(SELECT_IN_BYTE[byte][(k - before) as usize & 7])
}

#[cfg(target_arch = "x86_64")]
pub(super) use x86::Avx2;

/// The AVX2 + BMI2 build.
#[cfg(target_arch = "x86_64")]
mod x86 {
    use std::arch::x86_64::{
        __m256i, _mm256_add_epi64, _mm256_and_si256, _mm256_andnot_si256, _mm256_castsi256_si128, _mm256_cmpeq_epi64,
        _mm256_extracti128_si256, _mm256_or_si256, _mm256_permute4x64_epi64, _mm256_set1_epi64x, _mm256_set_epi64x,
        _mm256_setzero_si256, _mm256_shuffle_epi32, _mm256_sllv_epi64, _mm256_srlv_epi64, _mm_cvtsi128_si64,
        _mm_or_si128, _mm_unpackhi_epi64, _pdep_u64,
    };

    use rand_core::RngCore;

    use super::{Kernels, NOT_EDGE_FILES};
    use crate::games::random_below;

    /// Proof that the CPU has AVX2, BMI1, BMI2, POPCNT and LZCNT: only [`Avx2::detect`]
    /// makes one.
    #[derive(Clone, Copy, Debug)]
    pub(in crate::games::othello) struct Avx2 {
        _detected: (),
    }

    impl Avx2 {
        /// The AVX2 build when this CPU runs it (std caches the CPUID answers, so this
        /// is a few loads).
        #[inline(always)]
        pub(in crate::games::othello) fn detect() -> Option<Avx2> {
            let detected = is_x86_feature_detected!("avx2")
                && is_x86_feature_detected!("bmi1")
                && is_x86_feature_detected!("bmi2")
                && is_x86_feature_detected!("popcnt")
                && is_x86_feature_detected!("lzcnt");
            detected.then_some(Avx2 { _detected: () })
        }
    }

    /// Runs `f` with the features enabled, so that the kernels' intrinsics and
    /// `count_ones`/`trailing_zeros` inline into it as single instructions.
    #[target_feature(enable = "avx2,bmi1,bmi2,popcnt,lzcnt")]
    fn with_features<T>(kernels: Avx2, f: impl FnOnce(Avx2) -> T) -> T {
        f(kernels)
    }

    impl Kernels for Avx2 {
        #[inline(always)]
        fn legal_squares(self, me: u64, opp: u64) -> u64 {
            // SAFETY: `self` exists only where `detect` found AVX2.
            unsafe { legal_in_lanes(splat(me), splat(opp)) }
        }

        #[inline(always)]
        fn play(self, me: u64, opp: u64, placed: u64) -> (u64, u64, u64) {
            // SAFETY: `self` exists only where `detect` found AVX2.
            unsafe { play(me, opp, placed) }
        }

        #[inline(always)]
        fn random_square<R: RngCore>(self, mask: u64, rng: &mut R) -> u64 {
            let k = random_below(rng, mask.count_ones());
            // SAFETY: `self` exists only where `detect` found BMI2.
            unsafe { _pdep_u64(1 << k, mask) }
        }

        #[inline(always)]
        fn run<T>(self, f: impl FnOnce(Self) -> T) -> T {
            // SAFETY: `self` exists only where `detect` found every feature enabled. The
            // reason is speed: 1.76-1.80x playouts (`othello_playout_builds` bench).
            unsafe { with_features(self, f) }
        }
    }

    /// `[v, v, v, v]`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn splat(v: u64) -> __m256i {
        _mm256_set1_epi64x(v as i64)
    }

    /// The OR of the four lanes.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn or_lanes(v: __m256i) -> u64 {
        let half = _mm_or_si128(_mm256_castsi256_si128(v), _mm256_extracti128_si256::<1>(v));
        _mm_cvtsi128_si64(_mm_or_si128(half, _mm_unpackhi_epi64(half, half))) as u64
    }

    /// The OR of the four lanes, in every lane (the board stays in vector registers).
    #[inline]
    #[target_feature(enable = "avx2")]
    fn or_all_lanes(v: __m256i) -> __m256i {
        let v = _mm256_or_si256(v, _mm256_permute4x64_epi64::<0b01_00_11_10>(v));
        _mm256_or_si256(v, _mm256_shuffle_epi32::<0b01_00_11_10>(v))
    }

    /// The line steps 1, 8, 7, 9 (lane 0 to 3): horizontal, vertical, the two diagonals.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn steps() -> __m256i {
        _mm256_set_epi64x(9, 7, 8, 1)
    }

    /// [`super::runs`] in every direction at once: the runs of `opp` discs that start next
    /// to a disc of `seed`, grown towards higher squares (`l`) and lower ones (`r`) along
    /// each lane's line.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn runs(seed: __m256i, opp: __m256i) -> (__m256i, __m256i) {
        let (step, step2) = (steps(), _mm256_add_epi64(steps(), steps()));
        // Horizontal and diagonal runs stay off the edge files; vertical ones cannot wrap.
        let edges = NOT_EDGE_FILES as i64;
        let o = _mm256_and_si256(opp, _mm256_set_epi64x(edges, edges, -1, edges));
        let pre_l = _mm256_and_si256(o, _mm256_sllv_epi64(o, step));
        let pre_r = _mm256_srlv_epi64(pre_l, step);
        let mut l = _mm256_and_si256(o, _mm256_sllv_epi64(seed, step));
        let mut r = _mm256_and_si256(o, _mm256_srlv_epi64(seed, step));
        l = _mm256_or_si256(l, _mm256_and_si256(o, _mm256_sllv_epi64(l, step)));
        r = _mm256_or_si256(r, _mm256_and_si256(o, _mm256_srlv_epi64(r, step)));
        l = _mm256_or_si256(l, _mm256_and_si256(pre_l, _mm256_sllv_epi64(l, step2)));
        r = _mm256_or_si256(r, _mm256_and_si256(pre_r, _mm256_srlv_epi64(r, step2)));
        l = _mm256_or_si256(l, _mm256_and_si256(pre_l, _mm256_sllv_epi64(l, step2)));
        r = _mm256_or_si256(r, _mm256_and_si256(pre_r, _mm256_srlv_epi64(r, step2)));
        (l, r)
    }

    /// [`super::legal_squares`] of the mover `me` against `opp` (both splatted): the
    /// empty squares one step beyond a run grown from `me`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn legal_in_lanes(me: __m256i, opp: __m256i) -> u64 {
        let (l, r) = runs(me, opp);
        let reach = _mm256_or_si256(_mm256_sllv_epi64(l, steps()), _mm256_srlv_epi64(r, steps()));
        or_lanes(_mm256_andnot_si256(_mm256_or_si256(me, opp), reach))
    }

    /// The discs flipped by `placed` (splatted, one bit): the runs grown from the
    /// placed disc whose next square, one step beyond, holds a disc of `me`. The same
    /// fill as the legal squares, seeded with one disc, so no ray table.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn flips_in_lanes(me: __m256i, opp: __m256i, placed: __m256i) -> __m256i {
        let (l, r) = runs(placed, opp);
        let zero = _mm256_setzero_si256();
        let l_open = _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_sllv_epi64(l, steps()), me), zero);
        let r_open = _mm256_cmpeq_epi64(_mm256_and_si256(_mm256_srlv_epi64(r, steps()), me), zero);
        _mm256_or_si256(_mm256_andnot_si256(l_open, l), _mm256_andnot_si256(r_open, r))
    }

    /// [`Kernels::play`] with the board in vector registers from the flips to the reply.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn play(me: u64, opp: u64, placed: u64) -> (u64, u64, u64) {
        let (p, o, b) = (splat(me), splat(opp), splat(placed));
        let flipped = or_all_lanes(flips_in_lanes(p, o, b));
        let (p, o) = (_mm256_or_si256(p, _mm256_or_si256(flipped, b)), _mm256_andnot_si256(flipped, o));
        let reply = legal_in_lanes(o, p);
        let flipped = _mm_cvtsi128_si64(_mm256_castsi256_si128(flipped)) as u64;
        (opp & !flipped, me | placed | flipped, reply)
    }
}

#[cfg(test)]
mod tests {
    use rand_core::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;

    /// Every position of 3,000 random games, from both sides: the AVX2 build's legal
    /// squares, moves (every legal square) and random picks equal the portable build's.
    #[cfg(target_arch = "x86_64")]
    #[test]
    fn avx2_build_agrees_with_the_portable_one() {
        let Some(avx2) = Avx2::detect() else {
            eprintln!("skipped: this CPU lacks AVX2/BMI2, so the AVX2 build never runs here");
            return;
        };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
        let mut positions = 0;
        for _ in 0..3_000 {
            let (mut me, mut opp) = ((1u64 << 28) | (1 << 35), (1u64 << 27) | (1 << 36));
            loop {
                for (a, b) in [(me, opp), (opp, me)] {
                    assert_eq!(avx2.legal_squares(a, b), Portable.legal_squares(a, b), "{a:#x} {b:#x}");
                }
                let mask = Portable.legal_squares(me, opp);
                if mask == 0 {
                    if Portable.legal_squares(opp, me) == 0 {
                        break;
                    }
                    (me, opp) = (opp, me);
                    continue;
                }
                let mut squares = mask;
                while squares != 0 {
                    let placed = squares & squares.wrapping_neg();
                    assert_eq!(
                        avx2.play(me, opp, placed),
                        Portable.play(me, opp, placed),
                        "{me:#x} {opp:#x} {placed:#x}"
                    );
                    squares &= squares - 1;
                }
                let placed = avx2.random_square(mask, &mut rng.clone());
                assert_eq!(placed, Portable.random_square(mask, &mut rng));
                assert!(placed.is_power_of_two() && placed & mask != 0);
                (me, opp, _) = Portable.play(me, opp, placed);
                positions += 1;
            }
        }
        assert!(positions > 150_000, "{positions} positions");
    }

    /// The portable build's picks cover every legal square, uniformly.
    #[test]
    fn random_squares_are_uniform_over_the_mask() {
        let mask = 0x8100_0000_0018_0001u64;
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
        let mut counts = [0u32; 64];
        for _ in 0..50_000 {
            counts[Portable.random_square(mask, &mut rng).trailing_zeros() as usize] += 1;
        }
        for (sq, &count) in counts.iter().enumerate() {
            if mask >> sq & 1 == 0 {
                assert_eq!(count, 0);
            } else {
                assert!((9_000..11_000).contains(&count), "square {sq}: {count}");
            }
        }
    }
}
