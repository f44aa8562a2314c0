//! Othello's bitboard primitives, the hot path of every playout, in two builds of the
//! same algorithms: [`Portable`] Rust for any target, and [`Avx2`] (x86-64 with AVX2,
//! BMI1/2, POPCNT and LZCNT), chosen at run time.
//!
//! The crate is built for baseline x86-64 so that a release binary runs on any x86-64
//! machine, and baseline x86-64 has neither `popcnt` nor 256-bit vectors. A playout is a
//! chain of about 60 dependent move generations, so that is where the wider instructions
//! pay: the four line directions of the legal-move fill and of the flips run as the four
//! 64-bit lanes of one AVX2 vector, and the `k`-th legal square is one `pdep`. Both builds
//! enumerate squares in the same order and draw the same random numbers, so from the same
//! generator state they play the same game (tested).

use rand_core::RngCore;

use crate::games::random_below;

/// The primitives a playout needs, implemented once per instruction set.
pub(super) trait Kernels: Copy {
    /// The empty squares where the owner of `me` outflanks at least one run of `opp` discs.
    fn legal_squares(self, me: u64, opp: u64) -> u64;

    /// The `opp` discs flipped when the owner of `me` plays the empty square `sq` (< 64).
    fn flips(self, me: u64, opp: u64, sq: u32) -> u64;

    /// A uniformly random square of the non-empty `mask`: its `k`-th set bit counting
    /// from bit 0, for `k = random_below(rng, popcount(mask))`.
    fn random_square<R: RngCore>(self, mask: u64, rng: &mut R) -> u32;

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
    fn flips(self, me: u64, opp: u64, sq: u32) -> u64 {
        flips(me, opp, sq)
    }

    #[inline(always)]
    fn random_square<R: RngCore>(self, mask: u64, rng: &mut R) -> u32 {
        let prefix = byte_prefix_counts(mask);
        select_bit(mask, prefix, random_below(rng, (prefix >> 56) as u32))
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
        __m256i, _mm256_add_epi64, _mm256_and_si256, _mm256_andnot_si256, _mm256_castsi256_si128,
        _mm256_cmpeq_epi64, _mm256_extracti128_si256, _mm256_load_si256, _mm256_or_si256, _mm256_set1_epi64x,
        _mm256_set_epi64x, _mm256_setzero_si256, _mm256_sllv_epi64, _mm256_srlv_epi64, _mm256_sub_epi64,
        _mm_cvtsi128_si64, _mm_or_si128, _mm_unpackhi_epi64, _pdep_u64,
    };

    use rand_core::RngCore;

    use super::{Kernels, NOT_EDGE_FILES, RAYS};
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
            unsafe { legal_squares(me, opp) }
        }

        #[inline(always)]
        fn flips(self, me: u64, opp: u64, sq: u32) -> u64 {
            // SAFETY: `self` exists only where `detect` found AVX2.
            unsafe { flips(me, opp, sq) }
        }

        #[inline(always)]
        fn random_square<R: RngCore>(self, mask: u64, rng: &mut R) -> u32 {
            let k = random_below(rng, mask.count_ones());
            // SAFETY: `self` exists only where `detect` found BMI2.
            unsafe { nth_square(mask, k) }
        }

        #[inline(always)]
        fn run<T>(self, f: impl FnOnce(Self) -> T) -> T {
            // SAFETY: `self` exists only where `detect` found every feature enabled.
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

    /// [`super::legal_squares`] with the four line directions (1, 8, 7, 9) as the four
    /// lanes: the same doubling fill, one vector instruction per step for all four.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn legal_squares(me: u64, opp: u64) -> u64 {
        let step = _mm256_set_epi64x(9, 7, 8, 1);
        let step2 = _mm256_add_epi64(step, step);
        // Horizontal and diagonal runs stay off the edge files; vertical ones may not wrap.
        let edges = NOT_EDGE_FILES as i64;
        let o = _mm256_and_si256(splat(opp), _mm256_set_epi64x(edges, edges, -1, edges));
        let seed = splat(me);
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
        let reach = _mm256_or_si256(_mm256_sllv_epi64(l, step), _mm256_srlv_epi64(r, step));
        or_lanes(reach) & !(me | opp)
    }

    /// [`super::flips`] with the four rays towards higher squares in one vector and the
    /// four towards lower squares in another.
    ///
    /// Upwards the nearest square without an `opp` disc is the ray's lowest such bit
    /// (`x & -x`); downwards it is the highest, which AVX2 cannot count, so it is smeared
    /// down the ray instead (three doubling shifts cover the 7 squares of the longest
    /// ray): the squares above the smear are the run of `opp` discs next to `sq`, and the
    /// stop is the smear's top. A run flips when its stop holds a disc of `me`.
    #[inline]
    #[target_feature(enable = "avx2")]
    fn flips(me: u64, opp: u64, sq: u32) -> u64 {
        let rays = &RAYS.0[sq as usize & 63];
        // SAFETY: a row of `RAYS` is 64-byte aligned (`Aligned`), so both halves are
        // 32-byte aligned, in bounds, 4 × u64 each.
        let (up, down) = unsafe {
            (
                _mm256_load_si256(rays.as_ptr().cast::<__m256i>()),
                _mm256_load_si256(rays.as_ptr().add(4).cast::<__m256i>()),
            )
        };
        let (p, o, zero) = (splat(me), splat(opp), _mm256_setzero_si256());

        let stop = _mm256_andnot_si256(o, up);
        let outflank = _mm256_and_si256(_mm256_and_si256(stop, _mm256_sub_epi64(zero, stop)), p);
        let below_outflank = _mm256_sub_epi64(outflank, splat(1));
        let flip_up = _mm256_andnot_si256(_mm256_cmpeq_epi64(outflank, zero), _mm256_and_si256(below_outflank, up));

        // The lower rays go -1, -9, -8, -7 (`DIRECTIONS[4..]`).
        let step = _mm256_set_epi64x(7, 8, 9, 1);
        let stop = _mm256_andnot_si256(o, down);
        let mut smear = _mm256_or_si256(stop, _mm256_srlv_epi64(stop, step));
        smear = _mm256_or_si256(smear, _mm256_srlv_epi64(smear, _mm256_add_epi64(step, step)));
        smear = _mm256_or_si256(smear, _mm256_srlv_epi64(smear, _mm256_set_epi64x(28, 32, 36, 4)));
        let run = _mm256_andnot_si256(smear, down);
        let nearest_stop = _mm256_andnot_si256(_mm256_srlv_epi64(smear, step), stop);
        let outflanked = _mm256_cmpeq_epi64(_mm256_and_si256(nearest_stop, p), zero);
        let flip_down = _mm256_andnot_si256(outflanked, run);

        or_lanes(_mm256_or_si256(flip_up, flip_down))
    }

    /// The `k`-th set bit of `mask` counting from bit 0 (`k < popcount(mask)`).
    #[inline]
    #[target_feature(enable = "bmi1,bmi2")]
    fn nth_square(mask: u64, k: u32) -> u32 {
        _pdep_u64(1 << k, mask).trailing_zeros()
    }
}
