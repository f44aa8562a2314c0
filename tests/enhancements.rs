//! Search enhancements: action values, roulette-wheel playouts and progressive bias.

use parmcts::games::roulette;
use parmcts::{ConnectFour, Game, Move, Othello, Player, Playouts, Search, SearchConfig, SearchGame, TicTacToe};
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

/// An Othello position (reached by seeded random play) where the side to move may take a
/// corner and has at least three other moves.
fn othello_with_corner() -> Othello {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(11);
    loop {
        let mut game = Othello::new();
        while game.outcome().is_none() {
            let moves = game.legal_moves();
            let moves = moves.as_ref();
            if moves.len() >= 4 && moves.iter().any(|m| [0, 7, 56, 63].contains(&m.0)) {
                return game;
            }
            game.play_unchecked(moves[parmcts::games::random_below(&mut rng, moves.len() as u32) as usize]);
        }
    }
}

/// Draws `n` moves by roulette and checks each frequency against `f(m) / Σ f` within 5
/// standard deviations (a biased wheel fails it).
fn roulette_matches_action_values<G: Playouts>(game: &G, n: u32) {
    let moves = game.legal_moves();
    let moves = moves.as_ref();
    let total: f64 = moves.iter().map(|&m| game.action_value(m) as f64).sum();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(3);
    let mut counts = vec![0u32; moves.len()];
    for _ in 0..n {
        let mv = roulette(game, moves, &mut rng);
        counts[moves.iter().position(|&m| m == mv).unwrap()] += 1;
    }
    for (i, &m) in moves.iter().enumerate() {
        let p = game.action_value(m) as f64 / total;
        let expected = p * n as f64;
        let sd = (n as f64 * p * (1.0 - p)).sqrt().max(1.0);
        assert!(
            (counts[i] as f64 - expected).abs() <= 5.0 * sd,
            "{}: move {} drawn {} times, expected {expected:.0}",
            G::NAME,
            game.format_move(m),
            counts[i]
        );
    }
}

#[test]
fn roulette_wheels_follow_the_action_values() {
    roulette_matches_action_values(&TicTacToe::new(), 100_000);
    roulette_matches_action_values(&ConnectFour::parse_position("44455").unwrap(), 100_000);
    roulette_matches_action_values(&othello_with_corner(), 100_000);
}

#[test]
fn connect4_action_values_rank_threats() {
    // The side to move (first player) has three in column 1 and can win there.
    let win = ConnectFour::parse_position("121213").unwrap();
    assert_eq!(win.action_value(Move(0)), 1000.0);
    // The second player must block column 1.
    let block = ConnectFour::parse_position("12131").unwrap();
    assert_eq!(block.action_value(Move(0)), 100.0);
    assert!(block.action_value(Move(3)) <= 5.0);
}

#[test]
fn othello_corners_outweigh_x_squares() {
    let game = Othello::new();
    assert!(game.action_value(Move(0)) > 10.0 * game.action_value(Move(9)), "a1 against b2");
    assert_eq!(game.action_value(Move(63)), game.action_value(Move(0)), "symmetry");
    assert_eq!(game.action_value(Move(7)), game.action_value(Move(56)), "symmetry");
}

#[test]
fn biased_playouts_finish_games() {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    for _ in 0..2000 {
        let mut game = Othello::new();
        game.biased_playout(&mut rng);
        assert!(game.outcome().is_some());
        let mut game = ConnectFour::new();
        game.biased_playout(&mut rng);
        assert!(game.outcome().is_some());
    }
}

#[test]
fn biased_playouts_find_connect4_wins_that_random_ones_miss() {
    // The first player wins at once in column 1; playouts from here that take the win
    // score for the first player. Threat-driven playouts take it almost always.
    let game = ConnectFour::parse_position("121213").unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(9);
    let (mut biased, mut random) = (0, 0);
    for _ in 0..10_000 {
        biased += game.clone().biased_playout(&mut rng).half_points(parmcts::Player::One);
        random += game.clone().random_playout(&mut rng).half_points(parmcts::Player::One);
    }
    assert!(biased > 19_500, "biased playouts scored {biased} of 20000 half points");
    assert!(random < biased, "random {random} vs biased {biased}");
}

#[test]
fn progressive_bias_steers_a_small_search_to_strong_moves() {
    // With a heavy bias and few playouts, Othello's search from a position where a
    // corner is legal spends most visits on the corner; without it, far fewer.
    let game = othello_with_corner();
    let corner = game.legal_moves().into_iter().find(|m| [0, 7, 56, 63].contains(&m.0)).unwrap();
    let visits = |bias: f64| {
        let config = SearchConfig::builder().playouts(400).bias(bias).bias_k(1e6).seed(2).build().unwrap();
        let mut search = Search::new(config).unwrap();
        let result = search.run(&game).unwrap();
        search.check_invariants().unwrap();
        result.children.iter().find(|c| c.mv == corner).unwrap().visits
    };
    let (plain, biased) = (visits(0.0), visits(5.0));
    assert!(biased > 2 * plain, "corner visits: {plain} without bias, {biased} with");
}

#[test]
fn enhancement_settings_are_validated() {
    let b = || SearchConfig::builder().playouts(10);
    assert!(b().bias(-0.5).build().is_err());
    assert!(b().bias(f64::NAN).build().is_err());
    assert!(b().bias_k(0.0).build().is_err());
    assert!(b().widen(-1.0).build().is_err());
    assert!(b().widen(f64::INFINITY).build().is_err());
    assert!("roulette".parse::<parmcts::search::Playout>().is_err());
    assert!(b().bias(0.5).bias_k(5000.0).build().is_ok());
}

/// Applies `prune_moves` to all legal moves and returns the kept ones as text.
fn kept<G: Playouts>(game: &G) -> Vec<String> {
    let mut moves = game.legal_moves();
    let moves = moves.as_mut();
    let n = game.prune_moves(moves);
    let mut kept: Vec<String> = moves[..n].iter().map(|&m| game.format_move(m)).collect();
    kept.sort();
    kept
}

#[test]
fn pruning_keeps_the_win_then_the_blocks() {
    // Connect Four (fast override): a win at once, then a forced block.
    assert_eq!(kept(&ConnectFour::parse_position("121213").unwrap()), ["1"]);
    assert_eq!(kept(&ConnectFour::parse_position("12131").unwrap()), ["1"]);
    // The first player's bottom row 3-4-5 is open at both ends: the second player keeps
    // both blocks, nothing else (it loses anyway, but only those moves delay it).
    assert_eq!(kept(&ConnectFour::parse_position("3344").unwrap()).len(), 7, "no threat yet: all moves");
    assert_eq!(kept(&ConnectFour::parse_position("33445").unwrap()), ["2", "6"]);
    // Tic-tac-toe (the trait's generic rule). X holds 1 and 2, O holds 4 and 5: X wins
    // on 3 at once. After X 1, O 5, X 2, O must block on 3.
    assert_eq!(kept(&TicTacToe::parse_position("1425").unwrap()), ["3"]);
    assert_eq!(kept(&TicTacToe::parse_position("152").unwrap()), ["3"]);
    // Nothing forced: every move stays.
    assert_eq!(kept(&TicTacToe::new()).len(), 9);
}

#[test]
fn pruned_searches_see_the_forced_move_with_tiny_budgets() {
    for (moves, forced) in [("12131", "1"), ("121213", "1"), ("33445", "2 or 6")] {
        let game = ConnectFour::parse_position(moves).unwrap();
        let config = SearchConfig::builder().playouts(20).prune(true).seed(1).build().unwrap();
        let mut search = Search::new(config).unwrap();
        let result = search.run(&game).unwrap();
        search.check_invariants().unwrap();
        let best = game.format_move(result.best_move.unwrap());
        assert!(forced.contains(&best), "{moves}: played {best}, forced {forced}");
        assert!(result.children.len() <= 2, "{moves}: pruned root keeps {} children", result.children.len());
    }
}

#[test]
fn pruned_playouts_finish_and_take_wins() {
    use parmcts::games::PlayoutPolicy;
    let pruned = |biased| PlayoutPolicy { biased, prune: true, ..PlayoutPolicy::default() };
    let game = ConnectFour::parse_position("121213").unwrap();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(4);
    for biased in [false, true] {
        for _ in 0..1000 {
            let mut g = game;
            let outcome = g.recorded_playout(&mut rng, pruned(biased), &mut parmcts::MovesPlayed::default());
            assert_eq!(outcome, parmcts::Outcome::Win(parmcts::Player::One));
        }
    }
    for _ in 0..500 {
        let mut g = Othello::new();
        g.recorded_playout(&mut rng, pruned(false), &mut parmcts::MovesPlayed::default());
        assert!(g.outcome().is_some());
    }
}

/// RAVE's recorded playouts: the same game as the unrecorded playout from the same
/// generator state, and exactly the moves of that game recorded, by player. In Othello
/// a square is played once per game, so the squares recorded are exactly the squares
/// that were empty before and are occupied after (passes aside).
#[test]
fn recorded_playouts_record_the_game_they_play() {
    use parmcts::games::PlayoutPolicy;
    use parmcts::MovesPlayed;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(12);
    for i in 0..300u64 {
        let start = Othello::new();
        let biased = i % 2 == 1;
        let mut plain = start;
        let mut recorded = start;
        let mut played = MovesPlayed::default();
        let state = rng.clone();
        let outcome = if biased { plain.biased_playout(&mut rng) } else { plain.random_playout(&mut rng) };
        let mut replay = state;
        assert_eq!(
            recorded.recorded_playout(&mut replay, PlayoutPolicy { biased, ..PlayoutPolicy::default() }, &mut played),
            outcome
        );
        assert_eq!(recorded, plain, "same generator state, same game");
        // OBF boards list a1..h8 with the file fastest: index = move id.
        let occupied = |g: &Othello| -> Vec<bool> { g.to_obf().bytes().take(64).map(|c| c != b'-').collect() };
        let (before, after) = (occupied(&start), occupied(&plain));
        for sq in 0..64u16 {
            let by_either = played.contains(Player::One, Move(sq)) || played.contains(Player::Two, Move(sq));
            assert_eq!(by_either, !before[sq as usize] && after[sq as usize], "square {sq}");
            assert!(!(played.contains(Player::One, Move(sq)) && played.contains(Player::Two, Move(sq))));
        }
    }
    // The trait's loop (Connect Four, pruned Othello): every recorded move was legal for
    // its player somewhere in the game, and the game finishes.
    for _ in 0..100 {
        let mut game = ConnectFour::new();
        let mut played = MovesPlayed::default();
        assert!(
            game.recorded_playout(
                &mut rng,
                PlayoutPolicy { biased: true, prune: true, ..PlayoutPolicy::default() },
                &mut played
            )
            .half_points(Player::One)
                <= 2
        );
        assert!((0..7).any(|c| played.contains(Player::One, Move(c))));
        let mut game = Othello::new();
        game.recorded_playout(&mut rng, PlayoutPolicy { prune: true, ..PlayoutPolicy::default() }, &mut played);
        assert!(game.outcome().is_some());
    }
}

/// RAVE in all three modes keeps every quiescent invariant, including rule 5 (a child's
/// AMAF visits cover its visits), and still finds the forced Connect Four win.
#[test]
fn rave_searches_keep_the_invariants() {
    use parmcts::Mode;
    for (mode, threads) in [(Mode::Sequential, 1), (Mode::TreeParallel, 2), (Mode::RootParallel, 2)] {
        let config = |playouts| {
            SearchConfig::builder().playouts(playouts).mode(mode).threads(threads).rave(1000.0).seed(4).build().unwrap()
        };
        let mut search = Search::new(config(60_000)).unwrap();
        search.run(&Othello::new()).unwrap();
        search.check_invariants().unwrap_or_else(|e| panic!("othello {mode:?}: {e}"));
        let win = ConnectFour::parse_position("121213").unwrap();
        let mut search = Search::new(config(20_000)).unwrap();
        let result = search.run(&win).unwrap();
        search.check_invariants().unwrap_or_else(|e| panic!("connect4 {mode:?}: {e}"));
        assert_eq!(win.format_move(result.best_move.unwrap()), "1", "{mode:?}");
    }
}

/// Learned weights (`weights=FILE`): the shipped Othello set drives the playout wheel by
/// its gammas (frequencies within 5 standard deviations of `gamma / Σ gamma` over the
/// moves' features), searches with it keep their invariants, and a game it was not made
/// for is refused with an error naming both games.
#[test]
fn learned_weights_drive_playouts_and_priors() {
    use parmcts::games::PlayoutPolicy;
    use parmcts::weights::MoveWeights;
    use parmcts::SearchError;
    let weights = MoveWeights::load("default").unwrap();
    let game = othello_with_corner();
    let policy = PlayoutPolicy { biased: true, gammas: Some(&weights.gammas), ..PlayoutPolicy::default() };
    let moves = game.legal_moves();
    let moves = moves.as_ref();
    let total: f64 = moves.iter().map(|&m| policy.strength(&game, m) as f64).sum();
    let n = 40_000;
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(8);
    let mut counts = vec![0u32; moves.len()];
    for _ in 0..n {
        let mut list = moves.to_vec();
        let mv = policy.pick(&game, &mut list, &mut rng);
        counts[moves.iter().position(|&m| m == mv).unwrap()] += 1;
    }
    for (i, &m) in moves.iter().enumerate() {
        let gamma = weights.gammas[game.move_feature(m).unwrap()] as f64;
        let p = gamma / total;
        let sd = (n as f64 * p * (1.0 - p)).sqrt().max(1.0);
        assert!((counts[i] as f64 - p * n as f64).abs() <= 5.0 * sd, "{}: {} draws", game.format_move(m), counts[i]);
    }
    // The bitboard wheel plays whole games.
    for _ in 0..50 {
        let mut g = Othello::new();
        g.learned_playout(&mut rng, &weights.gammas);
        assert!(g.outcome().is_some());
    }
    let config = SearchConfig::builder()
        .playouts(20_000)
        .bias(0.5)
        .playout(parmcts::search::Playout::Biased)
        .weights(weights)
        .build()
        .unwrap();
    let mut search = Search::new(config.clone()).unwrap();
    search.run(&Othello::new()).unwrap();
    search.check_invariants().unwrap();
    let err = Search::new(config).unwrap().run(&ConnectFour::new()).unwrap_err();
    assert!(matches!(err, SearchError::Weights(_)));
    assert!(err.to_string().contains("othello") && err.to_string().contains("connect4"), "{err}");
}

/// `weights=default` is the game's shipped set where it has one: on Othello the default
/// search equals one given the shipped file and differs from the hand-set action values;
/// on Connect Four (no shipped set) the default is the hand-set action values.
#[test]
fn default_weights_are_the_shipped_set() {
    use parmcts::search::Weights;
    use parmcts::weights::MoveWeights;
    fn visits<G: SearchGame>(root: &G, weights: Option<Weights>) -> Vec<u64> {
        // Playouts at the leaves (Othello's default evaluator would leave them out).
        let mut builder = SearchConfig::builder().playouts(3_000).seed(5).eval(parmcts::search::Evaluation::None);
        if let Some(weights) = weights {
            builder = builder.weights(weights);
        }
        let result = Search::new(builder.build().unwrap()).unwrap().run(root).unwrap();
        result.children.iter().map(|c| c.visits).collect()
    }
    let othello = Othello::new();
    let default = visits(&othello, None);
    assert_eq!(default, visits(&othello, Some(Weights::Shipped)));
    assert_eq!(default, visits(&othello, Some(MoveWeights::load("default").unwrap().into())));
    assert_ne!(default, visits(&othello, Some(Weights::HandSet)));
    let c4 = ConnectFour::new();
    assert_eq!(visits(&c4, None), visits(&c4, Some(Weights::HandSet)));
}

/// Progressive widening (`widen=A`): the root's children are taken in order of their
/// priors, the k-th (from 0) only from `A (1.4^k - 1)` root visits on, so after `N`
/// visits no child has been visited with more than `log_1.4(1 + N / A)` children of a
/// strictly larger prior; without widening the search spreads past that. Sequential and
/// tree-parallel, every invariant checked.
#[test]
fn progressive_widening_visits_the_strongest_moves_first() {
    use parmcts::{Go9, Mode};
    // A middle game: thirty random moves from the empty board (where many moves share a
    // prior).
    let mut game = Go9::new();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(30);
    for _ in 0..30 {
        let moves = game.legal_moves();
        game.try_play(moves.as_ref()[parmcts::games::random_below(&mut rng, moves.len() as u32) as usize]).unwrap();
    }
    // About 2,000 playouts at A = 200: a window of 8 children. The running search's
    // snapshot (a finished one's holds the result, which keeps no priors).
    let outliers = |mode: Mode, threads: usize, widen: f64| {
        let config = SearchConfig::builder().until_stopped(true).mode(mode).threads(threads).widen(widen).seed(6);
        let handle = Search::new(config.build().unwrap()).unwrap().start(game.clone()).unwrap();
        let until = std::time::Instant::now() + std::time::Duration::from_secs(60);
        let snapshot = loop {
            let snapshot = handle.snapshot();
            if snapshot.playouts >= 2_000 || std::time::Instant::now() > until {
                break snapshot;
            }
            std::thread::sleep(std::time::Duration::from_millis(1));
        };
        handle.stop().search.check_invariants().unwrap();
        // The root's visits (the root's own first one, and a walk's in flight, at most 2
        // more), and the window A = 200 gives (also where the search ran without widening).
        let root_visits = snapshot.children.iter().map(|c| c.visits).sum::<u64>() + 2;
        let window = 1 + ((1.0 + root_visits as f64 / 200.0).ln() / 1.4f64.ln()) as usize;
        let stronger = |prior: f64| snapshot.children.iter().filter(|c| c.prior > prior).count();
        let visited: Vec<_> = snapshot.children.iter().filter(|c| c.visits > 0).collect();
        assert!(visited.iter().all(|c| c.prior > 0.0), "{mode:?}, widen {widen}: {visited:?}");
        (visited.len(), visited.iter().filter(|c| stronger(c.prior) >= window).count())
    };
    for (mode, threads) in [(Mode::Sequential, 1), (Mode::TreeParallel, 2)] {
        let (visited, outside) = outliers(mode, threads, 200.0);
        assert!(visited >= 4 && outside == 0, "{mode:?}: {visited} visited, {outside} outside the window");
    }
    let (visited, outside) = outliers(Mode::Sequential, 1, 0.0);
    assert!(outside > 0, "without widening: {visited} visited, none outside the window");
}
