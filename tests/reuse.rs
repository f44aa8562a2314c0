//! Tree reuse: after a move and a reply, the subtree of the position reached becomes the
//! new root, compacted; the next search continues it and every invariant still holds.

use std::time::Duration;

use parmcts::harness::players::PlayerSpec;
use parmcts::{ConnectFour, Game, Mode, Othello, Search, SearchConfig, SearchGame};

fn config(mode: Mode) -> SearchConfig {
    SearchConfig::builder()
        .playouts(50_000)
        .mode(mode)
        .threads(if mode == Mode::Sequential { 1 } else { 2 })
        .reuse(true)
        .seed(4)
        .build()
        .unwrap()
}

/// Searches `root`, plays the best move and the reply the search expects (the principal
/// variation's second move: the most visited, so its subtree is large whichever reply a
/// run's thread timing favours), reuses, searches again; returns (nodes kept, second
/// result).
fn reuse_once<G: SearchGame>(root: &G, mode: Mode) -> (u64, parmcts::SearchResult) {
    let mut search = Search::new(config(mode)).unwrap();
    let first = search.run(root).unwrap();
    search.check_invariants().unwrap();
    assert_eq!(first.pv.first(), first.best_move.as_ref(), "{mode}: the pv starts with the best move");
    let mut next = root.clone();
    for &mv in &first.pv[..2] {
        next.play_unchecked(mv);
    }
    let kept = search.reuse(root, &next, 4);
    let second = search.run(&next).unwrap();
    search.check_invariants().unwrap_or_else(|e| panic!("{mode}: {e}"));
    assert_eq!(second.playouts, 50_000);
    assert_eq!(second.reused_nodes, kept);
    (kept, second)
}

#[test]
fn the_reached_subtree_is_kept_in_every_mode() {
    for mode in [Mode::Sequential, Mode::TreeParallel, Mode::RootParallel, Mode::Synced] {
        let (kept, second) = reuse_once(&ConnectFour::new(), mode);
        assert!(kept > 100, "{mode}: kept only {kept} nodes");
        // The root starts with the visits it had in the old tree.
        assert!(second.root_visits > 50_000, "{mode}: root visits {}", second.root_visits);
        let (kept, _) = reuse_once(&Othello::new(), mode);
        assert!(kept > 10, "{mode}: othello kept {kept}");
    }
}

#[test]
fn an_unknown_position_or_reuse_off_starts_afresh() {
    let mut search = Search::new(config(Mode::Sequential)).unwrap();
    let root = ConnectFour::new();
    search.run(&root).unwrap();
    let far = ConnectFour::parse_position("1234567123").unwrap();
    assert_eq!(search.reuse(&root, &far, 4), 0, "10 plies away: not within 4 plies");
    let result = search.run(&far).unwrap();
    assert_eq!((result.reused_nodes, result.root_visits), (0, 50_000));
    search.check_invariants().unwrap();

    let off = SearchConfig::builder().playouts(10_000).reuse(false).seed(1).build().unwrap();
    let mut search = Search::new(off).unwrap();
    search.run(&root).unwrap();
    let next = ConnectFour::parse_position("44").unwrap();
    assert_eq!(search.reuse(&root, &next, 4), 0);
    assert_eq!(search.run(&next).unwrap().reused_nodes, 0);
}

#[test]
fn a_reused_position_must_be_the_one_searched_next() {
    let mut search = Search::new(config(Mode::Sequential)).unwrap();
    let root = ConnectFour::new();
    search.run(&root).unwrap();
    let next = ConnectFour::parse_position("44").unwrap();
    assert!(search.reuse(&root, &next, 4) > 0);
    // Searching another position instead discards the kept tree.
    let other = ConnectFour::parse_position("43").unwrap();
    let result = search.run(&other).unwrap();
    assert_eq!((result.reused_nodes, result.root_visits), (0, 50_000));
    search.check_invariants().unwrap();
}

/// A move's time budget counts from the start of its reuse: the time spent finding and
/// compacting the kept subtree is part of it. A run whose budget ran out before it began
/// plays no new playout, and still answers from the kept tree.
#[test]
fn the_time_budget_counts_from_the_reuse() {
    let timed = SearchConfig::builder().time(Duration::from_millis(30)).reuse(true).seed(2).build().unwrap();
    let mut search = Search::new(timed).unwrap();
    let root = ConnectFour::new();
    search.run(&root).unwrap();
    let next = ConnectFour::parse_position("44").unwrap();
    assert!(search.reuse(&root, &next, 4) > 0);
    std::thread::sleep(Duration::from_millis(40));
    let result = search.run(&next).unwrap();
    assert_eq!(result.playouts, 0, "the budget was spent before the run");
    assert!(result.elapsed >= Duration::from_millis(40), "elapsed {:?}", result.elapsed);
    assert!(result.best_move.is_some() && result.reused_nodes > 0);
    search.check_invariants().unwrap();
    // Without a reuse just before it, a run has its whole budget.
    let third = ConnectFour::parse_position("4444").unwrap();
    assert!(search.run(&third).unwrap().playouts > 0);
}

#[test]
fn players_with_reuse_play_whole_games() {
    let spec = PlayerSpec::parse("mcts:playouts=3000,reuse=on").unwrap();
    let mut players = [spec.build::<Othello>(1).unwrap(), spec.build::<Othello>(2).unwrap()];
    let mut game = Othello::new();
    let mut reused = 0;
    while game.outcome().is_none() {
        let side = game.side_to_move().index();
        let mv = players[side].choose(&game).unwrap();
        reused += players[side].last_search().map_or(0, |r| r.reused_nodes);
        game.try_play(mv).unwrap();
    }
    assert!(reused > 0, "the players kept nothing between moves");
}

/// Reuse carries the enhancements' state: RAVE's AMAF counters (rule 5 of the invariants
/// would fail on a kept child with visits but fresh counters) and the solver's proofs
/// (checked against the game from the new root).
#[test]
fn reuse_keeps_amaf_counters_and_proofs() {
    for mode in [Mode::Sequential, Mode::TreeParallel, Mode::RootParallel, Mode::Synced] {
        let config = SearchConfig::builder()
            .playouts(40_000)
            .mode(mode)
            .threads(if mode == Mode::Sequential { 1 } else { 2 })
            .reuse(true)
            .rave(300.0)
            .solver(true)
            .seed(9);
        let mut search = Search::new(config.build().unwrap()).unwrap();
        let root = ConnectFour::parse_position("4444").unwrap();
        let first = search.run(&root).unwrap();
        let mut next = root;
        // The expected line (the principal variation's first two moves): a big subtree.
        next.play_unchecked(first.pv[0]);
        next.play_unchecked(first.pv[1]);
        let kept = search.reuse(&root, &next, 4);
        assert!(kept > 100, "{mode}: kept {kept}");
        search.run(&next).unwrap();
        search.check_invariants().unwrap_or_else(|e| panic!("{mode}: {e}"));
        search.check_proofs(&next).unwrap_or_else(|e| panic!("{mode}: {e}"));
    }
}

/// A 9x9 Go tree: the position two plies down (the principal variation's reply) is found
/// among some 6,400 and kept, and its visits carry over; a position four plies down that
/// the tree does not hold is given up on (a fresh tree), with at most a bounded number of
/// positions replayed.
#[test]
fn a_go_reply_is_found_two_plies_down() {
    let config = SearchConfig::builder().playouts(20_000).reuse(true).seed(5).build().unwrap();
    let mut search = Search::new(config).unwrap();
    let root = parmcts::Go9::new();
    let first = search.run(&root).unwrap();
    assert!(first.pv.len() >= 2, "pv {:?}", first.pv);
    let mut next = root.clone();
    next.play_unchecked(first.pv[0]);
    next.play_unchecked(first.pv[1]);
    let kept = search.reuse(&root, &next, 4);
    assert!(kept > 0);
    let second = search.run(&next).unwrap();
    assert!(second.root_visits > 20_000, "root visits {}", second.root_visits);
    search.check_invariants().unwrap();

    let mut far = next.clone();
    for _ in 0..4 {
        let mv = far.legal_moves().as_ref()[0];
        far.play_unchecked(mv);
    }
    let started = std::time::Instant::now();
    assert_eq!(search.reuse(&next, &far, 4), 0);
    assert!(started.elapsed() < Duration::from_secs(2), "gave up after {:?}", started.elapsed());
    assert_eq!(search.run(&far).unwrap().reused_nodes, 0);
}
