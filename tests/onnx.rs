//! ONNX models as evaluators (`evaluator::onnx`, feature `onnx`), against the outputs of
//! an independent numpy forward pass (`tests/data/onnx/make_models.py` wrote the models
//! and the reference files; tests/data/onnx/README.md).
#![cfg(feature = "onnx")]

use std::path::PathBuf;
use std::sync::Arc;

use parmcts::evaluator::onnx::{OnnxEncoding, OnnxError, OnnxEvaluator};
use parmcts::evaluator::{Batch, Evaluator};
use parmcts::games::othello::PASS;
use parmcts::{ConnectFour, Game, Move, Othello, TicTacToe};
use serde_json::Value;

/// Values and priors agree with the float64 reference within this.
const TOLERANCE: f64 = 1e-5;

fn data(name: &str) -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/onnx").join(name)
}

/// One position of a reference file.
struct Reference {
    position: String,
    input_sum: f64,
    input_weighted_sum: f64,
    value: f64,
    policy: Vec<f64>,
}

fn references(name: &str) -> Vec<Reference> {
    let text = std::fs::read_to_string(data(name)).unwrap();
    let json: Value = serde_json::from_str(&text).unwrap();
    let positions = json["positions"].as_array().unwrap();
    assert!(positions.len() >= 8, "{name} has {} positions", positions.len());
    positions
        .iter()
        .map(|p| Reference {
            position: p["position"].as_str().unwrap().to_string(),
            input_sum: p["input_sum"].as_f64().unwrap(),
            input_weighted_sum: p["input_weighted_sum"].as_f64().unwrap(),
            value: p["value"].as_f64().unwrap(),
            policy: p["policy"].as_array().unwrap().iter().map(|l| l.as_f64().unwrap()).collect(),
        })
        .collect()
}

/// The softmax of `logits` at `slots`, in float64: the reference priors.
fn softmax_at(logits: &[f64], slots: &[usize]) -> Vec<f64> {
    let max = slots.iter().map(|&s| logits[s]).fold(f64::NEG_INFINITY, f64::max);
    let weights: Vec<f64> = slots.iter().map(|&s| (logits[s] - max).exp()).collect();
    let total: f64 = weights.iter().sum();
    weights.iter().map(|w| w / total).collect()
}

/// `G`'s evaluator of `model` reproduces the reference file `reference`: the encoding's
/// checksums exactly, the value and the priors over the legal moves within
/// [`TOLERANCE`]. Returns the positions.
fn check_reference<G: OnnxEncoding>(model: &str, reference: &str) -> Vec<G> {
    let evaluator = OnnxEvaluator::<G>::load(data(model)).unwrap();
    assert!(evaluator.has_policy());
    let mut games = Vec::new();
    for r in references(reference) {
        let game = G::parse_position(&r.position).unwrap();
        let mut input = vec![f32::NAN; G::INPUT_SIZE];
        game.encode(&mut input);
        let sum: f64 = input.iter().map(|&x| f64::from(x)).sum();
        let weighted: f64 = input.iter().enumerate().map(|(k, &x)| k as f64 * f64::from(x)).sum();
        assert_eq!((sum, weighted), (r.input_sum, r.input_weighted_sum), "encoding of {:?}", r.position);
        assert_eq!(r.policy.len(), G::POLICY_SIZE);
        let value = f64::from(evaluator.value(&game));
        assert!((value - r.value).abs() < TOLERANCE, "{:?}: value {value}, reference {}", r.position, r.value);
        let moves = game.legal_moves();
        let moves = moves.as_ref();
        let slots: Vec<usize> = moves.iter().map(|&mv| game.policy_index(mv).unwrap()).collect();
        let expected = softmax_at(&r.policy, &slots);
        let mut priors = vec![0.0; moves.len()];
        assert!(evaluator.priors(&game, moves, &mut priors));
        for ((mv, p), e) in moves.iter().zip(&priors).zip(&expected) {
            assert!((f64::from(*p) - e).abs() < TOLERANCE, "{:?} move {mv:?}: prior {p}, reference {e}", r.position);
        }
        games.push(game);
    }
    games
}

#[test]
fn connect_four_values_and_priors_match_the_numpy_reference() {
    let games = check_reference::<ConnectFour>("connect4_tiny.onnx", "connect4_tiny.reference.json");
    // A full column has no move, so its logit takes no part in the softmax.
    assert!(games.iter().any(|g| g.legal_moves().as_ref().len() < 7));
}

#[test]
fn othello_values_and_priors_match_the_numpy_reference() {
    let games = check_reference::<Othello>("othello_tiny.onnx", "othello_tiny.reference.json");
    // Both sides to move, and a forced pass (slot 64), are among the positions.
    assert!(games.iter().any(|g| g.side_to_move() != games[0].side_to_move()));
    assert!(games.iter().any(|g| g.legal_moves().as_ref() == [PASS]));
}

#[test]
fn a_batch_gives_what_positions_one_at_a_time_give() {
    let evaluator = OnnxEvaluator::<Othello>::load(data("othello_tiny.onnx")).unwrap();
    let mut batch = Batch::new();
    for (i, r) in references("othello_tiny.reference.json").iter().enumerate() {
        batch.push(Othello::parse_position(&r.position).unwrap(), i % 3 != 1);
    }
    evaluator.evaluate(&mut batch).unwrap();
    batch.check().unwrap();
    for i in 0..batch.len() {
        let game = batch.position(i);
        assert!((batch.value(i) - evaluator.value(game)).abs() < 1e-6, "position {i}");
        if batch.wants_priors(i) {
            let mut alone = vec![0.0; batch.moves(i).len()];
            assert!(evaluator.priors(game, batch.moves(i), &mut alone));
            for (b, a) in batch.priors(i).iter().zip(&alone) {
                assert!((b - a).abs() < 1e-6, "position {i}: batched prior {b}, alone {a}");
            }
            assert!((batch.priors(i).iter().sum::<f32>() - 1.0).abs() < 1e-5);
        }
    }
    batch.clear();
    evaluator.evaluate(&mut batch).unwrap();
}

#[test]
fn threads_share_one_evaluator() {
    let evaluator = Arc::new(OnnxEvaluator::<ConnectFour>::load(data("connect4_tiny.onnx")).unwrap());
    let games: Vec<ConnectFour> = references("connect4_tiny.reference.json")
        .iter()
        .map(|r| ConnectFour::parse_position(&r.position).unwrap())
        .collect();
    let alone: Vec<f32> = games.iter().map(|g| evaluator.value(g)).collect();
    let shared: Arc<dyn Evaluator<ConnectFour>> = evaluator;
    std::thread::scope(|scope| {
        for _ in 0..4 {
            scope.spawn(|| {
                let mut batch = Batch::new();
                games.iter().for_each(|g| _ = batch.push(*g, true));
                for _ in 0..20 {
                    shared.evaluate(&mut batch).unwrap();
                    for (i, v) in alone.iter().enumerate() {
                        assert!((batch.value(i) - v).abs() < 1e-6);
                    }
                }
            });
        }
    });
}

#[test]
fn a_model_whose_input_does_not_fit_the_game_is_refused_by_name() {
    let error = OnnxEvaluator::<Othello>::load(data("connect4_tiny.onnx")).unwrap_err();
    match &error {
        OnnxError::InputShape { expected, found } => {
            assert_eq!(expected, "[batch, 2, 8, 8]");
            assert_eq!(found, "[batch, 2, 6, 7]");
        }
        other => panic!("expected InputShape, got {other:?}"),
    }
    assert!(error.to_string().contains("[batch, 2, 6, 7]"), "{error}");
    let error = OnnxEvaluator::<ConnectFour>::load(data("othello_tiny.onnx")).unwrap_err();
    assert!(matches!(error, OnnxError::InputShape { .. }), "{error:?}");
}

#[test]
fn a_missing_file_and_garbage_are_errors_not_panics() {
    let missing = data("no_such_model.onnx");
    let error = OnnxEvaluator::<ConnectFour>::load(&missing).unwrap_err();
    assert!(matches!(&error, OnnxError::Unreadable { path, .. } if *path == missing), "{error:?}");
    assert!(error.to_string().contains("no_such_model.onnx"), "{error}");
    let error = OnnxEvaluator::<ConnectFour>::from_bytes(b"not a model").unwrap_err();
    assert!(matches!(error, OnnxError::Parse(_)), "{error:?}");
    let json = std::fs::read(data("connect4_tiny.reference.json")).unwrap();
    assert!(OnnxEvaluator::<ConnectFour>::from_bytes(&json).is_err());
}

#[test]
fn a_model_without_a_value_output_is_refused() {
    let error = OnnxEvaluator::<ConnectFour>::load(data("connect4_policy_only.onnx")).unwrap_err();
    match &error {
        OnnxError::MissingValue { outputs } => assert_eq!(outputs, &["policy".to_string()]),
        other => panic!("expected MissingValue, got {other:?}"),
    }
    assert!(error.to_string().contains("`value`"), "{error}");
}

#[test]
fn a_model_without_a_policy_output_gives_values_and_no_priors() {
    let full = OnnxEvaluator::<ConnectFour>::load(data("connect4_tiny.onnx")).unwrap();
    let values_only = OnnxEvaluator::<ConnectFour>::load(data("connect4_value_only.onnx")).unwrap();
    assert!(!values_only.has_policy());
    let game = ConnectFour::parse_position("4453").unwrap();
    let moves = game.legal_moves();
    let mut out = vec![0.0; 7];
    assert!(!values_only.priors(&game, moves.as_ref(), &mut out));
    let mut batch = Batch::new();
    batch.push(game, true);
    values_only.evaluate(&mut batch).unwrap();
    assert_eq!(batch.value(0), full.value(&game));
    assert!(batch.priors(0).iter().all(|&p| p == 0.0), "no priors: all left at zero");
}

#[test]
fn the_encodings_put_the_side_to_moves_pieces_on_plane_zero() {
    // Connect Four: after 1 and 2, the first player is to move again; its disc is on
    // plane 0 at (row 0, column 0), the opponent's on plane 1 at (row 0, column 1).
    let c4 = ConnectFour::parse_position("12").unwrap();
    let mut input = vec![f32::NAN; ConnectFour::INPUT_SIZE];
    c4.encode(&mut input);
    let ones: Vec<usize> = (0..input.len()).filter(|&k| input[k] == 1.0).collect();
    assert_eq!(ones, [0, 42 + 1]);
    assert!(input.iter().all(|&x| x == 0.0 || x == 1.0));
    // Tic-tac-toe: X took the centre (cell 4), so O to move sees it on plane 1.
    let mut ttt = TicTacToe::new();
    ttt.play_unchecked(Move(4));
    let mut input = vec![f32::NAN; TicTacToe::INPUT_SIZE];
    ttt.encode(&mut input);
    let ones: Vec<usize> = (0..input.len()).filter(|&k| input[k] == 1.0).collect();
    assert_eq!(ones, [9 + 4]);
    assert_eq!((ttt.policy_index(Move(8)), ttt.policy_index(Move(9))), (Some(8), None));
    // Othello: the pass has the last slot.
    let othello = Othello::new();
    assert_eq!(othello.policy_index(PASS), Some(Othello::POLICY_SIZE - 1));
    // Go 9x9: Black's D4 (row 3, column 3) and White's pass: Black to move sees its
    // stone on plane 0; the pass is slot 81.
    let go = parmcts::Go9::parse_position("D4 pass").unwrap();
    let mut input = vec![f32::NAN; parmcts::Go9::INPUT_SIZE];
    go.encode(&mut input);
    let ones: Vec<usize> = (0..input.len()).filter(|&k| input[k] == 1.0).collect();
    assert_eq!(ones, [3 * 9 + 3]);
    assert_eq!((go.policy_index(parmcts::Go9::PASS), parmcts::Go9::POLICY_SIZE), (Some(81), 82));
    // Hex 11x11: Black's a1 (row 0, column 0), White to move: the stone on plane 1, and
    // plane 2 all zeros (White joins left and right); the swap is slot 121.
    let hex = parmcts::Hex11::parse_position("a1").unwrap();
    let mut input = vec![f32::NAN; parmcts::Hex11::INPUT_SIZE];
    hex.encode(&mut input);
    let ones: Vec<usize> = (0..input.len()).filter(|&k| input[k] == 1.0).collect();
    assert_eq!(ones, [121]);
    let mut black = hex;
    black.play_sequence("b2").unwrap();
    black.encode(&mut input);
    assert_eq!(input.iter().filter(|&&x| x == 1.0).count(), 2 + 121, "Black to move: plane 2 all ones");
    assert_eq!(hex.policy_index(parmcts::Hex11::SWAP), Some(121));
}

/// A search values its leaves with the model, in batches from every worker's walks in
/// flight, its priors from the policy head: the tree is whole, the batches fill, and the
/// search still finds a forced win.
#[test]
fn a_search_runs_on_the_model_in_batches() {
    use parmcts::search::Select;
    use parmcts::{Mode, Search, SearchConfig};
    let model = Arc::new(OnnxEvaluator::<ConnectFour>::load(data("connect4_tiny.onnx")).unwrap());
    // The first player has three stones in column 1 and wins by playing it again.
    let root = ConnectFour::parse_position("121213").unwrap();
    for (mode, threads) in [(Mode::Sequential, 1), (Mode::TreeParallel, 2)] {
        let config = SearchConfig::builder()
            .playouts(3_000)
            .mode(mode)
            .threads(threads)
            .select(Select::Puct)
            .prune(false)
            .eval_priors(true)
            .eval_batch(32)
            .eval_in_flight(64)
            .endgame(0)
            .solver(false)
            .seed(2)
            .build()
            .unwrap();
        let mut search = Search::new(config).unwrap();
        search.set_evaluator(model.clone());
        let result = search.run(&root).unwrap();
        search.check_invariants().unwrap();
        assert_eq!(result.playouts, 3_000, "{mode:?}");
        assert!(result.batch_sizes.get(31).is_some_and(|&full| full > 0), "{mode:?}: {:?}", result.batch_sizes);
        assert_eq!(root.format_move(result.best_move.unwrap()), "1", "{mode:?}");
    }
}
