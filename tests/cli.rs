//! The `parmcts` command-line contract: JSON field names, and bad input rejected with one
//! `error:` line naming the bad value and exit code 2 (never a panic).

mod common;

use common::cli::{json, rejects, rejects_in_one_line, run_text};
use serde_json::Value;

#[test]
fn perft_json() {
    let v = json(&["perft", "--game", "connect4", "--depth", "5", "--json"]);
    assert_eq!(v["nodes"], 16807);
    assert_eq!(v["game"], "connect4");
    assert_eq!(v["depth"], 5);
    assert!(v["seconds"].is_number() && v["nodes_per_sec"].is_number());
    let v = json(&["perft", "--game", "othello", "--depth", "3", "--moves", "f5", "--json"]);
    // The four openings are symmetric: perft(4) = 244 from the start, so 61 after f5.
    assert_eq!(v["nodes"], 61);
}

#[test]
fn search_json_fields() {
    let v = json(&["search", "--game", "connect4", "--moves", "4453", "--playouts", "5000", "--seed", "3", "--json"]);
    for key in ["best_move", "playouts", "nodes", "elapsed_ms", "playouts_per_sec", "root_visits", "children", "pv"] {
        assert!(!v[key].is_null(), "missing {key}: {v}");
    }
    assert_eq!(v["playouts"], 5000);
    assert_eq!(v["root_visits"], 5000);
    let children = v["children"].as_array().unwrap();
    assert_eq!(children.len(), 7);
    let sum: u64 = children.iter().map(|c| c["visits"].as_u64().unwrap()).sum();
    assert_eq!(sum, 5000);
    assert!(children.iter().all(|c| c["move"].is_string() && c["value"].is_number()));
    assert_eq!(v["pv"][0], v["best_move"]);
}

#[test]
fn search_check_invariants_passes_in_every_mode() {
    // The sequential search runs one thread (more is rejected as a conflict).
    for (mode, threads) in [("seq", "1"), ("tree", "3"), ("root", "3"), ("sync", "3"), ("virtual", "16")] {
        let v = json(&[
            "search",
            "--game",
            "othello",
            "--playouts",
            "3000",
            "--mode",
            mode,
            "--threads",
            threads,
            "--check-invariants",
            "--json",
        ]);
        assert_eq!(v["invariants"], "ok", "{mode}");
        assert_eq!(v["playouts"], 3000);
    }
}

#[test]
fn play_json() {
    let v =
        json(&["play", "--game", "tictactoe", "--p1", "mcts:playouts=2000", "--p2", "mcts:playouts=2000", "--json"]);
    assert_eq!(v["result"], "draw");
    assert_eq!(v["moves"].as_array().unwrap().len(), 9);
    let v =
        json(&["play", "--game", "connect4", "--p1", "mcts:playouts=3000", "--p2", "random", "--seed", "4", "--json"]);
    assert!(["p1", "p2", "draw"].contains(&v["result"].as_str().unwrap()));
}

#[test]
fn bench_json() {
    let v = json(&[
        "bench",
        "--game",
        "tictactoe",
        "--modes",
        "pure,seq,tree,root",
        "--threads",
        "1,2",
        "--playouts",
        "2000",
        "--repeat",
        "1",
        "--json",
    ]);
    let results = v["results"].as_array().unwrap();
    // seq once; pure, tree and root at 1 and 2 threads.
    assert_eq!(results.len(), 7);
    for r in results {
        assert_eq!(r["game"], "tictactoe");
        assert!(["pure", "seq", "tree", "root"].contains(&r["mode"].as_str().unwrap()));
        assert!(r["threads"].as_u64().unwrap() >= 1);
        assert!(r["playouts_per_sec"].as_f64().unwrap() > 0.0);
        assert!(r["ratio_to_seq"].as_f64().unwrap() > 0.0);
    }
    assert!(["avx2+bmi2", "portable"].contains(&v["othello_playout_build"].as_str().unwrap()), "{v}");
}

#[test]
fn solve_json_matches_pons_examples() {
    // The two examples of Pons's test protocol page.
    let v = json(&["solve", "--game", "connect4", "--moves", "4455", "--json"]);
    assert_eq!(v["score"], 18);
    assert!(v["best_move"].is_string() && v["nodes"].is_number() && v["seconds"].is_number());
    let v = json(&["solve", "--game", "connect4", "--moves", "44455554221", "--json"]);
    assert_eq!(v["score"], -15);
    let v = json(&["solve", "--game", "connect4", "--moves", "44455554221", "--weak", "--json"]);
    assert_eq!(v["score"], -1);
}

#[test]
fn match_json_fields_and_records() {
    let records = std::env::temp_dir().join(format!("parmcts-records-{}.jsonl", std::process::id()));
    let _ = std::fs::remove_file(&records);
    let v = json(&[
        "match",
        "--game",
        "tictactoe",
        "--p1",
        "alphabeta:depth=9",
        "--p2",
        "random",
        "--games",
        "6",
        "--openings",
        "random:1",
        "--parallel-games",
        "2",
        "--records",
        records.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(v["games"], 6);
    assert_eq!(v["p2_wins"], 0);
    for key in ["p1_wins", "draws", "score", "elo"] {
        assert!(v[key].is_number(), "{key}: {v}");
    }
    for key in ["score_ci95", "elo_ci95"] {
        assert_eq!(v[key].as_array().map(Vec::len), Some(2), "{key}: {v}");
    }
    let text = std::fs::read_to_string(&records).unwrap();
    let lines: Vec<Value> = text.lines().map(|l| serde_json::from_str(l).unwrap()).collect();
    assert_eq!(lines.len(), 6);
    assert!(lines.iter().all(|l| l["opening"].as_array().unwrap().len() == 1 && l["result"].is_string()));
    // Tic-tac-toe has no resignation: the plies are the opening's and the moves after it.
    assert!(lines.iter().all(|l| l["plies"].as_u64() == Some(1 + l["moves"].as_array().unwrap().len() as u64)));
    let _ = std::fs::remove_file(&records);
}

#[test]
fn virtual_threads_from_the_command_line() {
    let args = ["search", "--game", "connect4", "--playouts", "2000", "--mode", "virtual", "--threads", "16"];
    let v = json(&[&args[..], &["--seed", "2", "--check-invariants", "--json"]].concat());
    assert_eq!(v["invariants"], "ok");
    assert_eq!((v["playouts"].as_u64(), v["root_visits"].as_u64()), (Some(2000), Some(2000)));
    assert_eq!(v["mode"], "virtual", "{v}");
    let v = json(&[
        "match",
        "--game",
        "tictactoe",
        "--p1",
        "mcts:mode=virtual,threads=16,playouts=500",
        "--p2",
        "mcts:mode=seq,playouts=500",
        "--games",
        "2",
        "--json",
    ]);
    assert_eq!(v["games"], 2, "{v}");
}

/// `model` reads a profile (written here by hand: a counting build writes real ones),
/// measures the machine and prints prediction against measurement; a missing, malformed
/// or other game's profile is bad input.
#[test]
fn the_contention_model_predicts_from_a_profile() {
    let dir = std::env::temp_dir().join(format!("parmcts-model-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let row = |threads: usize, rmw: f64, write_transfers: f64| {
        serde_json::json!({
            "threads": threads, "playouts": 1000, "rmw": rmw, "loads": 100.0,
            "transfers": write_transfers * 1.5, "write_transfers": write_transfers,
            "rmw_by_depth": [rmw], "transfers_by_depth": [write_transfers]
        })
    };
    let profile =
        serde_json::json!({ "game": "tictactoe", "rows": [row(1, 10.0, 0.0), row(2, 12.0, 3.0), row(8, 20.0, 9.0)] });
    let path = dir.join("ttt.json");
    std::fs::write(&path, profile.to_string()).unwrap();
    let path = path.to_str().unwrap();
    let args = ["model", "--game", "tictactoe", "--profile", path, "--playouts", "2000", "--repeat", "1", "--json"];
    let v = json(&args);
    let rows = v["rows"].as_array().unwrap();
    assert_eq!(rows.len(), 3, "{v}");
    // One thread: the measurement itself; 8 threads: predicted only (beyond the cores).
    assert!(rows[0]["error"].as_f64().unwrap().abs() < 1e-9, "{v}");
    assert!(rows[2]["predicted_playouts_per_sec"].as_f64().unwrap() > 0.0, "{v}");
    assert_eq!(rows[1]["extra_rmw"].as_f64(), Some(2.0), "{v}");
    assert!(v["costs"]["transfer_ns"].as_f64().unwrap() > 0.0, "{v}");
    rejects_in_one_line(
        &["model", "--game", "tictactoe", "--profile", "/no/such/profile.json"],
        &["--profile", "counting build"],
    );
    rejects_in_one_line(&["model", "--game", "connect4", "--profile", path], &["--profile", "tictactoe"]);
    std::fs::write(dir.join("bad.json"), "{").unwrap();
    rejects_in_one_line(
        &["model", "--game", "tictactoe", "--profile", dir.join("bad.json").to_str().unwrap()],
        &["not a profile"],
    );
    std::fs::remove_dir_all(&dir).ok();
}

/// `solve --game othello` solves an FFO endgame (#1, 14 empties) to its published score.
#[test]
fn solve_solves_an_othello_endgame() {
    let line = std::fs::read_to_string(concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/othello/fforum-1-19.obf"))
        .unwrap()
        .lines()
        .next()
        .unwrap()
        .to_string();
    // `--moves=…`: the board starts with `--`, which clap would take for a flag.
    let moves = format!("--moves={}", line.split(';').next().unwrap());
    let v = json(&["solve", "--game", "othello", &moves, "--json"]);
    assert_eq!((v["score"].as_i64(), v["best_move"].as_str()), (Some(18), Some("g8")), "{v}");
    assert!(v["nodes"].as_u64().unwrap() > 0, "{v}");
    let weak = json(&["solve", "--game", "othello", &moves, "--weak", "--json"]);
    assert_eq!(weak["score"].as_i64(), Some(1), "{weak}");
    // Mobility ordering alone: the same score.
    let plain = json(&["solve", "--game", "othello", &moves, "--no-network", "--json"]);
    assert_eq!((plain["score"].as_i64(), plain["best_move"].as_str()), (Some(18), Some("g8")), "{plain}");
}

#[test]
fn solver_and_rave_flags() {
    let v = json(&[
        "search",
        "--game",
        "connect4",
        "--moves",
        "121213",
        "--playouts",
        "100000",
        "--solver",
        "on",
        "--json",
    ]);
    assert_eq!(v["proof"], "win");
    assert_eq!(v["best_move"], "1");
    assert!(v["playouts"].as_u64().unwrap() < 100_000, "a proven root stops the search");
    let v =
        json(&["search", "--game", "othello", "--playouts", "2000", "--rave", "300", "--check-invariants", "--json"]);
    assert_eq!(v["invariants"], "ok");
    rejects(&["search", "--game", "othello", "--playouts", "100", "--rave", "-1"], "RAVE");
    rejects(&["search", "--game", "othello", "--playouts", "100", "--solver", "maybe"], "solver");
}

#[test]
fn match_text_has_no_negative_zero_and_no_negative_overrun() {
    let (code, stdout, stderr) =
        run_text(&["match", "--game", "tictactoe", "--p1", "alphabeta:depth=9", "--p2", "random", "--games", "1"]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(!stdout.contains("-0.0"), "{stdout}");
    let (code, stdout, stderr) = run_text(&[
        "match",
        "--game",
        "tictactoe",
        "--p1",
        "mcts:playouts=10,time-ms=5",
        "--p2",
        "random",
        "--games",
        "2",
    ]);
    assert_eq!(code, Some(0), "{stderr}");
    assert!(stdout.contains("5 ms budget"), "{stdout}");
    assert!(!stdout.contains("median -") && !stdout.contains("max -"), "{stdout}");
}

#[test]
fn scale_reports_every_metric() {
    let dir = std::env::temp_dir().join(format!("parmcts-scale-{}", std::process::id()));
    let csv = dir.join("scale.csv");
    std::fs::create_dir_all(&dir).unwrap();
    let v = json(&[
        "scale",
        "--game",
        "tictactoe",
        "--modes",
        "tree,root",
        "--threads",
        "1,2",
        "--time-ms",
        "2",
        "--k",
        "1,2",
        "--games",
        "2",
        "--repeat",
        "1",
        "--csv",
        csv.to_str().unwrap(),
        "--plot",
        dir.to_str().unwrap(),
        "--json",
    ]);
    assert_eq!(v["game"], "tictactoe");
    // seq, then tree and root at 1 and 2 threads.
    let throughput = v["throughput"].as_array().unwrap();
    assert_eq!(throughput.len(), 5, "{v}");
    assert!(throughput.iter().all(|r| r["ratio_to_seq"].as_f64().unwrap() > 0.0));
    let overhead = v["overhead"].as_array().unwrap();
    assert_eq!(overhead.len(), 2, "{v}");
    assert!(overhead.iter().all(|o| o["playouts"].as_u64().unwrap() >= 1 && o["result"]["games"] == 2));
    let strength = v["strength"].as_array().unwrap();
    assert_eq!(strength.len(), 4, "two modes, two factors: {v}");
    for s in v["strength_speedup"].as_array().unwrap() {
        let speedup = s["speedup"].as_object().unwrap();
        assert!(["at", "below", "above"].iter().any(|k| speedup.contains_key(*k)), "{s}");
        assert_eq!(s["ci95"].as_array().unwrap().len(), 2);
    }
    let text = std::fs::read_to_string(&csv).unwrap();
    assert!(text.starts_with("metric,mode,threads,k,value,low,high,note\n"));
    assert_eq!(text.lines().count(), 1 + 5 + 2 + 4 + 2, "{text}");
    for plot in ["tictactoe-throughput.svg", "tictactoe-strength.svg"] {
        assert!(std::fs::read_to_string(dir.join(plot)).unwrap().contains("<svg"), "{plot}");
    }
    std::fs::remove_dir_all(&dir).ok();
    rejects_in_one_line(&["scale", "--game", "connect4", "--modes", "seq"], &["--modes", "tree, root and sync"]);
    rejects_in_one_line(&["scale", "--game", "connect4", "--k", "2,1"], &["--k"]);
    rejects_in_one_line(&["scale", "--game", "connect4", "--threads", "0"], &["--threads"]);
    rejects_in_one_line(&["scale", "--game", "connect4", "--games", "0"], &["--games"]);
}

#[test]
fn ladder_plays_each_doubling_against_the_rung_below() {
    let v = json(&[
        "ladder",
        "--game",
        "connect4",
        "--player",
        "mcts:reuse=off",
        "--from",
        "16",
        "--to",
        "64",
        "--games",
        "8",
        "--openings",
        "random:2",
        "--json",
    ]);
    let rungs = v["rungs"].as_array().unwrap();
    let budgets: Vec<u64> = rungs.iter().map(|r| r["playouts"].as_u64().unwrap()).collect();
    assert_eq!(budgets, [32, 64]);
    let mut total = 0.0;
    for r in rungs {
        let games = r["p1_wins"].as_u64().unwrap() + r["draws"].as_u64().unwrap() + r["p2_wins"].as_u64().unwrap();
        assert_eq!((games, r["games"].as_u64().unwrap()), (8, 8));
        assert_eq!(
            r["p2"].as_str().unwrap(),
            format!("mcts:reuse=off,playouts={}", r["playouts"].as_u64().unwrap() / 2)
        );
        total += r["elo"].as_f64().unwrap();
        assert!((r["elo_total"].as_f64().unwrap() - total).abs() < 1e-9);
    }
    rejects(&["ladder", "--game", "connect4", "--player", "mcts:playouts=5"], "sets the budget");
    rejects(&["ladder", "--game", "connect4", "--player", "random"], "mcts player");
    rejects(&["ladder", "--game", "connect4", "--from", "100", "--to", "150"], "no rung");
    rejects(&["ladder", "--game", "connect4", "--player", "mcts:bogus=1"], "bogus");
    // A top rung past the most playouts a search takes fails before the first game.
    rejects(&["ladder", "--game", "connect4", "--from", "1000", "--to", "99999999999999"], "exceeds the maximum");
}
