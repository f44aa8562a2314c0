//! What the tests under `mpirun` share: running a job, reading each rank's report, and
//! checking that the ranks agree.
#![allow(dead_code)]

use std::path::PathBuf;
use std::process::{Command, Output};

use serde_json::Value;

/// Every job's own limit (`mpirun --timeout`): a hang fails the test instead.
pub const TIMEOUT_S: &str = "120";

/// `mpirun -np <np> [mpi_args]`, allowed to run as root and more ranks than cores, with
/// `env` set on every rank: the program and its arguments follow.
pub fn mpirun_command(np: usize, mpi_args: &[&str], env: &[(&str, &str)]) -> Command {
    let mut command = Command::new("mpirun");
    command
        .env("OMPI_ALLOW_RUN_AS_ROOT", "1")
        .env("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        .env("OMPI_MCA_rmaps_base_oversubscribe", "1")
        .args(["--timeout", TIMEOUT_S, "-np", &np.to_string()])
        .args(mpi_args);
    for (key, value) in env {
        command.env(key, value).args(["-x", key]);
    }
    command
}

/// `mpirun -np <np> [mpi_args] parmcts <args>` with `env` set on every rank.
pub fn mpirun(np: usize, mpi_args: &[&str], args: &[&str], env: &[(&str, &str)], output: Option<&PathBuf>) -> Output {
    let mut command = mpirun_command(np, mpi_args, env);
    if let Some(dir) = output {
        command.arg("--output-filename").arg(dir);
    }
    command.arg(env!("CARGO_BIN_EXE_parmcts")).args(args).output().expect("run mpirun (is Open MPI installed?)")
}

/// Runs a distributed search on `np` ranks and returns each rank's JSON report, in rank
/// order.
pub fn ranks(test: &str, np: usize, mpi_args: &[&str], args: &[&str]) -> Vec<Value> {
    let dir = std::env::temp_dir().join(format!("parmcts-mpi-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    let out = mpirun(np, mpi_args, args, &[], Some(&dir));
    assert!(out.status.success(), "{args:?} on {np} ranks failed: {}", String::from_utf8_lossy(&out.stderr));
    let reports = (0..np)
        .map(|rank| {
            let path = dir.join("1").join(format!("rank.{rank}")).join("stdout");
            let text = std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
            assert_eq!(text.trim().lines().count(), 1, "rank {rank}: one JSON object: {text}");
            serde_json::from_str(&text).unwrap()
        })
        .collect();
    let _ = std::fs::remove_dir_all(&dir);
    reports
}

pub fn search_args<'a>(game: &'a str, budget: &'a [&'a str], threads: &'a str, seed: &'a str) -> Vec<&'a str> {
    let mut args = vec!["search", "--game", game, "--mode", "dist", "--threads", threads, "--seed", seed];
    args.extend(budget);
    args.extend(["--check-invariants", "--json"]);
    args
}

/// The root's (move, visits, value) triples.
pub fn children(report: &Value) -> Vec<(String, u64, f64)> {
    report["children"]
        .as_array()
        .unwrap()
        .iter()
        .map(|c| (c["move"].as_str().unwrap().to_string(), c["visits"].as_u64().unwrap(), c["value"].as_f64().unwrap()))
        .collect()
}

/// Every rank: its tree's invariants hold, the root's visits are the playouts of all
/// ranks (`playouts`, if a fixed budget) and its children's visits add up to them, and
/// every rank reports the same children and best move.
pub fn check_agreement(reports: &[Value], playouts: Option<u64>) {
    let first = &reports[0];
    let total = first["playouts"].as_u64().unwrap();
    if let Some(playouts) = playouts {
        assert_eq!(total, playouts);
    }
    for (rank, report) in reports.iter().enumerate() {
        assert_eq!(report["invariants"], "ok", "rank {rank}");
        assert_eq!(report["mode"], "dist");
        assert_eq!(report["playouts"].as_u64(), Some(total), "rank {rank}");
        assert_eq!(report["root_visits"].as_u64(), Some(total), "rank {rank}: nothing counted twice");
        let visits: u64 = children(report).iter().map(|c| c.1).sum();
        assert_eq!(visits, total, "rank {rank}: the children's visits are the root's");
        assert_eq!(children(report), children(first), "rank {rank}: the same root statistics as rank 0");
        assert_eq!(report["best_move"], first["best_move"], "rank {rank}");
    }
}
