//! Stress: 16 workers on this 2-core machine (oversubscribed, so threads are preempted in
//! the middle of expansions and backups) for millions of playouts per game; afterwards
//! every quiescent invariant must hold (`parmcts::tree::invariants`).

use parmcts::games::random_below;
use parmcts::search::{ChanceSelection, SearchConfigBuilder};
use parmcts::{ConnectFour, Einstein, Game, Mode, Othello, Proof, Search, SearchConfig, SearchGame, TicTacToe};
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

fn stress<G: SearchGame>(root: &G, playouts: u64, virtual_loss: u32, expand: u32, nodes: u64) -> parmcts::SearchResult {
    let config = SearchConfig::builder()
        .playouts(playouts)
        .mode(Mode::TreeParallel)
        .threads(16)
        .virtual_loss(virtual_loss)
        .expand_threshold(expand)
        .arena_nodes(nodes)
        .seed(playouts ^ virtual_loss as u64);
    stress_built(root, config, &format!("vl={virtual_loss}"))
}

/// Runs the search `config` describes from `root` and checks the invariants and counts.
fn stress_built<G: SearchGame>(root: &G, config: SearchConfigBuilder, label: &str) -> parmcts::SearchResult {
    let config = config.build().unwrap();
    let playouts = config.playouts().unwrap();
    let mut search = Search::new(config).unwrap();
    let result = search.run(root).unwrap();
    let reachable = search.check_invariants().unwrap_or_else(|e| panic!("{} {label}: {e}", G::NAME));
    assert_eq!(result.playouts, playouts);
    assert_eq!(result.root_visits, playouts);
    assert_eq!(reachable, result.nodes);
    result
}

/// Chance nodes (EinStein's die rolls, alternating with moves) under 16 workers, the
/// outcomes sampled by their weights and walked in proportion (where the workers read
/// each other's virtual loss to spread over the outcomes).
#[test]
fn stress_einstein_chance_nodes_16_threads() {
    for chance in [ChanceSelection::Sample, ChanceSelection::Walk] {
        for (virtual_loss, expand) in [(1, 1), (0, 1), (2, 8)] {
            let config = SearchConfig::builder()
                .playouts(400_000)
                .mode(Mode::TreeParallel)
                .threads(16)
                .virtual_loss(virtual_loss)
                .expand_threshold(expand)
                .chance(chance)
                .seed(u64::from(virtual_loss));
            stress_built(&Einstein::new(), config, &format!("chance={chance} vl={virtual_loss}"));
        }
        // RAVE's AMAF credits beside chance nodes (whose outcomes get none).
        let config =
            SearchConfig::builder().playouts(200_000).mode(Mode::TreeParallel).threads(16).chance(chance).rave(1000.0);
        stress_built(&Einstein::new(), config, &format!("chance={chance} rave"));
    }
}

#[test]
fn stress_connect4_16_threads() {
    stress(&ConnectFour::new(), 2_000_000, 1, 1, 1 << 24);
    stress(&ConnectFour::new(), 500_000, 0, 1, 1 << 22);
    stress(&ConnectFour::new(), 500_000, 3, 2, 1 << 22);
}

/// WU-UCT reads the same in-flight counter without changing the protocol: the
/// invariants hold, and the searches still find the clear best move of a position.
#[test]
fn stress_wu_uct_16_threads() {
    use parmcts::search::InFlight;
    let win = ConnectFour::parse_position("121212").unwrap();
    for (root, playouts) in [(ConnectFour::new(), 1_000_000), (win, 300_000)] {
        let config = SearchConfig::builder()
            .playouts(playouts)
            .mode(Mode::TreeParallel)
            .threads(16)
            .virtual_loss(2)
            .in_flight(InFlight::WuUct)
            .expand_threshold(1)
            .seed(9)
            .build()
            .unwrap();
        let mut search = Search::new(config).unwrap();
        let result = search.run(&root).unwrap();
        let reachable = search.check_invariants().unwrap_or_else(|e| panic!("wu-uct: {e}"));
        assert_eq!((result.root_visits, reachable), (playouts, result.nodes));
        if root == win {
            assert_eq!(win.format_move(result.best_move.unwrap()), "1");
        }
    }
}

#[test]
fn stress_othello_16_threads() {
    stress(&Othello::new(), 1_000_000, 1, 1, 1 << 24);
}

#[test]
fn stress_tictactoe_16_threads() {
    // Tiny game: most iterations end at terminal nodes, hammering the same few counters.
    stress(&TicTacToe::new(), 2_000_000, 1, 1, 1 << 20);
    stress(&TicTacToe::new(), 1_000_000, 0, 1, 1 << 20);
}

#[test]
fn stress_full_arena_16_threads() {
    // The arena fills within the first milliseconds; expansion races against a full
    // arena must still leave a consistent tree.
    let result = stress(&ConnectFour::new(), 1_000_000, 1, 1, 5_000);
    assert!(result.arena_full);
    assert!(result.nodes <= 5_000);
}

#[test]
fn stress_root_parallel_16_trees() {
    let config =
        SearchConfig::builder().playouts(1_000_000).mode(Mode::RootParallel).threads(16).seed(5).build().unwrap();
    let mut search = Search::new(config).unwrap();
    let result = search.run(&ConnectFour::new()).unwrap();
    search.check_invariants().unwrap();
    assert_eq!(result.root_visits, 1_000_000);
    assert_eq!(result.children.iter().map(|c| c.visits).sum::<u64>(), 1_000_000);
}

/// Synced trees, 16 workers exchanging every chunk (16 iterations) down to 4 plies:
/// every exchange replaces what a tree holds from the others while they publish and
/// read concurrently. Afterwards each tree holds exactly its own playouts (rules 2 and 3).
#[test]
fn stress_synced_16_trees() {
    for (game, playouts) in [("connect4", 400_000), ("othello", 40_000)] {
        let config = SearchConfig::builder()
            .playouts(playouts)
            .mode(Mode::Synced)
            .threads(16)
            .sync_every(1)
            .sync_depth(4)
            .seed(5)
            .build()
            .unwrap();
        let mut search = Search::new(config).unwrap();
        let result = match game {
            "connect4" => search.run(&ConnectFour::new()).unwrap(),
            _ => search.run(&parmcts::Othello::new()).unwrap(),
        };
        search.check_invariants().unwrap_or_else(|e| panic!("{game}: {e}"));
        assert_eq!(result.root_visits, playouts, "{game}");
        assert_eq!(result.children.iter().map(|c| c.visits).sum::<u64>(), playouts, "{game}");
    }
}

/// MCTS-Solver on the shared tree, 16 workers: proofs race with expansions, selections
/// and each other. Afterwards every proof must be one the game supports (terminal results
/// and the children's proofs, node by node), on top of the quiescent invariants.
fn stress_solver<G: SearchGame>(root: &G, playouts: u64, seed: u64) -> (parmcts::SearchResult, u64) {
    let config = SearchConfig::builder()
        .playouts(playouts)
        .mode(Mode::TreeParallel)
        .threads(16)
        .expand_threshold(1)
        .solver(true)
        .arena_nodes(1 << 24)
        .seed(seed)
        .build()
        .unwrap();
    let mut search = Search::new(config).unwrap();
    let result = search.run(root).unwrap();
    let reachable = search.check_invariants().unwrap_or_else(|e| panic!("{}: {e}", G::NAME));
    let proven = search.check_proofs(root).unwrap_or_else(|e| panic!("{}: {e}", G::NAME));
    assert_eq!(result.root_visits, result.playouts);
    assert_eq!(reachable, result.nodes);
    assert!(proven > 0, "{}: nothing proven", G::NAME);
    if !result.proof.is_known() {
        assert_eq!(result.playouts, playouts);
    }
    (result, proven)
}

/// A position `plies` random moves into a game (fixed seed).
fn random_position<G: Game>(plies: u32, seed: u64) -> G {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed);
    let mut game = G::new();
    for _ in 0..plies {
        let moves = game.legal_moves();
        let moves = moves.as_ref();
        let mut next = game.clone();
        next.play_unchecked(moves[random_below(&mut rng, moves.len() as u32) as usize]);
        if next.outcome().is_some() {
            break;
        }
        game = next;
    }
    game
}

#[test]
fn stress_solver_16_threads() {
    // Tic-tac-toe is a draw: whatever is proven at the root must say so.
    let (result, _) = stress_solver(&TicTacToe::new(), 1_000_000, 1);
    assert!(matches!(result.proof, Proof::Unknown | Proof::Draw));
    stress_solver(&ConnectFour::new(), 2_000_000, 2);
    stress_solver(&random_position::<ConnectFour>(16, 3), 1_000_000, 3);
    stress_solver(&random_position::<Othello>(44, 4), 1_000_000, 4);
    // Chance nodes are never proven; the player nodes below them are.
    stress_solver(&random_position::<Einstein>(16, 5), 400_000, 5);
}
