//! The `parmcts` commands that train and judge: `train-weights`, `train-network`,
//! `quality` and `review`: their files, their JSON, and bad input rejected with exit code 2.

mod common;

use common::cli::{json, parmcts, rejects};

#[test]
fn train_weights_writes_a_file_searches_load() {
    let dir = std::env::temp_dir().join(format!("parmcts-train-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let out = dir.join("w.json");
    let out = out.to_str().unwrap();
    let v = json(&[
        "train-weights",
        "--game",
        "othello",
        "--games",
        "6",
        "--teacher",
        "alphabeta:depth=2",
        "--out",
        out,
        "--json",
    ]);
    assert!(v["decisions"].as_u64().unwrap() > 50, "{v}");
    assert_eq!(v["gammas"].as_array().unwrap().len(), 10);
    for key in ["learned_log_likelihood", "hand_set_log_likelihood", "learned_top_feature", "hand_set_top_feature"] {
        assert!(v[key].is_number(), "missing {key}: {v}");
    }
    // The written gammas are the fitted ones at the default temperature 0.5 (squared).
    let (fitted, written) = (v["fitted_gammas"].as_array().unwrap(), v["gammas"].as_array().unwrap());
    for (f, w) in fitted.iter().zip(written) {
        let (f, w) = (f.as_f64().unwrap(), w.as_f64().unwrap());
        assert!((w - f * f).abs() <= 1e-4 * w.max(1.0), "{f} squared is not {w}");
    }
    let spec = format!("mcts:playouts=500,bias=0.5,playout=biased,weights={out}");
    let v = json(&["play", "--game", "othello", "--p1", &spec, "--p2", "random", "--json"]);
    assert!(!v.is_null());
    for choice in ["hand-set", "default"] {
        let v = json(&["search", "--game", "othello", "--playouts", "300", "--weights", choice, "--json"]);
        assert_eq!(v["playouts"], 300, "{choice}: {v}");
    }
    let weights = format!("--weights={out}");
    rejects(&["search", "--game", "connect4", "--playouts", "100", &weights], "othello");
    rejects(&["search", "--game", "othello", "--playouts", "100", "--weights", "/nonexistent.json"], "nonexistent");
    rejects(&["train-weights", "--game", "hex"], "move features");
    // Connect Four's features are its action values' six cell classes.
    let c4 = dir.join("c4.json");
    let c4 = c4.to_str().unwrap();
    let v = json(&[
        "train-weights",
        "--game",
        "connect4",
        "--games",
        "4",
        "--teacher",
        "alphabeta:depth=2",
        "--out",
        c4,
        "--json",
    ]);
    assert_eq!(v["gammas"].as_array().unwrap().len(), 6, "{v}");
    let v = json(&["search", "--game", "connect4", "--playouts", "300", "--weights", c4, "--json"]);
    assert_eq!(v["playouts"], 300, "{v}");
    rejects(&["train-weights", "--game", "othello", "--games", "0"], "--games");
    rejects(&["train-weights", "--game", "othello", "--teacher", "wizard"], "--teacher");
    rejects(&["train-weights", "--game", "othello", "--temperature", "0"], "--temperature");
    std::fs::remove_dir_all(&dir).ok();
}

/// `parmcts train-network` writes a network that `eval=FILE` and `alphabeta:eval=FILE`
/// read for its game and refuse for another, with exit code 2.
#[test]
fn train_network_writes_a_file_searches_and_alphabeta_load() {
    let path = std::env::temp_dir().join(format!("parmcts-cli-net-{}.pmnt", std::process::id()));
    let file = path.to_str().unwrap();
    let v = json(&["train-network", "--game", "tictactoe", "--games", "2000", "--out", file, "--json"]);
    assert_eq!(v["games"].as_u64(), Some(2000));
    assert!(v["source"].as_str().unwrap().starts_with("parmcts train-network --game tictactoe"));
    let v =
        json(&["search", "--game", "tictactoe", "--eval", file, "--playouts", "500", "--check-invariants", "--json"]);
    assert_eq!(v["playouts"].as_u64(), Some(500));
    let v = json(&[
        "match",
        "--game",
        "tictactoe",
        "--p1",
        &format!("alphabeta:depth=2,eval={file}"),
        "--p2",
        "random",
        "--games",
        "2",
        "--json",
    ]);
    assert_eq!(v["games"].as_u64(), Some(2));
    rejects(&["search", "--game", "connect4", "--eval", file, "--playouts", "10"], "not for connect4");
    rejects(&["train-network", "--game", "tictactoe", "--games", "0"], "--games");
    rejects(&["search", "--game", "tictactoe", "--eval", "/nonexistent/net", "--playouts", "10"], "--eval");
    rejects(&["search", "--game", "othello", "--eval-weight", "2", "--playouts", "10"], "eval-weight");
    std::fs::remove_file(&path).unwrap();
}

/// `parmcts quality`: the report's fields, and a file that cannot be read, a malformed
/// line or a score the solver refutes rejected with exit code 2, naming file and line.
#[test]
fn quality_json_and_bad_positions() {
    let dir = std::env::temp_dir().join(format!("parmcts-cli-quality-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let write = |name: &str, text: &str| {
        let path = dir.join(name);
        std::fs::write(&path, text).unwrap();
        path.to_str().unwrap().to_string()
    };
    // Two won Begin-Easy positions and a lost one (Pons's scores).
    let good = write("good.txt", "32164625 11\n6146 18\n\n44455554221 -15\n");
    let v =
        json(&["quality", "--game", "connect4", "--positions", &good, "--player", "random", "--seed", "3", "--json"]);
    assert_eq!((v["positions"].as_u64(), v["lost"].as_u64(), v["judged"].as_u64()), (Some(3), Some(1), Some(2)));
    assert_eq!(v["game"], "connect4");
    assert_eq!(v["player"], "random");
    let kept = v["kept"].as_u64().unwrap();
    assert_eq!(kept + v["failures"].as_array().unwrap().len() as u64, 2);
    assert_eq!(v["won"]["positions"], 2);
    assert!(v["fraction"].is_number() && v["ci95"].as_array().unwrap().len() == 2 && v["mean_move_ms"].is_number());
    for f in v["failures"].as_array().unwrap() {
        for key in ["line", "moves", "score", "chosen", "score_after", "keeping"] {
            assert!(!f[key].is_null(), "missing {key}: {f}");
        }
    }
    let limited =
        json(&["quality", "--game", "connect4", "--positions", &good, "--player", "random", "--limit", "1", "--json"]);
    assert_eq!(limited["positions"], 1);
    let text = parmcts(&["quality", "--game", "connect4", "--positions", &good, "--player", "random", "--seed", "3"]);
    assert!(text.status.success() && String::from_utf8_lossy(&text.stdout).contains("kept"));

    let bad = write("bad.txt", "32164625 11\n6146 x\n");
    let args = |positions: &str| {
        ["quality", "--game", "connect4", "--positions", positions, "--player", "random"].map(String::from)
    };
    let run = |positions: &str, extra: &[&str], needle: &str| {
        let mut all: Vec<String> = args(positions).to_vec();
        all.extend(extra.iter().map(|s| s.to_string()));
        rejects(&all.iter().map(String::as_str).collect::<Vec<_>>(), needle);
    };
    run(&bad, &[], "bad.txt, line 2");
    run(&bad, &[], "bad score 'x'");
    run(&write("wrong.txt", "6146 17\n"), &[], "line 1 ('6146'): the file's score is 17 but the solver finds 18");
    run(&write("over.txt", "1212121 3\n"), &[], "line 1");
    run(&write("empty.txt", "\n"), &[], "no positions");
    run("/nonexistent/c4-positions", &[], "/nonexistent/c4-positions");
    run(&good, &["--limit", "0"], "--limit");
    run(&good, &["--parallel", "0"], "--parallel");
    run(&good, &["--tt-entries", "0"], "--tt-entries");
    rejects(&["quality", "--game", "connect4", "--positions", &good, "--player", "bogus"], "--player");
    rejects(&["quality", "--game", "othello", "--positions", &good, "--player", "random"], "connect4");
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `parmcts review`: a match's records judged by the solver, the report's counts
/// consistent with the games, and bad input rejected with exit code 2.
#[test]
fn review_json_and_bad_records() {
    let dir = std::env::temp_dir().join(format!("parmcts-cli-review-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let records = dir.join("games.jsonl");
    let records = records.to_str().unwrap();
    let m = json(&[
        "match",
        "--game",
        "connect4",
        "--p1",
        "mcts:playouts=400",
        "--p2",
        "mcts:playouts=100",
        "--games",
        "4",
        "--openings",
        "all:2",
        "--seed",
        "5",
        "--records",
        records,
        "--json",
    ]);
    assert_eq!(m["games"].as_u64(), Some(4));
    let v =
        json(&["review", "--game", "connect4", "--records", records, "--from-ply", "22", "--parallel", "2", "--json"]);
    assert_eq!((v["games"].as_u64(), v["from_ply"].as_u64()), (Some(4), Some(22)));
    assert_eq!(v["players"], serde_json::json!(["mcts:playouts=400", "mcts:playouts=100"]));
    let judged = v["judged"].as_u64().unwrap();
    assert!(judged > 0, "some game reached ply 22: {v}");
    let outcomes: u64 =
        v["outcomes"].as_array().unwrap().iter().flat_map(|r| r.as_array().unwrap()).map(|x| x.as_u64().unwrap()).sum();
    assert_eq!(outcomes, judged);
    assert_eq!(v["verdicts"].as_array().unwrap().len() as u64, judged);
    let errors: u64 = v["errors"].as_array().unwrap().iter().map(|x| x.as_u64().unwrap()).sum();
    let charged: usize = v["verdicts"].as_array().unwrap().iter().map(|g| g["errors"].as_array().unwrap().len()).sum();
    assert_eq!(errors, charged as u64);
    let text = parmcts(&["review", "--game", "connect4", "--records", records, "--from-ply", "22"]);
    assert!(text.status.success() && String::from_utf8_lossy(&text.stdout).contains("value-losing moves of p1"));

    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, "{}\n").unwrap();
    rejects(&["review", "--game", "connect4", "--records", bad.to_str().unwrap()], "bad.jsonl, line 1");
    rejects(&["review", "--game", "connect4", "--records", "/nonexistent/records"], "/nonexistent/records");
    rejects(&["review", "--game", "connect4", "--records", records, "--parallel", "0"], "--parallel");
    rejects(&["review", "--game", "connect4", "--records", records, "--tt-entries", "0"], "--tt-entries");
    rejects(&["review", "--game", "othello", "--records", records], "connect4");
    std::fs::remove_dir_all(&dir).unwrap();
}
