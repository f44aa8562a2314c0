//! The virtual-thread simulator (`mode=virtual`): one logical worker is the sequential
//! search exactly; many keep the exact budget, the quiescent invariants and
//! reproducibility, and their delayed back-ups change the tree.

use parmcts::search::InFlight;
use parmcts::{ConnectFour, Game, Mode, Othello, Search, SearchConfig, SearchGame, SearchResult};

fn config(playouts: u64, seed: u64) -> parmcts::search::SearchConfigBuilder {
    SearchConfig::builder().playouts(playouts).seed(seed)
}

fn virtual_config(playouts: u64, seed: u64, workers: usize) -> parmcts::search::SearchConfigBuilder {
    config(playouts, seed).mode(Mode::Virtual).threads(workers)
}

/// Runs a search and checks the quiescent invariants (no virtual loss left, visits
/// consistent, arena count = reachable nodes) and the exact budget afterwards.
fn run_checked<G: SearchGame>(root: &G, config: SearchConfig) -> SearchResult {
    let playouts = config.playouts().unwrap();
    let mut search = Search::new(config).unwrap();
    let result = search.run(root).unwrap();
    search.check_invariants().unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(result.playouts, playouts);
    assert_eq!(result.root_visits, playouts);
    result
}

/// The whole result that a search's tree determines.
fn assert_same(a: &SearchResult, b: &SearchResult, what: &str) {
    assert_eq!(a.children, b.children, "{what}: root children (visits and means)");
    assert_eq!(a.best_move, b.best_move, "{what}");
    assert_eq!(a.pv, b.pv, "{what}");
    assert_eq!(a.nodes, b.nodes, "{what}");
    assert_eq!(a.max_depth, b.max_depth, "{what}");
}

#[test]
fn one_virtual_thread_equals_the_sequential_search() {
    for moves in ["", "4453"] {
        let root = ConnectFour::parse_position(moves).unwrap();
        // Plain, with RAVE (recorded playouts) and with the solver (exact values).
        for (rave, solver) in [(0.0, false), (500.0, false), (0.0, true)] {
            let cfg = |mode| config(20_000, 9).rave(rave).solver(solver).mode(mode).build().unwrap();
            let seq = run_checked(&root, cfg(Mode::Sequential));
            let sim = run_checked(&root, cfg(Mode::Virtual));
            assert_same(&seq, &sim, &format!("connect4 '{moves}' rave={rave} solver={solver}"));
        }
    }
    // The simulator runs one walk per worker: compared with the sequential search at one
    // lane (Othello's default keeps several).
    let root = Othello::new();
    let seq = run_checked(&root, config(4_000, 5).lanes(1).build().unwrap());
    let sim = run_checked(&root, virtual_config(4_000, 5, 1).build().unwrap());
    assert_same(&seq, &sim, "othello");
    // Criticality counted alike by the walk and the iteration (`crit=10`, Go): the same
    // tree, and not the tree without it.
    let go = parmcts::Go9::new();
    let cfg = |mode, crit| config(5_000, 1).crit(crit).mode(mode).build().unwrap();
    let seq = run_checked(&go, cfg(Mode::Sequential, 10.0));
    assert_same(&seq, &run_checked(&go, cfg(Mode::Virtual, 10.0)), "go, crit=10");
    let plain = run_checked(&go, cfg(Mode::Sequential, 0.0));
    assert_ne!((seq.children, seq.nodes), (plain.children, plain.nodes), "crit=10 changes the tree");
}

#[test]
fn many_virtual_threads_keep_the_budget_the_invariants_and_the_seed() {
    let connect4 = ConnectFour::parse_position("4453").unwrap();
    let othello = Othello::new();
    for workers in [16, 256] {
        for in_flight in [InFlight::Loss, InFlight::WuUct] {
            let what = format!("{workers} workers, {in_flight:?}");
            let cfg = |playouts| virtual_config(playouts, 3, workers).in_flight(in_flight).build().unwrap();
            let a = run_checked(&connect4, cfg(20_000));
            let b = run_checked(&connect4, cfg(20_000));
            assert_same(&a, &b, &format!("connect4, {what}"));
            let a = run_checked(&othello, cfg(3_000));
            let b = run_checked(&othello, cfg(3_000));
            assert_same(&a, &b, &format!("othello, {what}"));
            // A budget smaller than the workers: every walk is still in flight when it
            // runs out, and each is finished.
            run_checked(&connect4, cfg(100));
        }
    }
    // The solver and RAVE with walks in flight.
    let win = ConnectFour::parse_position("121213").unwrap();
    for (rave, solver) in [(500.0, false), (0.0, true)] {
        let mut search = Search::new(virtual_config(20_000, 4, 16).rave(rave).solver(solver).build().unwrap()).unwrap();
        let result = search.run(&win).unwrap();
        search.check_invariants().unwrap_or_else(|e| panic!("rave={rave} solver={solver}: {e}"));
        if solver {
            search.check_proofs(&win).unwrap_or_else(|e| panic!("{e}"));
        }
        assert_eq!(result.root_visits, result.playouts);
        assert_eq!(win.format_move(result.best_move.unwrap()), "1", "rave={rave} solver={solver}");
    }
}

#[test]
fn delayed_back_ups_change_the_tree() {
    let root = ConnectFour::parse_position("4453").unwrap();
    let one = run_checked(&root, virtual_config(20_000, 3, 1).build().unwrap());
    let many = run_checked(&root, virtual_config(20_000, 3, 16).build().unwrap());
    assert_ne!(one.children, many.children);
}

/// With at least as many workers as playouts, every descent happens before any back-up:
/// no result is known to selection, only the walks in flight, so virtual loss (or WU-UCT's
/// in-flight count) spreads the root's walks evenly over its 7 children. Virtual loss is
/// in the visits, so the walks in flight count towards a child's expansion and later
/// walks go below it; WU-UCT's count is not, so no child has a completed visit and none
/// is expanded. The sequential search, which learns from each playout before the next,
/// does not spread them. (UCB1 at the root: halving's rounds would count the walks in
/// flight as spent.)
#[test]
fn walks_in_flight_spread_over_the_root() {
    let root = ConnectFour::new();
    for in_flight in [InFlight::Loss, InFlight::WuUct] {
        let config = virtual_config(70, 1, 70).in_flight(in_flight).halving(false).build().unwrap();
        let result = run_checked(&root, config);
        let visits: Vec<u64> = result.children.iter().map(|c| c.visits).collect();
        assert_eq!(visits, [10; 7], "{in_flight:?}");
        match in_flight {
            InFlight::Loss => assert!(result.nodes > 8, "{}", result.nodes),
            _ => assert_eq!(result.nodes, 8, "{in_flight:?}"),
        }
    }
    let seq = run_checked(&root, config(70, 1).build().unwrap());
    assert!(seq.children.iter().any(|c| c.visits != 10), "{:?}", seq.children);
}

#[test]
fn virtual_mode_is_named_and_checked() {
    assert_eq!("virtual".parse::<Mode>().unwrap(), Mode::Virtual);
    assert_eq!(Mode::Virtual.to_string(), "virtual");
    // One tree: the arena is not divided between the workers as root-parallel's is.
    let small = config(2_000, 0).arena_nodes(300).threads(256);
    let result = run_checked(&ConnectFour::new(), small.clone().mode(Mode::Virtual).build().unwrap());
    assert!(result.nodes > 8 && result.nodes <= 300, "{} nodes", result.nodes);
    assert!(small.mode(Mode::RootParallel).build().is_err());
}
