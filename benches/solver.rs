//! Connect Four solver speed on Pascal Pons's benchmark sets ("Solving Connect 4: how to
//! build a perfect AI", Part 2 "Test protocol"; files in `tests/data/connect4/`, read
//! at run time). Needs `[[bench]] name = "solver" harness = false` in Cargo.toml.
//!
//! Before timing, a short report prints the mean time and mean positions explored per
//! position for each set (strong; the table is reset before each position, as in Pons's
//! `main.cpp`). Criterion then
//! times solving a fixed batch of each set (all of End-Easy and Middle-Easy, every 10th
//! Begin-Easy position); the throughput line reads as positions per second. Every solve
//! is checked against the file's score.

#![allow(missing_docs)] // criterion's macros generate undocumented items

use std::hint::black_box;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use parmcts::solver::{Solver, DEFAULT_TT_ENTRIES};
use parmcts::{ConnectFour, Game};

/// (name, Pons's label, file, step between sampled positions).
const SETS: [(&str, &str, &str, usize); 3] = [
    ("end_easy_L3", "End-Easy", concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/connect4/Test_L3_R1"), 1),
    ("middle_easy_L2", "Middle-Easy", concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/connect4/Test_L2_R1"), 1),
    ("begin_easy_L1", "Begin-Easy", concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/connect4/Test_L1_R1"), 10),
];

fn load(path: &str, step: usize) -> Vec<(ConnectFour, i32)> {
    let text = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("cannot read {path}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .step_by(step)
        .map(|line| {
            let (moves, score) = line.split_once(' ').expect("moves and score");
            (ConnectFour::parse_position(moves).expect("legal position"), score.trim().parse().expect("score"))
        })
        .collect()
}

/// Solves every position once; returns (mean time in µs, mean positions explored).
fn mean_solve(solver: &mut Solver, positions: &[(ConnectFour, i32)]) -> (f64, f64) {
    let mut nodes = 0;
    let start = Instant::now();
    for (game, expected) in positions {
        solver.reset();
        let (score, n) = solver.solve_score(black_box(game), false).expect("unfinished position");
        assert_eq!(score, *expected);
        nodes += n;
    }
    let n = positions.len() as f64;
    (start.elapsed().as_secs_f64() * 1e6 / n, nodes as f64 / n)
}

fn solver_bench(c: &mut Criterion) {
    let mut solver = Solver::new(DEFAULT_TT_ENTRIES).expect("table");
    println!("connect4 solver, strong, table of {} entries reset before each position:", solver.tt_entries());
    for (_, label, path, step) in SETS {
        let positions = load(path, step);
        let (micros, nodes) = mean_solve(&mut solver, &positions);
        println!(
            "  {label:<12} {:>4} positions: mean {micros:>9.2} us, mean {nodes:>9.1} positions explored",
            positions.len()
        );
    }
    let mut group = c.benchmark_group("connect4_solver");
    group.sample_size(10);
    for (name, _, path, step) in SETS {
        let positions = load(path, step);
        group.throughput(Throughput::Elements(positions.len() as u64));
        group.bench_function(name, |b| {
            b.iter(|| {
                let mut total = 0;
                for (game, expected) in &positions {
                    solver.reset();
                    let (score, nodes) = solver.solve_score(black_box(game), false).expect("unfinished position");
                    assert_eq!(score, *expected);
                    total += nodes;
                }
                total
            })
        });
    }
    group.finish();
}

criterion_group!(benches, solver_bench);
criterion_main!(benches);
