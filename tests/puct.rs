//! PUCT selection (`select=puct`), root noise and the move temperature.

use std::collections::HashSet;
use std::time::{Duration, Instant};

use parmcts::{ConfigError, ConnectFour, Game, Mode, Search, SearchConfig};

fn config(settings: &[(&str, &str)]) -> SearchConfig {
    SearchConfig::builder().apply_settings(settings.iter().copied()).unwrap().build().unwrap()
}

#[test]
fn puct_finds_the_win_and_keeps_the_invariants() {
    // The first player wins at once in column 1.
    let position = ConnectFour::parse_position("121213").unwrap();
    for (mode, threads) in [("seq", "1"), ("tree", "2")] {
        let cfg = config(&[("select", "puct"), ("playouts", "20000"), ("mode", mode), ("threads", threads)]);
        let mut search = Search::new(cfg).unwrap();
        let result = search.run(&position).unwrap();
        assert_eq!(position.format_move(result.best_move.unwrap()), "1", "{mode}");
        search.check_invariants().unwrap();
    }
}

#[test]
fn the_prior_orders_the_first_visits() {
    // Column 7 wins (the action values' highest class; pruning, the solver and halving at
    // the root off): PUCT's first playout goes there whatever the seed, where UCB1 takes
    // the first unvisited child of the block.
    let position = ConnectFour::parse_position("767675").unwrap();
    let first_visit = |select: &str, seed: u64| {
        let seed = seed.to_string();
        let settings = [
            ("select", select),
            ("playouts", "1"),
            ("seed", &seed),
            ("prune", "off"),
            ("solver", "off"),
            ("halving", "off"),
        ];
        let result = Search::new(config(&settings)).unwrap().run(&position).unwrap();
        result.children.iter().find(|c| c.visits == 1).map(|c| position.format_move(c.mv)).unwrap()
    };
    assert!((0..20).all(|seed| first_visit("puct", seed) == "7"));
    assert!((0..20).all(|seed| first_visit("ucb", seed) != "7"));
}

#[test]
fn root_noise_moves_the_priors() {
    let priors = |noise: &str| {
        let cfg = config(&[("select", "puct"), ("until-stopped", "on"), ("noise", noise), ("seed", "3")]);
        let handle = Search::new(cfg).unwrap().start(ConnectFour::new()).unwrap();
        let until = Instant::now() + Duration::from_secs(10);
        let snapshot = loop {
            let snapshot = handle.snapshot();
            if snapshot.playouts > 100 || Instant::now() > until {
                break snapshot;
            }
        };
        handle.stop();
        snapshot.children.iter().map(|c| c.prior).collect::<Vec<f64>>()
    };
    let (plain, noisy) = (priors("0"), priors("0.3"));
    assert_ne!(plain, noisy);
    for p in [&plain, &noisy] {
        let sum: f64 = p.iter().sum();
        assert!((sum - 1.0).abs() < 0.01, "{p:?}");
    }
    // A quarter of each prior is the noise's: none moves by more than that.
    assert!(plain.iter().zip(&noisy).all(|(a, b)| (a - b).abs() <= 0.25 * 1.0 + 1e-3));
}

#[test]
fn a_temperature_draws_the_move_by_its_visits() {
    let moves = |temperature: &str| -> HashSet<u16> {
        (0..24)
            .map(|seed| {
                let cfg = config(&[
                    ("playouts", "3000"),
                    ("temperature", temperature),
                    ("seed", &seed.to_string()),
                    ("halving", "off"),
                ]);
                let result = Search::new(cfg).unwrap().run(&ConnectFour::new()).unwrap();
                let most = result.children.iter().max_by_key(|c| c.visits).unwrap().mv;
                if temperature == "0" {
                    assert_eq!(result.best_move, Some(most), "no temperature: the most visited move");
                }
                result.best_move.unwrap().0
            })
            .collect()
    };
    assert!(moves("2").len() > moves("0").len(), "a temperature spreads the moves");
}

#[test]
fn puct_settings_are_checked() {
    let build = |k: &str, v: &str| SearchConfig::builder().playouts(10).apply_settings([(k, v)]).unwrap().build();
    for (key, value) in [("c-puct", "0"), ("fpu", "1.5"), ("noise", "-1"), ("noise-frac", "2"), ("temperature", "-0.5")]
    {
        match build(key, value) {
            Err(ConfigError::OutOfRange { key: k, .. }) => assert_eq!(k, key),
            other => panic!("{key}={value}: {other:?}"),
        }
    }
    let unknown = SearchConfig::builder().apply_settings([("select", "ucb2")]).unwrap_err().to_string();
    assert!(unknown.contains("ucb or puct"), "{unknown}");
    let mut search =
        Search::new(config(&[("select", "puct"), ("playouts", "100"), ("mode", "root"), ("threads", "2")])).unwrap();
    assert_eq!(search.run(&ConnectFour::new()).unwrap().mode, Mode::RootParallel);
}
