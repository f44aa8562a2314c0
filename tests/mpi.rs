//! The distributed search (`mode=dist`) under `mpirun`: exact counts, every rank's
//! identical answer, one rank as the tree-parallel search, loopback TCP, and a panicking
//! rank ending the job. Needs the `mpi` feature and Open MPI's `mpirun` on the PATH
//! (`.ci/run` installs it); run as root, the environment allows it.
#![cfg(feature = "mpi")]

use std::process::Command;
use std::time::{Duration, Instant};

use serde_json::Value;

mod mpi_common;
use mpi_common::*;

#[test]
fn one_rank_searches_as_the_tree_parallel_mode() {
    for (game, threads) in [("connect4", "1"), ("othello", "1")] {
        let budget = ["--playouts", "20000"];
        let dist = ranks(&format!("one-{game}"), 1, &[], &search_args(game, &budget, threads, "11"));
        check_agreement(&dist, Some(20_000));
        // A distributed search leaves the game's default halving off (Connect Four's).
        let out = Command::new(env!("CARGO_BIN_EXE_parmcts"))
            .args(["search", "--game", game, "--mode", "tree", "--threads", threads, "--seed", "11"])
            .args(["--halving", "off"])
            .args(budget)
            .arg("--json")
            .output()
            .unwrap();
        assert!(out.status.success());
        let tree: Value = serde_json::from_slice(&out.stdout).unwrap();
        assert_eq!(children(&dist[0]), children(&tree), "{game}");
        assert_eq!(dist[0]["best_move"], tree["best_move"], "{game}");
        assert_eq!(dist[0]["nodes"], tree["nodes"], "{game}");
    }
}

#[test]
fn two_ranks_of_two_threads_agree_and_count_exactly() {
    let reports = ranks("two", 2, &[], &search_args("connect4", &["--playouts", "60001"], "2", "3"));
    check_agreement(&reports, Some(60_001));
}

#[test]
fn four_ranks_agree_and_count_exactly() {
    // Shallow sharing down to 4 plies of every node with a visit: the most traffic.
    let mut args = search_args("othello", &["--playouts", "40000"], "1", "5");
    args.extend(["--dist-depth", "4", "--dist-share", "0", "--dist-period", "5"]);
    let reports = ranks("four", 4, &[], &args);
    check_agreement(&reports, Some(40_000));
}

#[test]
fn ranks_agree_over_loopback_tcp() {
    let reports =
        ranks("tcp", 2, &["--mca", "btl", "self,tcp"], &search_args("connect4", &["--playouts", "30000"], "1", "9"));
    check_agreement(&reports, Some(30_000));
}

/// With `dist-every`, ranks of one thread share after every P playouts, and a run repeats
/// exactly: the same root statistics on every rank and in a second run, with many shares
/// (40,000 playouts in rounds of 1,000 on each of 2 ranks). It is not the search of one
/// rank: the shares change the trees.
#[test]
fn sharing_every_p_playouts_is_reproducible() {
    let mut args = search_args("othello", &["--playouts", "40000"], "1", "13");
    args.extend(["--dist-every", "1000"]);
    let first = ranks("every-1", 2, &[], &args);
    check_agreement(&first, Some(40_000));
    let second = ranks("every-2", 2, &[], &args);
    check_agreement(&second, Some(40_000));
    assert_eq!(children(&first[0]), children(&second[0]), "the same search twice");
    assert_eq!(first[0]["nodes"], second[0]["nodes"]);
    let alone = ranks("every-alone", 1, &[], &search_args("othello", &["--playouts", "20000"], "1", "13"));
    let rank_0_alone: Vec<u64> = children(&alone[0]).iter().map(|c| c.1).collect();
    assert_ne!(rank_0_alone, children(&first[0]).iter().map(|c| c.1 / 2).collect::<Vec<_>>());
}

/// Rounds with several workers per rank (started once, waiting at a barrier while the
/// calling thread shares): every playout is counted once and the ranks agree.
#[test]
fn rounds_with_several_threads_per_rank_count_every_playout() {
    let mut args = search_args("connect4", &["--playouts", "30000"], "2", "17");
    args.extend(["--dist-every", "500"]);
    let reports = ranks("every-threads", 2, &[], &args);
    check_agreement(&reports, Some(30_000));
}

#[test]
fn rank_zero_clock_stops_a_timed_search_on_every_rank() {
    for scheme in ["share", "farm", "split"] {
        let start = Instant::now();
        let mut args = search_args("othello", &["--time-ms", "300"], "1", "2");
        args.extend(["--dist-scheme", scheme]);
        let reports = ranks(&format!("timed-{scheme}"), 2, &[], &args);
        check_agreement(&reports, None);
        assert!(reports[0]["playouts"].as_u64().unwrap() > 0);
        assert!(start.elapsed() < Duration::from_secs(30));
    }
}

/// A 1 ms budget passes while rank 0 waits for the others to start (the agreement on the
/// root): the clock then stops no search whose root has fewer visits than it has moves, so
/// every scheme still gives each of Connect Four's 7 root moves a playout on average.
#[test]
fn a_deadline_passed_before_the_first_share_still_leaves_a_floor_of_playouts() {
    for scheme in ["share", "farm", "split"] {
        let mut args = search_args("connect4", &["--time-ms", "1"], "1", "3");
        args.extend(["--dist-scheme", scheme]);
        let reports = ranks(&format!("floor-{scheme}"), 2, &[], &args);
        check_agreement(&reports, None);
        let playouts = reports[0]["playouts"].as_u64().unwrap();
        assert!(playouts >= 7, "{scheme}: {playouts} playouts");
    }
}

#[test]
fn a_panic_on_one_rank_ends_the_job() {
    let start = Instant::now();
    // A minute's search: without the abort, rank 0 would wait in its next share.
    let args = ["search", "--game", "othello", "--mode", "dist", "--time-ms", "60000"];
    let out = mpirun(2, &[], &args, &[("PARMCTS_DIST_PANIC_RANK", "1")], None);
    let elapsed = start.elapsed();
    assert!(!out.status.success(), "the job must fail: {}", String::from_utf8_lossy(&out.stderr));
    assert!(elapsed < Duration::from_secs(10), "the job took {elapsed:?} to end");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("panic injected on rank 1"), "{stderr}");
}

#[test]
fn bad_dist_settings_exit_2() {
    let out = Command::new(env!("CARGO_BIN_EXE_parmcts"))
        .args(["search", "--game", "connect4", "--mode", "dist", "--dist-share", "101"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).starts_with("error: --dist-share"));
    let out = Command::new(env!("CARGO_BIN_EXE_parmcts"))
        .args(["search", "--game", "connect4", "--mode", "dist", "--dist-every", "0"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("dist-every must be at least 1"));
}

#[test]
fn ranks_given_different_positions_fail_instead_of_mixing_them() {
    let bin = env!("CARGO_BIN_EXE_parmcts");
    let search = |moves: &'static str| {
        ["search", "--game", "connect4", "--mode", "dist", "--playouts", "1000", "--moves", moves]
    };
    let out = Command::new("mpirun")
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
        .args(["--timeout", TIMEOUT_S, "-np", "1", bin])
        .args(search("4"))
        .args([":", "-np", "1", bin])
        .args(search("3"))
        .output()
        .unwrap();
    assert!(!out.status.success());
    assert!(String::from_utf8_lossy(&out.stderr).contains("different positions"));
}

#[test]
fn a_match_with_a_distributed_player_runs_in_lockstep_and_rank_0_reports() {
    let dir = std::env::temp_dir().join(format!("parmcts-mpi-{}-match", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let args = [
        "match",
        "--game",
        "connect4",
        "--p1",
        "mcts:mode=dist,playouts=3000,threads=2",
        "--p2",
        "mcts:playouts=1000",
        "--games",
        "2",
        "--parallel-games",
        "1",
        "--json",
    ];
    let out = mpirun(2, &[], &args, &[], Some(&dir));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let stdout =
        |rank: usize| std::fs::read_to_string(dir.join("1").join(format!("rank.{rank}")).join("stdout")).unwrap();
    let report: Value = serde_json::from_str(&stdout(0)).unwrap();
    assert_eq!(report["games"], 2);
    assert_eq!(stdout(1), "", "only rank 0 reports");
    let _ = std::fs::remove_dir_all(&dir);
}

/// The other side of a distributed player's match moves on rank 0 alone, its moves sent
/// to every rank: it may have a time budget (searched on every rank, its moves would
/// differ between the ranks, and the distributed player's next search would fail with
/// "different positions"), and rank 0 reports its searches.
#[test]
fn a_timed_opponent_of_a_distributed_player_moves_on_rank_0_for_every_rank() {
    let dir = std::env::temp_dir().join(format!("parmcts-mpi-{}-timed-match", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let records = dir.join("records.jsonl");
    std::fs::create_dir_all(&dir).unwrap();
    let records_arg = records.to_str().unwrap();
    let args = [
        "match",
        "--game",
        "othello",
        "--p1",
        "mcts:mode=dist,dist-scheme=split,time-ms=10,dist-period=2",
        "--p2",
        "mcts:time-ms=10",
        "--games",
        "4",
        "--parallel-games",
        "1",
        "--openings",
        "random:4",
        "--records",
        records_arg,
        "--json",
    ];
    let out = mpirun(2, &["--mca", "btl", "self,tcp"], &args, &[], Some(&dir.join("out")));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let report: Value =
        serde_json::from_str(&std::fs::read_to_string(dir.join("out/1/rank.0/stdout")).unwrap()).unwrap();
    assert_eq!(report["games"], 4);
    let lines = std::fs::read_to_string(&records).unwrap();
    assert_eq!(lines.lines().count(), 4, "rank 0 alone writes the records");
    for line in lines.lines() {
        let record: Value = serde_json::from_str(line).unwrap();
        let playouts = record["move_playouts"].as_array().unwrap();
        let timed = record["move_ms"].as_array().unwrap();
        for spec in 0..2 {
            // Every move of both players has its search's playouts, counted on rank 0 (a
            // rank descheduled past its deadline on a loaded machine may count none).
            let counts = playouts[spec].as_array().unwrap();
            assert_eq!(counts.len(), timed[spec].as_array().unwrap().len(), "{line}");
            assert!(counts.iter().map(|n| n.as_u64().unwrap()).sum::<u64>() > 0, "{line}");
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn a_distributed_gtp_engine_answers_from_rank_0_alone() {
    use std::io::Write;
    let mut child = Command::new("mpirun")
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
        .args(["--timeout", TIMEOUT_S, "-np", "2", env!("CARGO_BIN_EXE_parmcts")])
        .args(["gtp", "--game", "othello", "--mode", "dist", "--threads", "2", "--playouts", "4000"])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    child.stdin.take().unwrap().write_all(b"name\ngenmove b\ngenmove w\ngenmove b\nquit\n").unwrap();
    let out = child.wait_with_output().unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let answers: Vec<&str> = text.split("\n\n").map(str::trim).filter(|a| !a.is_empty()).collect();
    // One answer per command, from rank 0 only; each genmove a move (a rank that fell out
    // of step would make the next search fail: "?").
    assert_eq!(answers.len(), 5, "{text}");
    assert_eq!(answers[0], "= parmcts");
    assert!(["= d3", "= c4", "= f5", "= e6"].contains(&answers[1]), "{text}");
    for answer in &answers[2..4] {
        assert!(answer.starts_with("= ") && answer.len() == 4, "{text}");
    }
    assert_eq!(answers[4], "=");
}

/// The farm (`dist-scheme=farm`): one tree on rank 0, the other ranks value its leaves.
fn farm_args<'a>(game: &'a str, playouts: &'a str, seed: &'a str) -> Vec<&'a str> {
    let mut args = search_args(game, &[], "1", seed);
    args.extend(["--playouts", playouts, "--dist-scheme", "farm"]);
    args
}

#[test]
fn a_farm_of_one_rank_searches_as_the_tree_parallel_mode() {
    for game in ["connect4", "othello"] {
        let dist = ranks(&format!("farm-one-{game}"), 1, &[], &farm_args(game, "20000", "11"));
        check_agreement(&dist, Some(20_000));
        let tree = ranks(&format!("farm-tree-{game}"), 1, &[], &search_args(game, &["--playouts", "20000"], "1", "11"));
        assert_eq!(children(&dist[0]), children(&tree[0]), "{game}");
        assert_eq!(dist[0]["nodes"], tree[0]["nodes"], "{game}");
    }
}

/// Every leaf valued once and backed up once: the root's visits are the budget, on every
/// rank, over TCP and with three ranks, in games with a solver's exact leaves, an
/// evaluator at the leaves (Othello's default), chance nodes (EinStein) and RAVE (Go's
/// default; the invariants check that the AMAF counts cover the visits).
#[test]
fn a_farm_agrees_and_counts_exactly() {
    let tcp: &[&str] = &["--mca", "btl", "self,tcp"];
    for (game, np, mpi_args, extra) in [
        ("connect4", 2, tcp, &["--solver", "on"][..]),
        ("othello", 2, tcp, &[][..]),
        ("othello", 3, &[][..], &["--dist-batch", "4"][..]),
        ("einstein", 2, &[][..], &[][..]),
        // RAVE by default: the playouts' moves travel back with the outcomes.
        ("go", 2, tcp, &[][..]),
    ] {
        let mut args = farm_args(game, "30001", "7");
        args.extend(extra);
        let reports = ranks(&format!("farm-{game}-{np}"), np, mpi_args, &args);
        check_agreement(&reports, Some(30_001));
        assert!(reports[0]["nodes"].as_u64().unwrap() > 1000, "{game}: rank 0 grows the one tree");
        assert_eq!(reports[0]["nodes"], reports[1]["nodes"], "{game}: the nodes of all ranks, summed");
    }
}

/// With `dist-local`, rank 0 values a fixed number of leaves between rounds and waits for
/// every answer in order: the same search twice, whatever the timing; and not the search
/// of one rank (32 walks in flight change the tree).
#[test]
fn a_farm_with_dist_local_is_reproducible() {
    let mut args = farm_args("connect4", "40000", "13");
    args.extend(["--dist-local", "8"]);
    let first = ranks("farm-local-1", 2, &[], &args);
    check_agreement(&first, Some(40_000));
    let second = ranks("farm-local-2", 2, &[], &args);
    assert_eq!(children(&first[0]), children(&second[0]), "the same search twice");
    assert_eq!(first[0]["nodes"], second[0]["nodes"]);
    let alone = ranks("farm-local-alone", 1, &[], &args);
    assert_ne!(children(&alone[0]), children(&first[0]));
}

#[test]
fn bad_farm_settings_exit_2() {
    for (args, error) in [
        (&["--dist-scheme", "farm", "--threads", "2"][..], "this scheme runs one thread a rank"),
        (&["--dist-scheme", "split", "--threads", "2"][..], "this scheme runs one thread a rank"),
        (&["--dist-scheme", "split", "--dist-depth", "0"][..], "the split needs a shared top of 1 ply or more"),
        (&["--dist-batch", "0"][..], "dist-batch must be 1 to 256 leaves (got 0)"),
        (&["--dist-scheme", "mogo"][..], "expected share, farm, split or tds"),
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_parmcts"))
            .args(["search", "--game", "connect4", "--mode", "dist"])
            .args(args)
            .output()
            .unwrap();
        assert_eq!(out.status.code(), Some(2), "{args:?}");
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(stderr.contains(error), "{args:?}: {stderr}");
    }
}

/// The split (`dist-scheme=split`): every rank keeps the top `dist-depth` plies, and each
/// subtree below belongs to one rank.
fn split_args<'a>(game: &'a str, playouts: &'a str, seed: &'a str) -> Vec<&'a str> {
    let mut args = search_args(game, &[], "1", seed);
    args.extend(["--playouts", playouts, "--dist-scheme", "split"]);
    args
}

#[test]
fn a_split_of_one_rank_searches_as_the_tree_parallel_mode() {
    let dist = ranks("split-one", 1, &[], &split_args("othello", "20000", "11"));
    let tree = ranks("split-tree", 1, &[], &search_args("othello", &["--playouts", "20000"], "1", "11"));
    assert_eq!(children(&dist[0]), children(&tree[0]));
    assert_eq!(dist[0]["nodes"], tree[0]["nodes"]);
}

/// Every walk valued once, on the rank that owns its end, and counted once: the root's
/// visits are the budget on every rank, and each rank's tree keeps its invariants (no
/// virtual loss left: the walks valued elsewhere took theirs back; the results recorded
/// ahead of the shares withdrawn with the others'), over TCP and with three ranks, in
/// games with a solver's exact leaves, an evaluator and implicit minimax values
/// (Othello's default: the owners' values travel back), chance nodes (EinStein) and RAVE
/// (Go's default). Shallow tops and frequent shares, so that walks cross every way.
#[test]
fn a_split_agrees_and_counts_exactly() {
    let tcp: &[&str] = &["--mca", "btl", "self,tcp"];
    for (game, np, mpi_args, top, extra) in [
        ("connect4", 2, tcp, 3, &["--solver", "on", "--dist-every", "500"][..]),
        ("othello", 2, tcp, 3, &["--dist-every", "300"][..]),
        ("othello", 3, &[][..], 2, &["--dist-batch", "4", "--dist-depth", "2"][..]),
        ("einstein", 2, &[][..], 3, &["--dist-every", "1000"][..]),
        ("go", 2, tcp, 1, &["--dist-depth", "1"][..]),
    ] {
        let mut args = split_args(game, "30001", "7");
        args.extend(extra);
        let reports = ranks(&format!("split-{game}-{np}"), np, mpi_args, &args);
        check_agreement(&reports, Some(30_001));
        assert!(reports[0]["max_depth"].as_u64().unwrap() > top, "{game}: the walks go on below the top");
    }
}

/// A walk whose owner has all of its starter's batches in hand (one walk a batch here,
/// so owners fall behind at once) is valued by its starter in its own copy of the
/// owner's subtree: such walks happen, both ranks still send walks to their owners, and
/// every playout is still counted once, each rank's tree keeping its invariants.
#[test]
fn walks_valued_for_a_busy_owner_count_exactly() {
    let dir = std::env::temp_dir().join(format!("parmcts-mpi-{}-split-overflow", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let mut args = split_args("othello", "30001", "5");
    args.extend(["--dist-batch", "1", "--dist-every", "300"]);
    let out = mpirun(2, &[], &args, &[("PARMCTS_DIST_STATS", "1")], Some(&dir));
    assert!(out.status.success(), "{}", String::from_utf8_lossy(&out.stderr));
    let rank_file = |rank: usize, name: &str| {
        std::fs::read_to_string(dir.join("1").join(format!("rank.{rank}")).join(name)).unwrap()
    };
    let reports: Vec<Value> =
        (0..2).map(|rank| serde_json::from_str(rank_file(rank, "stdout").trim()).unwrap()).collect();
    check_agreement(&reports, Some(30_001));
    // "rank R: L walks ended here, S sent, O valued here for their owner, ..."
    let counts = |rank: usize| -> (u64, u64) {
        let stats = rank_file(rank, "stderr");
        let line = stats.lines().find(|l| l.starts_with(&format!("rank {rank}:"))).expect("the rank's statistics");
        let number_before = |words: &str| -> u64 {
            let head = &line[..line.find(words).unwrap_or_else(|| panic!("{words:?} in {line}"))];
            head.trim_end().rsplit(' ').next().unwrap().parse().unwrap()
        };
        (number_before(" sent"), number_before(" valued here for their owner"))
    };
    let per_rank: Vec<(u64, u64)> = (0..2).map(counts).collect();
    assert!(per_rank.iter().all(|&(sent, _)| sent > 0), "both ranks send walks: {per_rank:?}");
    assert!(per_rank.iter().any(|&(_, valued)| valued > 0), "some walks are valued for their owner: {per_rank:?}");
    let _ = std::fs::remove_dir_all(&dir);
}
