//! MCTS behaviour that can fail: perfect tic-tac-toe, Connect Four tactics,
//! reproducibility, the sequential/tree-parallel differential, arena exhaustion, and the
//! quiescent invariants after every search.

use parmcts::harness::players::PlayerSpec;
use parmcts::{
    ConfigError, ConnectFour, Game, Mode, Outcome, Search, SearchConfig, SearchError, SearchGame, SearchResult,
    TicTacToe,
};

fn config(playouts: u64, seed: u64) -> parmcts::search::SearchConfigBuilder {
    SearchConfig::builder().playouts(playouts).seed(seed)
}

/// Runs a search and checks the quiescent invariants afterwards.
fn run_checked<G: SearchGame>(root: &G, config: SearchConfig) -> SearchResult {
    let mut search = Search::new(config).unwrap();
    let result = search.run(root).unwrap();
    search.check_invariants().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(result.playouts, result.root_visits);
    result
}

#[test]
fn tictactoe_self_play_always_draws() {
    for game_index in 0..20u64 {
        let spec = PlayerSpec::parse("mcts:playouts=2000").unwrap();
        let mut players =
            [spec.build::<TicTacToe>(2 * game_index).unwrap(), spec.build::<TicTacToe>(2 * game_index + 1).unwrap()];
        let mut game = TicTacToe::new();
        while game.outcome().is_none() {
            let mv = players[game.side_to_move().index()].choose(&game).unwrap();
            game.try_play(mv).unwrap();
        }
        assert_eq!(game.outcome(), Some(Outcome::Draw), "game {game_index} ended\n{}", game.render());
    }
}

#[test]
fn connect4_takes_an_immediate_win() {
    for (moves, winning) in [("121213", "1"), ("112233", "4"), ("445566", "3 or 7")] {
        let root = ConnectFour::parse_position(moves).unwrap();
        for mode in [Mode::Sequential, Mode::TreeParallel, Mode::RootParallel, Mode::Synced] {
            let result = run_checked(
                &root,
                config(20_000, 3).mode(mode).threads(if mode == Mode::Sequential { 1 } else { 2 }).build().unwrap(),
            );
            let best = root.format_move(result.best_move.unwrap());
            // Either winning column is fine where there are two.
            let mut after = root;
            after.play_unchecked(result.best_move.unwrap());
            assert!(
                after.outcome() == Some(Outcome::Win(root.side_to_move())),
                "{moves} ({mode}): played {best}, expected a win such as {winning}"
            );
        }
    }
}

#[test]
fn connect4_blocks_an_immediate_loss() {
    // The opponent threatens to complete a line; the side to move has no win of its own.
    for (moves, block) in [("12131", "1"), ("173757", "7"), ("11223", "4")] {
        let root = ConnectFour::parse_position(moves).unwrap();
        let result = run_checked(&root, config(50_000, 5).build().unwrap());
        assert_eq!(root.format_move(result.best_move.unwrap()), block, "position {moves}");
    }
}

/// A search whose deadline passes before its first playout (a loaded host, a budget spent
/// elsewhere) still looks at each root move once on average before the clock stops it,
/// rather than ending with no playouts and playing the first move in the list; a playout
/// budget below that floor still stops it.
#[test]
fn a_deadline_passed_before_the_first_playout_still_leaves_a_floor_of_playouts() {
    let root = ConnectFour::parse_position("173757").unwrap();
    for mode in [Mode::Sequential, Mode::TreeParallel, Mode::RootParallel, Mode::Synced] {
        let threads = if mode == Mode::Sequential { 1 } else { 2 };
        let timed = SearchConfig::builder().time(std::time::Duration::from_nanos(1)).mode(mode).threads(threads);
        let result = run_checked(&root, timed.seed(8).build().unwrap());
        assert!(result.playouts >= 7, "{mode}: {} playouts", result.playouts);
        assert_eq!(root.format_move(result.best_move.unwrap()), "7", "{mode}: the block");
        let capped =
            SearchConfig::builder().time(std::time::Duration::from_nanos(1)).playouts(3).mode(Mode::Sequential);
        assert_eq!(run_checked(&root, capped.build().unwrap()).playouts, 3);
    }
}

#[test]
fn same_seed_same_result_in_every_mode() {
    let root = ConnectFour::parse_position("4453").unwrap();
    for mode in [Mode::Sequential, Mode::RootParallel] {
        let cfg = config(30_000, 42).mode(mode).threads(if mode == Mode::Sequential { 1 } else { 2 }).build().unwrap();
        let a = run_checked(&root, cfg.clone());
        let b = run_checked(&root, cfg);
        assert_eq!(a.children, b.children, "{mode}");
        assert_eq!(a.pv, b.pv, "{mode}");
        assert_eq!(a.nodes, b.nodes, "{mode}");
    }
    // A different seed gives a different search.
    let a = run_checked(&root, config(30_000, 1).build().unwrap());
    let b = run_checked(&root, config(30_000, 2).build().unwrap());
    assert_ne!(a.children, b.children);
}

#[test]
fn tree_parallel_with_one_thread_equals_sequential() {
    for moves in ["", "4453", "3344"] {
        let root = ConnectFour::parse_position(moves).unwrap();
        let seq = run_checked(&root, config(40_000, 9).build().unwrap());
        let tree = run_checked(&root, config(40_000, 9).mode(Mode::TreeParallel).threads(1).build().unwrap());
        assert_eq!(seq.children, tree.children, "position '{moves}'");
        assert_eq!(seq.pv, tree.pv);
        assert_eq!(seq.nodes, tree.nodes);
    }
}

#[test]
fn a_full_arena_keeps_searching_from_the_leaves() {
    let root = ConnectFour::new();
    for mode in [Mode::Sequential, Mode::TreeParallel] {
        let result = run_checked(
            &root,
            config(50_000, 1)
                .arena_nodes(1_000)
                .mode(mode)
                .threads(if mode == Mode::Sequential { 1 } else { 2 })
                .build()
                .unwrap(),
        );
        assert!(result.arena_full, "{mode}");
        assert_eq!(result.playouts, 50_000);
        assert!(result.nodes <= 1_000);
    }
    let roomy = run_checked(&root, config(50_000, 1).build().unwrap());
    assert!(!roomy.arena_full);
}

#[test]
fn impossible_searches_are_errors() {
    let finished = ConnectFour::parse_position("1212121").unwrap();
    let mut search = Search::new(config(10, 0).build().unwrap()).unwrap();
    assert_eq!(search.run(&finished), Err(SearchError::GameOver));
    // The root of Connect Four has 7 children: 8 nodes are needed.
    let mut tiny = Search::new(config(10, 0).arena_nodes(7).build().unwrap()).unwrap();
    assert_eq!(
        tiny.run(&ConnectFour::new()),
        Err(SearchError::Config(ConfigError::ArenaTooSmall { nodes: 7, needed: 8 }))
    );
}

#[test]
fn values_and_visits_are_consistent() {
    let root = TicTacToe::new();
    let result = run_checked(&root, config(20_000, 11).build().unwrap());
    assert_eq!(result.children.len(), 9);
    assert_eq!(result.children.iter().map(|c| c.visits).sum::<u64>(), 20_000);
    // The centre or a corner: the moves that do not lose ground against perfect play are
    // all draws, but MCTS with random playouts prefers the centre (cell 5).
    assert_eq!(root.format_move(result.best_move.unwrap()), "5");
    for c in &result.children {
        assert!((0.0..=1.0).contains(&c.value));
    }
    assert!(!result.pv.is_empty() && result.pv[0] == result.best_move.unwrap());
}

/// `leaves = n`: each worker descends to `n` leaves (virtual loss spreads them) and plays
/// their playouts together. In every mode the budget is spent exactly, every quiescent
/// invariant holds, tactics are still found, and a sequential search stays reproducible.
#[test]
fn several_leaves_in_flight_search_correctly() {
    let win = ConnectFour::parse_position("121213").unwrap();
    for leaves in 2..=4 {
        for mode in [Mode::Sequential, Mode::TreeParallel, Mode::RootParallel, Mode::Synced] {
            // 10,001: not a multiple of the lanes, so the remainder runs one at a time.
            let result = run_checked(
                &win,
                config(10_001, 3)
                    .mode(mode)
                    .threads(if mode == Mode::Sequential { 1 } else { 2 })
                    .lanes(leaves)
                    .build()
                    .unwrap(),
            );
            assert_eq!((result.playouts, result.lanes), (10_001, leaves as usize), "leaves={leaves} {mode}");
            assert_eq!(win.format_move(result.best_move.unwrap()), "1", "leaves={leaves} {mode}");
        }
        let othello = parmcts::Othello::new();
        for mode in [Mode::Sequential, Mode::TreeParallel] {
            for playout in ["random", "biased"] {
                let cfg = config(3_000, 7)
                    .mode(mode)
                    .threads(if mode == Mode::Sequential { 1 } else { 2 })
                    .lanes(leaves)
                    .playout(playout.parse().unwrap())
                    .build()
                    .unwrap();
                run_checked(&othello, cfg);
            }
        }
        let cfg = config(20_000, 42).lanes(leaves).build().unwrap();
        let (a, b) = (run_checked(&othello, cfg.clone()), run_checked(&othello, cfg));
        assert_eq!((a.children, a.nodes), (b.children, b.nodes), "leaves={leaves}");
    }
    // With one lane per worker, nothing changes: the default for Connect Four. Othello's
    // default is its two lanes.
    let one = run_checked(&win, config(5_000, 8).lanes(1).build().unwrap());
    let default = run_checked(&win, config(5_000, 8).build().unwrap());
    assert_eq!((one.children, default.lanes), (default.children, 1));
    assert_eq!(run_checked(&parmcts::Othello::new(), config(100, 8).build().unwrap()).lanes, 2);
}

#[test]
fn leaves_outside_one_to_four_are_rejected() {
    use parmcts::search::ConfigError;
    assert_eq!(config(10, 0).lanes(0).build().unwrap_err(), ConfigError::BadLanes { got: 0, max: 4 });
    assert_eq!(config(10, 0).lanes(5).build().unwrap_err(), ConfigError::BadLanes { got: 5, max: 4 });
    assert!(config(10, 0).lanes(4).build().is_ok());
}

/// A worker's lanes see each other's virtual loss: from a fresh root, `n` lanes walk to
/// `n` different unvisited children (without virtual loss they all take the first one),
/// on the exclusive trees of the sequential and root-parallel modes and on a shared tree.
#[test]
fn lanes_spread_by_virtual_loss() {
    let root = TicTacToe::new();
    let visited = |result: &SearchResult| result.children.iter().filter(|c| c.visits > 0).count();
    for leaves in 2..=4u32 {
        for mode in [Mode::Sequential, Mode::TreeParallel, Mode::RootParallel, Mode::Synced] {
            let cfg = config(u64::from(leaves), 4).mode(mode).threads(1).lanes(leaves).build().unwrap();
            let result = run_checked(&root, cfg);
            assert_eq!(visited(&result), leaves as usize, "leaves={leaves} {mode}");
        }
    }
    let cfg = config(2, 4).lanes(2).virtual_loss(0).build().unwrap();
    assert_eq!(visited(&run_checked(&root, cfg)), 1, "without virtual loss both lanes take one child");
}

#[test]
fn an_arena_larger_than_the_memory_available_is_refused_up_front() {
    // The largest arena, its AMAF and value arrays and the spare arena of tree reuse:
    // about 300 GB, more than any machine this runs on has available.
    let config = SearchConfig::builder()
        .playouts(10)
        .arena_nodes(parmcts::search::MAX_ARENA_NODES)
        .rave(1000.0)
        .reuse(true)
        .build()
        .unwrap();
    match parmcts::Search::new(config) {
        Err(parmcts::SearchError::Config(parmcts::ConfigError::ArenaOverMemory { bytes, available })) => {
            assert!(bytes > available && bytes > 250 << 30, "{bytes} {available}");
        }
        other => panic!("an arena of 300 GB was not refused: {other:?}"),
    }
    // What fits is taken as before.
    let small = SearchConfig::builder().playouts(10).memory_mb(64).build().unwrap();
    assert!(parmcts::Search::new(small).is_ok());
}
