//! Unit tests of the playout's square classes.

use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::*;

/// The class wheel draws every legal square with probability `w(class) / Σ w`:
/// 200,000 draws per mask, each frequency within 4 % (relative) of its share, over
/// masks with one, several and every class, for the hand-set and a learned set.
#[test]
fn class_roulette_follows_the_class_weights() {
    let learned = learned_roulette(&[9.0, 0.2, 2.5, 1.5, 0.1, 1.0, 1.2, 0.8, 0.6, 0.9]);
    let masks = [0x8100_0000_0018_0001u64, 0x0000_0042_2400_0081, 0xFFFF_0000_0000_FFFF, 0x0000_0018_1800_0000];
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(12);
    for wheel in [HAND_SET_WHEEL, learned] {
        for mask in masks {
            let weight = |sq: usize| u64::from(wheel.0[SQUARE_CLASS[sq] as usize]);
            let total: u64 = (0..64).filter(|&sq| mask >> sq & 1 != 0).map(weight).sum();
            let mut counts = [0u32; 64];
            let draws = 200_000;
            for _ in 0..draws {
                let placed = wheel.pick(Portable, mask, &mut rng);
                assert!(placed.is_power_of_two() && placed & mask != 0, "{placed:#x} not in {mask:#x}");
                counts[placed.trailing_zeros() as usize] += 1;
            }
            for sq in (0..64).filter(|&sq| mask >> sq & 1 != 0) {
                let expected = draws as f64 * weight(sq) as f64 / total as f64;
                let tolerance = 0.04 * expected + 4.0 * expected.sqrt();
                assert!(
                    (counts[sq] as f64 - expected).abs() < tolerance,
                    "square {sq} of {mask:#x}: {} draws, expected {expected:.0}",
                    counts[sq]
                );
            }
        }
    }
}
