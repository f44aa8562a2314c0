//! The search with a leaf evaluator (`eval=`, `eval-weight`, `eval-priors`): a network
//! trained here by TD(0) on tic-tac-toe and on Connect Four drives the search, the tree's
//! invariants hold, and bad evaluator settings are rejected naming the value.

use std::ops::ControlFlow;
use std::sync::Arc;

use parmcts::evaluator::train::{train_td, TdConfig};
use parmcts::search::Evaluation;
use parmcts::{
    ConfigError, ConnectFour, EvaluationError, Game, NTupleBoard, NTupleNetwork, NetworkError, Search, SearchConfig,
    SearchError, TicTacToe,
};

fn trained<G: NTupleBoard + parmcts::solver::Endgame>(games: u64) -> Arc<NTupleNetwork> {
    let mut network = NTupleNetwork::new::<G>(G::default_tuples()).unwrap();
    let config = TdConfig { games, alpha: 0.5, alpha_end: 0.1, epsilon: 0.1, seed: 3, solver_nodes: 0 };
    train_td::<G>(&mut network, &config, |_, _| ControlFlow::Continue(())).unwrap();
    Arc::new(network)
}

#[test]
fn the_evaluator_alone_finds_a_win_in_one_and_keeps_the_invariants() {
    let network = trained::<TicTacToe>(3_000);
    // X holds 1 and 2 (cells 0, 1), O holds 4 and 5: X to move wins at 3 (cell 2).
    let game = TicTacToe::parse_position("1425").unwrap();
    for (lambda, priors) in [(1.0, false), (0.5, false), (1.0, true)] {
        let config = SearchConfig::builder()
            .playouts(2_000)
            .eval(Evaluation::Network(Arc::clone(&network)))
            .eval_weight(lambda)
            .eval_priors(priors)
            .bias(if priors { 1.0 } else { 0.0 })
            .build()
            .unwrap();
        let mut search = Search::new(config).unwrap();
        let result = search.run(&game).unwrap();
        assert_eq!(result.best_move.map(|m| game.format_move(m)), Some("3".to_string()), "λ {lambda}");
        search.check_invariants().unwrap();
    }
}

#[test]
fn the_evaluator_runs_in_every_threading_mode() {
    let network = trained::<ConnectFour>(300);
    // Implicit minimax values as well: written racily by the tree-parallel workers.
    for (mode, implicit) in ["seq", "tree", "root", "sync", "virtual"].into_iter().flat_map(|m| [(m, "0"), (m, "0.5")])
    {
        let threads = if mode == "seq" { "1" } else { "3" };
        let config = SearchConfig::builder()
            .apply_settings([
                ("playouts", "20000"),
                ("mode", mode),
                ("threads", threads),
                ("eval-weight", "0.5"),
                ("implicit", implicit),
            ])
            .unwrap()
            .eval(Evaluation::Network(Arc::clone(&network)))
            .build()
            .unwrap();
        let mut search = Search::new(config).unwrap();
        let result = search.run(&ConnectFour::new()).unwrap();
        assert_eq!(result.root_visits, 20_000, "{mode}");
        search.check_invariants().unwrap_or_else(|e| panic!("{mode}: {e}"));
    }
}

#[test]
fn bad_evaluator_settings_are_rejected() {
    let b = || SearchConfig::builder().playouts(100);
    assert_eq!(b().eval_weight(1.5).build(), Err(ConfigError::BadEvalWeight(1.5)));
    assert!(matches!(b().eval(Evaluation::None).eval_priors(true).build(), Err(ConfigError::Conflict { .. })));
    // With the game's default evaluation, the game decides: Connect Four has none.
    let config = b().eval_priors(true).bias(1.0).build().unwrap();
    let err = Search::new(config).unwrap().run(&ConnectFour::new()).unwrap_err();
    let no_evaluator = EvaluationError::NoEvaluator { setting: "eval-priors=on", game: "connect4" };
    assert_eq!(err, SearchError::Evaluation(no_evaluator), "{err}");
    assert!(err.to_string().contains("eval-priors"), "{err}");
    // A network for another game, and a game that ships none.
    let config = b().eval(Evaluation::Network(trained::<TicTacToe>(10))).build().unwrap();
    let err = Search::new(config).unwrap().run(&ConnectFour::new()).unwrap_err();
    assert!(matches!(err, SearchError::Evaluation(EvaluationError::Network(NetworkError::WrongGame { .. }))), "{err}");
    let config = b().eval(Evaluation::Shipped).build().unwrap();
    let err = Search::new(config).unwrap().run(&TicTacToe::new()).unwrap_err();
    let none_shipped = NetworkError::NoShippedNetwork { game: "tictactoe" };
    assert_eq!(err, SearchError::Evaluation(EvaluationError::Network(none_shipped)));
    assert!(err.to_string().contains("tictactoe ships no trained network"), "{err}");
}

#[test]
fn a_shallow_negamax_at_the_leaves_sees_a_win_one_ply_beyond_them() {
    // An untrained network values every position at 0.5. X holds 1 and 2, O holds 4 and
    // 5, X to move: 3 wins at once, 6 blocks O's row, and after any other move O wins.
    let network = Arc::new(NTupleNetwork::new::<TicTacToe>(TicTacToe::default_tuples()).unwrap());
    let game = TicTacToe::parse_position("1425").unwrap();
    let values = |depth| {
        // Five playouts, no expansion below the root: each root child is a leaf once.
        let config = SearchConfig::builder()
            .playouts(5)
            .expand_threshold(1_000)
            .eval(Evaluation::Network(Arc::clone(&network)))
            .eval_depth(depth)
            .build()
            .unwrap();
        let result = Search::new(config).unwrap().run(&game).unwrap();
        let mut values: Vec<(String, u64, f64)> =
            result.children.iter().map(|c| (game.format_move(c.mv), c.visits, c.value)).collect();
        values.sort_by(|a, b| a.0.cmp(&b.0));
        values
    };
    let at = |depth, win: f64, block: f64, other: f64| {
        let expected: Vec<(String, u64, f64)> = ["3", "6", "7", "8", "9"]
            .iter()
            .map(|&m| {
                (
                    m.to_string(),
                    1,
                    if m == "3" {
                        win
                    } else if m == "6" {
                        block
                    } else {
                        other
                    },
                )
            })
            .collect();
        assert_eq!(values(depth), expected, "eval-depth {depth}");
    };
    // The leaf's own value: every unfinished child is a draw.
    at(0, 1.0, 0.5, 0.5);
    // One ply on: O's winning reply is seen, the block still looks even.
    at(1, 1.0, 0.5, 0.0);
    assert_eq!(
        SearchConfig::builder().playouts(1).eval_depth(5).build(),
        Err(ConfigError::BadEvalDepth { got: 5, max: 4 })
    );
}
