//! Unit tests of the cell classes, the class wheel and the bitboard playouts.

use super::classes::CellClasses;
use super::*;
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// A random position of up to `max_plies` plies that is not over.
fn random_position(rng: &mut Xoshiro256PlusPlus, max_plies: u32) -> ConnectFour {
    let mut game = ConnectFour::new();
    for _ in 0..random_below(rng, max_plies) {
        let moves = game.legal_moves();
        let mut next = game;
        next.play_unchecked(moves[random_below(rng, moves.len() as u32) as usize]);
        if next.outcome().is_some() {
            break;
        }
        game = next;
    }
    game
}

/// The action value of playing `cell`, x20, by its definition: play it and look.
fn weight_by_playing(game: &ConnectFour, cell: u64) -> u32 {
    let (mine, theirs) = (game.current, game.current ^ game.mask);
    let above = (cell << 1) & BOARD;
    if has_four(mine | cell) {
        20_000
    } else if has_four(theirs | cell) {
        2_000
    } else if above != 0 && (has_four(theirs | above) || has_four(mine | above)) {
        // A gift (the opponent wins above) or a spoil (the opponent blocks above).
        1
    } else if winning_cells(mine | cell, game.mask | cell) & !winning_cells(mine, game.mask) != 0 {
        40
    } else {
        20
    }
}

/// The bitboard classes give every playable cell 20 x its action value as defined by
/// playing it, and the classes' pruning is `pruned_cells`.
#[test]
fn cell_classes_are_the_action_values() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(6);
    for _ in 0..3000 {
        let game = random_position(&mut rng, 30);
        let classes = game.cell_classes();
        let playable = game.playable();
        assert_eq!(classes.masks().iter().fold(0, |all, m| all | m), playable, "{game:?}");
        assert_eq!(classes.masks().iter().map(|m| m.count_ones()).sum::<u32>(), playable.count_ones());
        assert_eq!(classes.pruned(), game.pruned_cells(), "{game:?}");
        for mv in game.legal_moves() {
            let cell = playable & column_mask(mv.0 as u32);
            let weight = weight_by_playing(&game, cell);
            assert_eq!(classes.weight(cell), weight, "{game:?} column {}", mv.0 + 1);
            assert_eq!(weight as f32, 20.0 * game.action_value(mv), "{game:?} column {}", mv.0 + 1);
        }
    }
}

/// The class wheel draws each kept cell with probability weight / total (chi-square
/// test at 99.9 % over 60,000 draws per position), for the hand-set weights and for a
/// learned wheel whose gammas reverse their order.
#[test]
fn class_wheel_follows_its_weights() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(8);
    const DRAWS: u32 = 60_000;
    let learned = ClassWheel::learned(&[0.25, 0.5, 8.0, 4.0, 2.0, 1.0]);
    assert_eq!(learned.0, [1 << 19, 1 << 20, 1 << 24, 1 << 23, 1 << 22, 1 << 21]);
    // Gammas 4·10^5 apart keep their ratios to within 1 %.
    let wide = ClassWheel::learned(&[1000.0, 100.0, 0.0025, 0.0025, 4.0, 1.0]);
    let ratio = |a: usize, b: usize| f64::from(wide.0[a]) / f64::from(wide.0[b]);
    for (a, b, expected) in [(0, 5, 1000.0), (1, 5, 100.0), (5, 2, 400.0), (4, 5, 4.0)] {
        assert!((ratio(a, b) / expected - 1.0).abs() < 0.01, "{:?}: classes {a}/{b}", wide.0);
    }
    for wheel in [CellClasses::HAND_SET, learned] {
        for _ in 0..40 {
            let game = random_position(&mut rng, 24);
            let classes = game.cell_classes();
            let weight = |cell: u64| wheel.0[classes.masks().iter().position(|&m| m & cell != 0).unwrap()];
            let cells: Vec<u64> = (0..WIDTH).map(|c| game.playable() & column_mask(c)).filter(|&c| c != 0).collect();
            let mut counts = vec![0u32; cells.len()];
            for _ in 0..DRAWS {
                let cell = classes.draw(game.playable(), &wheel, &mut rng);
                counts[cells.iter().position(|&c| c == cell).expect("a playable cell")] += 1;
            }
            let total: u32 = cells.iter().map(|&c| weight(c)).sum();
            let chi2: f64 = cells
                .iter()
                .zip(&counts)
                .map(|(&c, &n)| {
                    let expected = DRAWS as f64 * weight(c) as f64 / total as f64;
                    (n as f64 - expected).powi(2) / expected
                })
                .sum();
            // 99.9 % quantile of chi-square with 6 degrees of freedom (at most 7 cells).
            assert!(chi2 < 22.46, "{wheel:?} {game:?}: counts {counts:?}, chi2 {chi2}");
        }
    }
}

/// A move's learned feature is its action value's class: the hand-set gammas, indexed
/// by [`Playouts::move_feature`], give back [`Playouts::action_value`], and the names
/// match the gammas one to one.
#[test]
fn move_features_are_the_action_value_classes() {
    let gammas = hand_set_gammas();
    assert_eq!(gammas, [1000.0, 100.0, 0.05, 0.05, 2.0, 1.0]);
    assert_eq!(ConnectFour::move_features().len(), gammas.len());
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
    for _ in 0..2000 {
        let game = random_position(&mut rng, 30);
        for mv in game.legal_moves() {
            let feature = game.move_feature(mv).expect("every legal move has a class");
            assert_eq!(gammas[feature], game.action_value(mv), "{game:?} column {}", mv.0 + 1);
            assert_eq!(game.learned_strength(mv, &gammas), game.action_value(mv));
        }
    }
}

/// The bitboard pruned playout plays exactly the game of the trait's pruned loop from
/// the same generator state, and records the same moves.
#[test]
fn pruned_bitboard_playout_matches_the_trait_loop() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
    let policy = PlayoutPolicy { prune: true, ..PlayoutPolicy::default() };
    for i in 0..2000 {
        let mut start = ConnectFour::new();
        for _ in 0..i % 20 {
            let moves = start.legal_moves();
            let mut next = start;
            next.play_unchecked(moves[random_below(&mut rng, moves.len() as u32) as usize]);
            if next.outcome().is_some() {
                break;
            }
            start = next;
        }
        let (mut fast, mut slow) = (start, start);
        let (mut fast_played, mut slow_played) = (MovesPlayed::default(), MovesPlayed::default());
        let mut fast_rng = rng.clone();
        let fast_outcome = fast.recorded_playout(&mut fast_rng, policy, &mut fast_played);
        let slow_outcome = crate::games::playout::recorded_play_out(&mut slow, &mut rng, policy, &mut slow_played);
        assert_eq!(fast_outcome, slow_outcome, "game {i}");
        assert_eq!(fast, slow, "game {i}");
        assert_eq!(fast_played, slow_played, "game {i}");
    }
}
