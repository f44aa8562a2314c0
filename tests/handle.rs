//! A started search (`Search::start`): watched, stopped and pondering, in every mode that
//! runs in one process.

use std::time::{Duration, Instant};

use parmcts::search::{Finished, SearchHandle, Snapshot};
use parmcts::{ConfigError, ConnectFour, Game, Mode, Othello, Search, SearchConfig, SearchError};

/// Snapshots until one shows at least `playouts` (or fails after 20 s).
fn snapshot_after(handle: &SearchHandle, playouts: u64) -> Snapshot {
    let until = Instant::now() + Duration::from_secs(20);
    loop {
        let snapshot = handle.snapshot();
        if snapshot.playouts >= playouts {
            return snapshot;
        }
        assert!(Instant::now() < until, "no {playouts} playouts within 20 s: {snapshot:?}");
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn until_stopped(mode: Mode, threads: usize) -> SearchConfig {
    SearchConfig::builder().until_stopped(true).mode(mode).threads(threads).seed(3).build().unwrap()
}

/// Checks a running search's snapshot against the position: every root move once, in
/// move order, values in [0, 1], each visited move's line starting with it.
fn check_snapshot<G: Game>(root: &G, snapshot: &Snapshot) {
    let moves: Vec<_> = root.legal_moves().as_ref().to_vec();
    let mut shown: Vec<_> = snapshot.children.iter().map(|c| c.mv).collect();
    shown.sort_by_key(|m| m.0);
    let mut expected = moves.clone();
    expected.sort_by_key(|m| m.0);
    assert_eq!(shown, expected, "every root move once");
    let visits: u64 = snapshot.children.iter().map(|c| c.visits).sum();
    assert!(visits >= snapshot.playouts, "{visits} visits, {} playouts", snapshot.playouts);
    for child in &snapshot.children {
        assert!((0.0..=1.0).contains(&child.value), "{child:?}");
        assert!((0.0..=1.0).contains(&child.prior), "{child:?}");
        assert_eq!(child.pv[0], child.mv, "{child:?}");
    }
    let root_value = snapshot.root_value().expect("visited");
    assert!((0.0..=1.0).contains(&root_value));
    assert!(snapshot.best().is_some());
}

#[test]
fn every_single_process_mode_is_watched_and_stopped() {
    for (mode, threads) in
        [(Mode::Sequential, 1), (Mode::TreeParallel, 2), (Mode::RootParallel, 2), (Mode::Synced, 2), (Mode::Virtual, 4)]
    {
        let root = ConnectFour::new();
        let handle = Search::new(until_stopped(mode, threads)).unwrap().start(root).unwrap();
        let first = snapshot_after(&handle, 2_000);
        check_snapshot(&root, &first);
        assert!(!first.finished && !handle.is_finished(), "{mode:?}: only the handle stops it");
        // The search goes on between snapshots.
        let later = snapshot_after(&handle, first.playouts + 2_000);
        assert!(later.elapsed > first.elapsed, "{mode:?}");
        let Finished { search, result } = handle.stop();
        let result = result.unwrap();
        assert!(result.playouts >= later.playouts, "{mode:?}: {} < {}", result.playouts, later.playouts);
        assert_eq!(result.children.len(), 7);
        assert_eq!(result.mode, mode);
        // Every walk finished: the quiescent invariants hold on the trees handed back.
        search.check_invariants().unwrap_or_else(|e| panic!("{mode:?}: {e}"));
    }
}

#[test]
fn a_budget_ends_a_started_search_and_its_snapshot_is_the_result() {
    let config = SearchConfig::builder().playouts(20_000).seed(5).build().unwrap();
    let handle = Search::new(config.clone()).unwrap().start(Othello::new()).unwrap();
    let until = Instant::now() + Duration::from_secs(20);
    while !handle.is_finished() {
        assert!(Instant::now() < until, "a 20,000-playout search ends");
        std::thread::sleep(Duration::from_millis(1));
    }
    let snapshot = handle.snapshot();
    let Finished { result, .. } = handle.wait();
    let result = result.unwrap();
    assert!(snapshot.finished);
    assert_eq!((snapshot.playouts, result.playouts), (20_000, 20_000));
    let visits: Vec<(u16, u64)> = snapshot.children.iter().map(|c| (c.mv.0, c.visits)).collect();
    let expected: Vec<(u16, u64)> = result.children.iter().map(|c| (c.mv.0, c.visits)).collect();
    assert_eq!(visits, expected);
    let best = snapshot.best().unwrap();
    assert_eq!(Some(best.mv), result.best_move);
    assert_eq!(best.pv, result.pv);
    // The same sequential search run in place: a started search is that search.
    let ran = Search::new(config).unwrap().run(&Othello::new()).unwrap();
    assert_eq!(ran.children, result.children);
}

#[test]
fn a_search_without_budget_needs_a_handle() {
    let config = until_stopped(Mode::Sequential, 1);
    let mut search = Search::new(config).unwrap();
    assert_eq!(search.run(&ConnectFour::new()).unwrap_err(), SearchError::Unbounded);
    let both = SearchConfig::builder().until_stopped(true).playouts(100).build();
    assert!(matches!(both, Err(ConfigError::Conflict { .. })), "{both:?}");
    assert_eq!(SearchConfig::builder().build().unwrap_err(), ConfigError::NoBudget);
    // A finished position is refused at once, not on the search's thread.
    let over = ConnectFour::parse_position("1212121").unwrap();
    let refused = Search::new(until_stopped(Mode::Sequential, 1)).unwrap().start(over);
    let refused = refused.unwrap_err();
    assert_eq!(refused.error, SearchError::GameOver);
    // The search comes back, ready for a position that is not over.
    let handle = refused.search.start(ConnectFour::new()).unwrap();
    snapshot_after(&handle, 100);
    handle.stop().result.unwrap();
}

#[test]
fn dropping_a_handle_stops_its_search() {
    let handle = Search::new(until_stopped(Mode::TreeParallel, 2)).unwrap().start(ConnectFour::new()).unwrap();
    snapshot_after(&handle, 1_000);
    let began = Instant::now();
    drop(handle);
    assert!(began.elapsed() < Duration::from_secs(5), "the drop waited for the workers to stop");
}

#[test]
fn pondering_keeps_the_subtree_of_the_move_played() {
    let config = SearchConfig::builder().playouts(3_000).seed(9).build().unwrap();
    let position = ConnectFour::parse_position("44").unwrap();
    let handle = Search::new(config).unwrap().ponder(position).unwrap();
    let snapshot = snapshot_after(&handle, 20_000);
    // The opponent plays the move the pondering search likes best.
    let reply = snapshot.best().unwrap().mv;
    let Finished { mut search, result } = handle.stop();
    assert!(result.unwrap().playouts >= 20_000);
    assert_eq!(search.config().playouts(), Some(3_000), "the budget is back");
    let mut after = position;
    after.try_play(reply).unwrap();
    let kept = search.reuse(&position, &after, 2);
    assert!(kept > 100, "the pondered subtree is kept: {kept} nodes");
    let result = search.run(&after).unwrap();
    assert_eq!(result.reused_nodes, kept);
    assert_eq!(result.playouts, 3_000);
    search.check_invariants().unwrap();
}

#[test]
fn a_player_ponders_on_the_opponents_time() {
    use parmcts::harness::players::{Agent, MctsAgent};
    let config = SearchConfig::builder().playouts(2_000).seed(4).build().unwrap();
    // The same player twice, one pondering between its moves: each keeps the subtree of
    // the position the reply reaches (tree reuse), the pondering one a far larger one.
    let mut kept = Vec::new();
    for ponder in [false, true] {
        let mut player = MctsAgent::<ConnectFour>::new(&config, 0).unwrap();
        let mut game = ConnectFour::new();
        let mv = player.choose(&game).unwrap();
        game.try_play(mv).unwrap();
        if ponder {
            assert!(player.ponder(&game), "a game in progress is pondered");
            std::thread::sleep(Duration::from_millis(50));
            assert!(player.is_pondering(), "only the next move stops it");
        }
        game.try_play(game.parse_move("4").unwrap()).unwrap();
        player.choose(&game).unwrap();
        let result = player.last_search().unwrap();
        assert_eq!(result.playouts, 2_000, "the move's own budget");
        assert!(!player.is_pondering());
        kept.push(result.reused_nodes);
    }
    assert!(kept[1] > 2 * kept[0], "kept without pondering, with: {kept:?}");
}

#[test]
fn a_gtp_engine_ponders_between_its_moves() {
    use parmcts::gtp::protocol::RawLine;
    use parmcts::gtp::{Engine, EngineConfig};
    use parmcts::GameKind;
    let search = SearchConfig::builder().playouts(1_000).seed(2).build().unwrap();
    let mut engine = Engine::new(GameKind::Othello, EngineConfig { search, resign_below: 0.0, ponder: true }).unwrap();
    let mut ask = |line: &str| engine.respond(&RawLine::Line(line.as_bytes().to_vec())).unwrap();
    let first = ask("genmove b");
    assert!(first.starts_with("= "), "{first}");
    std::thread::sleep(Duration::from_millis(50));
    // White's reply arrives while the engine ponders; its next move is still a legal one.
    let mut game = Othello::new();
    game.try_play(game.parse_move(first[2..].trim()).unwrap()).unwrap();
    let reply = game.format_move(game.legal_moves().as_ref()[0]);
    assert_eq!(ask(&format!("play w {reply}")), "= \n\n");
    let second = ask("genmove b");
    game.try_play(game.parse_move(&reply).unwrap()).unwrap();
    let second = game.parse_move(second[2..].trim()).unwrap();
    assert!(game.try_play(second).is_ok());
    assert_eq!(ask("quit"), "= \n\n");
}

#[test]
fn the_command_line_refuses_a_search_until_stopped() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_parmcts"))
        .args(["search", "--game", "connect4", "--until-stopped", "on"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("until-stopped=on gives the search no budget"), "{stderr}");
}
