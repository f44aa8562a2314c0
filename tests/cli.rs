//! The `parmcts` command-line contract: JSON field names, and bad input rejected with one
//! `error:` line naming the bad value and exit code 2 (never a panic).

mod common;

use std::process::Command;

use common::cli::{json, parmcts, rejects, rejects_in_one_line, run_text};
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
fn bad_input_is_rejected_with_exit_code_2() {
    rejects(&["solve", "--game", "tictactoe"], "tictactoe");
    rejects(&["solve", "--game", "othello"], "60 empty squares");
    rejects(&["solve", "--game", "connect4", "--moves", "44", "--no-network"], "--no-network");
    rejects(&["search", "--game", "connect4", "--playouts", "10", "--final", "best"], "best");
    rejects(&["play", "--game", "connect4", "--p1", "mcts:final=best"], "best");
    rejects(&["solve", "--game", "connect4", "--moves", "1212121"], "over");
    rejects(&["match", "--game", "tictactoe", "--p1", "random", "--p2", "random", "--games", "0"], "games");
    rejects(
        &["match", "--game", "tictactoe", "--p1", "random", "--p2", "random", "--openings", "random:x"],
        "random:x",
    );
    rejects(&["match", "--game", "tictactoe", "--p1", "random", "--p2", "random", "--sprt", "10,0"], "10,0");
    rejects(&["match", "--game", "tictactoe", "--p1", "minimax:depth=0", "--p2", "random"], "depth");
    rejects(&["match", "--game", "tictactoe", "--p1", "alphabeta", "--p2", "random"], "alphabeta");
    rejects(&["match", "--game", "tictactoe", "--p1", "alphabeta:time-ms=0", "--p2", "random"], "time-ms");
    rejects(&["match", "--game", "tictactoe", "--p1", "random", "--p2", "random", "--parallel-games", "0"], "parallel");
    rejects(&["perft", "--game", "chess", "--depth", "2"], "chess");
    rejects(&["search", "--game", "chess", "--playouts", "10"], "chess");
    rejects(&["search", "--game", "connect4", "--moves", "448", "--playouts", "10"], "448");
    rejects(&["search", "--game", "connect4", "--moves", "1111111", "--playouts", "10"], "1111111");
    rejects(&["search", "--game", "othello", "--moves", "a1", "--playouts", "10"], "a1");
    rejects(&["search", "--game", "tictactoe", "--playouts", "0"], "playouts");
    rejects(&["search", "--game", "tictactoe", "--time-ms", "0"], "time");
    rejects(&["search", "--game", "tictactoe", "--playouts", "x"], "x");
    rejects(&["search", "--game", "tictactoe", "--playouts", "10", "--c", "-1"], "-1");
    rejects(&["search", "--game", "tictactoe", "--playouts", "10", "--threads", "0"], "threads");
    rejects(&["search", "--game", "tictactoe", "--playouts", "10", "--mode", "fast"], "fast");
    rejects(&["search", "--game", "connect4", "--playouts", "10", "--nodes", "5"], "arena");
    rejects(&["search", "--game", "othello", "--playouts", "10", "--nodes", "1"], "1");
    rejects(&["search", "--game", "connect4", "--moves", "1212121", "--playouts", "10"], "over");
    rejects(&["play", "--game", "tictactoe", "--p1", "alien"], "alien");
    rejects(&["play", "--game", "tictactoe", "--p2", "mcts:speed=9"], "speed");
    rejects(&["play", "--game", "tictactoe", "--p2", "mcts:playouts=0"], "playouts");
    rejects(&["bench", "--threads", "1,0"], "0");
    rejects(&["bench", "--modes", "seq,warp"], "warp");
    rejects(&["bench", "--game", "havannah"], "havannah");
    rejects(&["search", "--game", "connect4", "--playouts", "100", "--in-flight", "wu"], "wu");
    rejects(&["search", "--game", "othello", "--playouts", "100", "--leaves", "0"], "leaves must be 1 to 4 (got 0)");
    rejects(&["play", "--game", "othello", "--p1", "mcts:playouts=10,leaves=9"], "got 9");
    rejects(&["bench", "--game", "othello", "--leaves", "5"], "--leaves");
}

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
fn bounds_and_conflicts_are_rejected_naming_the_values() {
    let search = |extra: &[&'static str]| -> Vec<&'static str> {
        [&["search", "--game", "tictactoe", "--playouts", "1000"][..], extra].concat()
    };
    rejects_in_one_line(&search(&["--threads", "4294967296", "--mode", "tree"]), &["--threads", "at most 1024"]);
    rejects_in_one_line(&search(&["--threads", "100000", "--mode", "tree"]), &["100000"]);
    rejects_in_one_line(&["play", "--game", "tictactoe", "--p1", "mcts:mode=tree,threads=100000000000"], &["1024"]);
    rejects_in_one_line(&search(&["--memory-mb", "99999999"]), &["too large"]);
    rejects_in_one_line(&search(&["--nodes", "4294967296"]), &["4294967296", "too large"]);
    rejects_in_one_line(&search(&["--c", "1e100"]), &["--c", "32-bit"]);
    rejects_in_one_line(&search(&["--memory-mb", "10", "--nodes", "100"]), &["memory-mb=10", "nodes=100"]);
    rejects_in_one_line(&search(&["--mode", "seq", "--threads", "4"]), &["mode=seq", "threads=4"]);
    rejects_in_one_line(
        &["play", "--game", "tictactoe", "--p1", "mcts:playouts=10,playouts=20"],
        &["playouts given twice"],
    );
    rejects_in_one_line(&["play", "--game", "tictactoe", "--p1", "alphabeta:depth=2,depth=3"], &["depth given twice"]);
}

#[test]
fn argument_errors_are_one_line() {
    rejects_in_one_line(&["perft", "--game", "chess", "--depth", "2"], &["chess", "tictactoe, connect4, othello"]);
    rejects_in_one_line(&["search", "--game", "tictactoe", "--bogus"], &["--bogus"]);
    rejects_in_one_line(&["search", "--game", "tictactoe", "--virtual-loss", "-1"], &["--virtual-loss", "'-1'"]);
    rejects_in_one_line(&["bench", "--game", "havannah"], &["havannah"]);
    use std::os::unix::ffi::OsStrExt;
    let not_utf8 = std::ffi::OsStr::from_bytes(b"4\xff4");
    let out = Command::new(env!("CARGO_BIN_EXE_parmcts"))
        .args(["search", "--game", "connect4", "--moves"])
        .arg(not_utf8)
        .output()
        .expect("run parmcts");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!((out.status.code(), stderr.lines().count()), (Some(2), 1), "{stderr}");
    assert!(stderr.starts_with("error: "), "{stderr}");
}

#[test]
fn move_errors_quote_only_the_move() {
    let search = |moves: &str| run_text(&["search", "--game", "connect4", "--moves", moves, "--playouts", "10"]).2;
    assert!(search("8").contains("malformed move '8' (expected a column 1-7)"), "{}", search("8"));
    assert!(search("1111111").contains("illegal move '1' (move 7)"), "{}", search("1111111"));
}

#[test]
fn othello_boards_may_start_with_a_dash_and_carry_the_side() {
    let start = "---------------------------OX------XO---------------------------";
    for moves in [format!("{start} X"), format!("{start}X")] {
        let v = json(&["perft", "--game", "othello", "--depth", "3", "--moves", &moves, "--json"]);
        assert_eq!(v["nodes"], 56, "{moves}");
    }
    let v = json(&["search", "--game", "othello", "--moves", &format!("{start}O"), "--playouts", "100", "--json"]);
    assert_eq!(v["playouts"], 100);
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
fn help_shows_defaults_and_the_spec_grammar() {
    let help = |args: &[&str]| {
        let (code, stdout, _) = run_text(args);
        assert_eq!(code, Some(0));
        stdout
    };
    let search = help(&["search", "--help"]);
    let per_game = "[default: per game: tictactoe 1.4142135, connect4 0.5, othello 0.3, go 0.25, go13 0.25,";
    for needle in [
        "[default: 100000",
        "--mode <auto|seq|tree|root|sync|virtual|dist>",
        "[default: auto: seq at 1 thread, else tree]",
        "[default: 384]",
        "[default: 8]",
        per_game,
        "[default: per game: tictactoe none, connect4 none, othello network, go none,",
        "[default: per game: tictactoe 0, connect4 0, othello 0.6, go 0,",
        "[default: per game: tictactoe biased, connect4 biased, othello biased, go biased,",
        "[default: per game: tictactoe 0, connect4 0, othello 0, go 1000,",
    ] {
        assert!(search.contains(needle), "search --help lacks {needle}: {search}");
    }
    for command in ["play", "match"] {
        assert!(help(&[command, "--help"]).contains("Player specs: `random`"), "{command} --help");
    }
    assert!(help(&["solve", "--help"]).contains("minutes"));
    assert!(help(&["bench", "--help"]).contains("x seq"));
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

/// Without the `mpi` feature the distributed mode is a clear error, not a silent
/// fallback.
#[cfg(not(feature = "mpi"))]
#[test]
fn dist_mode_without_the_mpi_feature_exits_2() {
    rejects(&["search", "--game", "connect4", "--mode", "dist", "--playouts", "100"], "mpi feature");
}
