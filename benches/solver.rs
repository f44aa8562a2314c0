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
//!
//! The Othello group times the exact endgame solver on FFO endgame problems
//! (`tests/data/othello/fforum-40-59.obf`, read at run time; provenance in that folder's
//! README): first one solve each of #40-#44 (20-23 empties) with its time and nodes,
//! then criterion on #40 and #41, with the table reset before each solve. Every solve is
//! checked against the file's first (best) score.

#![allow(missing_docs)] // criterion's macros generate undocumented items

use std::hint::black_box;
use std::time::Instant;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use parmcts::solver::{othello, EndgameSolver, Solver, DEFAULT_TT_ENTRIES};
use parmcts::{ConnectFour, Game, Othello};

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

const FFO_40_59: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/data/othello/fforum-40-59.obf");

/// FFO #40-#44: (number, position, the file's first score).
fn ffo_40_44() -> Vec<(usize, Othello, i32)> {
    let text = std::fs::read_to_string(FFO_40_59).unwrap_or_else(|e| panic!("cannot read {FFO_40_59}: {e}"));
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .take(5)
        .enumerate()
        .map(|(i, line)| {
            let game = Othello::parse_position(line).expect("OBF position");
            let first = line.split(';').nth(1).expect("a scored move");
            let score = first.split_once(':').expect("MOVE:SCORE").1.trim().parse().expect("score");
            (40 + i, game, score)
        })
        .collect()
}

fn othello_endgame_bench(c: &mut Criterion) {
    let mut solver = EndgameSolver::new(othello::DEFAULT_TT_ENTRIES).expect("table");
    let problems = ffo_40_44();
    println!("othello endgame solver, table of {} entries reset before each position:", solver.tt_entries());
    for (number, game, expected) in &problems {
        solver.reset();
        let start = Instant::now();
        let solution = solver.solve(black_box(game)).expect("solvable position");
        assert_eq!(solution.score, *expected, "FFO #{number}");
        println!(
            "  FFO #{number}: {:+} in {:.2} s, {} nodes",
            solution.score,
            start.elapsed().as_secs_f64(),
            solution.nodes
        );
    }
    let mut group = c.benchmark_group("othello_endgame");
    group.sample_size(10);
    for (number, game, expected) in problems.iter().filter(|(n, _, _)| *n <= 41) {
        group.bench_function(format!("ffo_{number}"), |b| {
            b.iter(|| {
                solver.reset();
                let solution = solver.solve(black_box(game)).expect("solvable position");
                assert_eq!(solution.score, *expected);
                solution.nodes
            })
        });
    }
    group.finish();
}

criterion_group!(benches, solver_bench, othello_endgame_bench);
criterion_main!(benches);
