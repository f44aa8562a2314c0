//! TDS (`dist-scheme=tds`) under `mpirun`: exact counts and the invariants across the
//! ranks, a timed search, what it refuses, and a rank that dies or stops answering.
//! Needs the `mpi` feature and Open MPI's `mpirun` (`.ci/run` installs it).
#![cfg(feature = "mpi")]

use std::process::Command;
use std::time::{Duration, Instant};

mod mpi_common;
use mpi_common::*;

fn tds_args<'a>(game: &'a str, budget: &'a [&'a str], seed: &'a str) -> Vec<&'a str> {
    let mut args = search_args(game, budget, "1", seed);
    args.extend(["--dist-scheme", "tds"]);
    args
}

/// TDS (one tree spread node by node): every playout counted once, whatever the ranks,
/// the transport and the plies per home block; the tree's invariants hold across the
/// ranks (each child record whose home is another rank has exactly the statistics of
/// its home's fragment: no virtual loss left, no report lost); every rank reports the
/// same root. Othello carries its implicit minimax values up between the ranks. With a
/// copy of the root's block on every rank, every copy ends with every rank's playouts.
#[test]
fn a_tds_search_agrees_and_counts_exactly() {
    let tcp: &[&str] = &["--mca", "btl", "self,tcp"];
    for (game, np, mpi_args, extra) in [
        ("connect4", 1, &[][..], &[][..]),
        ("connect4", 2, tcp, &["--dist-depth", "1"][..]),
        ("othello", 2, &[][..], &[][..]),
        ("othello", 3, &[][..], &["--dist-depth", "2", "--dist-batch", "2"][..]),
        ("hex", 4, &[][..], &["--dist-depth", "1"][..]),
        ("go", 2, tcp, &["--rave", "0"][..]),
        // A copy of the root's block on every rank, each starting jobs.
        ("connect4", 2, &[][..], &["--dist-top-everywhere", "on"][..]),
        ("othello", 4, tcp, &["--dist-top-everywhere", "on", "--dist-every", "50"][..]),
        ("hex", 3, &[][..], &["--dist-top-everywhere", "on", "--dist-depth", "2"][..]),
    ] {
        let mut args = tds_args(game, &["--playouts", "20001"], "7");
        args.extend(extra);
        let reports = ranks(&format!("tds-{game}-{np}"), np, mpi_args, &args);
        check_agreement(&reports, Some(20_001));
        assert!(reports[0]["max_depth"].as_u64().unwrap() > 2, "{game}: the walks go below the root's home");
    }
}

/// A timed TDS search ends on every rank (the root's home halts the jobs at its deadline
/// and stops the ranks once they are back), with the same answer everywhere.
#[test]
fn a_timed_tds_search_ends_on_every_rank() {
    let started = Instant::now();
    let reports = ranks("tds-timed", 2, &[], &tds_args("othello", &["--time-ms", "300"], "3"));
    check_agreement(&reports, None);
    assert!(reports[0]["playouts"].as_u64().unwrap() > 1_000);
    let mut copies = tds_args("connect4", &["--time-ms", "300"], "3");
    copies.extend(["--dist-top-everywhere", "on"]);
    let reports = ranks("tds-timed-copies", 3, &[], &copies);
    check_agreement(&reports, None);
    assert!(reports[0]["playouts"].as_u64().unwrap() > 1_000);
    assert!(started.elapsed() < Duration::from_secs(45));
}

/// What TDS cannot do is refused with the setting named: the solver, RAVE (Go's
/// default), several threads a rank.
#[test]
fn tds_refuses_what_it_leaves_out() {
    for (args, expected) in [
        (&["--game", "connect4", "--solver", "on"][..], "solver=on"),
        (&["--game", "go"][..], "rave=1000"),
        (&["--game", "othello", "--threads", "2"][..], "threads=2"),
        (&["--game", "einstein"][..], "chance turns"),
    ] {
        let out = mpirun(
            1,
            &[],
            &[&["search", "--mode", "dist", "--dist-scheme", "tds", "--playouts", "100"][..], args].concat(),
            &[],
            None,
        );
        assert_eq!(out.status.code(), Some(2), "{args:?}: {}", String::from_utf8_lossy(&out.stderr));
        assert!(
            String::from_utf8_lossy(&out.stderr).contains(expected),
            "{args:?}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// The pids of the ranks `mpirun` (pid `launcher`) started, by rank: its children with
/// `OMPI_COMM_WORLD_RANK` in their environment.
fn rank_pids(launcher: u32) -> Vec<(usize, u32)> {
    let mut found = Vec::new();
    for entry in std::fs::read_dir("/proc").unwrap().flatten() {
        let Ok(pid) = entry.file_name().to_string_lossy().parse::<u32>() else { continue };
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // The parent's pid is the fourth field, after the command in parentheses.
        let ppid = stat.rsplit(')').next().and_then(|rest| rest.split_whitespace().nth(1)).and_then(|p| p.parse().ok());
        if ppid != Some(launcher) {
            continue;
        }
        let environ = std::fs::read(format!("/proc/{pid}/environ")).unwrap_or_default();
        let rank = environ
            .split(|&b| b == 0)
            .find_map(|var| String::from_utf8_lossy(var).strip_prefix("OMPI_COMM_WORLD_RANK=").map(str::to_string));
        if let Some(rank) = rank.and_then(|r| r.parse().ok()) {
            found.push((rank, pid));
        }
    }
    found.sort();
    found
}

/// A TDS job of `np` ranks searching for a minute (with `extra` settings); once it runs,
/// rank 1 gets `signal`; returns how long the job took to end after it, and its stderr.
fn signal_a_rank(np: usize, signal: &str, extra: &[&str]) -> (Duration, String) {
    let mut command = mpirun_command(np, &[], &[]);
    command
        .arg(env!("CARGO_BIN_EXE_parmcts"))
        .args(["search", "--game", "othello", "--mode", "dist", "--dist-scheme", "tds", "--time-ms", "60000"])
        .args(extra)
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::piped());
    let job = command.spawn().expect("run mpirun");
    let ranks = loop {
        let ranks = rank_pids(job.id());
        if ranks.len() == np {
            break ranks;
        }
        std::thread::sleep(Duration::from_millis(50));
    };
    // Into the search: past MPI's start-up.
    std::thread::sleep(Duration::from_millis(1500));
    let killed = Instant::now();
    let status = Command::new("kill").args([signal, &ranks[1].1.to_string()]).status().unwrap();
    assert!(status.success());
    let out = job.wait_with_output().unwrap();
    let elapsed = killed.elapsed();
    assert!(!out.status.success(), "the job must fail");
    // `mpirun` may end while a rank it killed is still on its way out (a busy machine
    // delays the exit): each rank must be gone within 5 seconds of the job's end.
    let gone = |pid: u32| !std::path::Path::new(&format!("/proc/{pid}/stat")).exists() || zombie(pid);
    let ended = Instant::now();
    for (_, pid) in ranks {
        while !gone(pid) && ended.elapsed() < Duration::from_secs(5) {
            std::thread::sleep(Duration::from_millis(50));
        }
        let stat = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        assert!(gone(pid), "{signal}: rank pid {pid} still runs 5 s after the job ended: {stat}");
    }
    (elapsed, String::from_utf8_lossy(&out.stderr).into_owned())
}

/// Whether the process `pid` has ended and awaits its parent.
fn zombie(pid: u32) -> bool {
    std::fs::read_to_string(format!("/proc/{pid}/stat"))
        .is_ok_and(|stat| stat.rsplit(')').next().is_some_and(|r| r.trim_start().starts_with('Z')))
}

/// A rank that dies ends the job (`mpirun` notices) and a rank that stops answering
/// ends it too (the ranks waiting for it name it and abort), each within 10 seconds,
/// with no rank left running; with copies of the top on every rank too, where every rank
/// sends to every other and one gets stuck sending to the stopped rank: the stopped rank
/// is the one named, not the stuck one (which the others then hear nothing from).
#[test]
fn a_tds_job_ends_when_a_rank_dies_or_stops_answering() {
    let copies: &[&str] = &["--dist-top-everywhere", "on"];
    for (np, signal, named, extra) in [
        (2, "-KILL", "rank 1", &[][..]),
        (3, "-KILL", "rank 1", &[][..]),
        (2, "-STOP", "rank 1 stopped answering", &[][..]),
        (3, "-STOP", "rank 1 stopped answering", copies),
        (4, "-STOP", "rank 1 stopped answering", copies),
    ] {
        let (elapsed, stderr) = signal_a_rank(np, signal, extra);
        assert!(elapsed < Duration::from_secs(10), "{signal} on {np} ranks: the job took {elapsed:?} to end");
        assert!(stderr.contains(named), "{signal} on {np} ranks: {stderr}");
    }
}

/// Tree reuse across the ranks: one TDS search plays a game against itself under
/// `mpirun` (this test binary's `tds_game_with_reuse` on every rank), keeping before each
/// move the subtree of the position reached. After every search the tree's invariants
/// hold across the ranks (the kept visits counted with the new), and most searches
/// start from a kept tree. Connect Four and Othello; 2 and 3 ranks.
#[test]
fn a_tds_tree_is_kept_between_moves() {
    for np in [2, 3] {
        let out = mpirun_command(np, &[], &[])
            .arg(std::env::current_exe().expect("this test binary"))
            .args(["--exact", "tds_game_with_reuse", "--ignored", "--nocapture", "--test-threads", "1"])
            .output()
            .expect("run mpirun");
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{np} ranks: {stdout}\n{}", String::from_utf8_lossy(&out.stderr));
        let games = stdout.matches("tds reuse:").count();
        assert_eq!(games, 2 * np, "{np} ranks: each rank reports both games\n{stdout}");
    }
}

/// A rank's part of [`a_tds_tree_is_kept_between_moves`] (run by it under `mpirun`).
#[test]
#[ignore = "one rank's part of a_tds_tree_is_kept_between_moves, which runs it under mpirun"]
fn tds_game_with_reuse() {
    use parmcts::Game;
    fn play<G: parmcts::SearchGame>(mut game: G) {
        let settings = [("mode", "dist"), ("dist-scheme", "tds"), ("playouts", "3000"), ("seed", "5")];
        let config = parmcts::SearchConfig::builder().apply_settings(settings).unwrap().build().unwrap();
        let mut search = parmcts::Search::new(config).unwrap();
        let (mut searches, mut kept) = (0, 0);
        while game.outcome().is_none() {
            let result = search.run(&game).unwrap();
            let nodes = search.check_invariants().unwrap_or_else(|e| panic!("move {searches}: {e}"));
            assert!(nodes > 1);
            searches += 1;
            let before = game.clone();
            game.try_play(result.best_move.unwrap()).unwrap();
            // Both sides' moves: the same search plays them, each from the last one's tree.
            if search.reuse(&before, &game, 2) > 0 {
                kept += 1;
            }
        }
        assert!(kept * 3 >= searches * 2, "{}: {kept} of {searches} searches kept a tree", G::NAME);
        println!("tds reuse: {} kept a tree for {kept} of {searches} searches", G::NAME);
    }
    let cluster = parmcts::search::distributed::Cluster::init().expect("MPI");
    play(parmcts::ConnectFour::new());
    play(parmcts::Othello::new());
    drop(cluster);
}
