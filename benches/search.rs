//! Criterion benches for the search: sequential, tree-parallel and root-parallel MCTS at
//! 1, 2, 4 and 8 threads on every game, side by side in one run (compare each figure with
//! the `seq` figure of the same game), and the atomic value-sum representations.
#![allow(missing_docs)] // criterion's macros generate undocumented items

use std::hint::black_box;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Duration;

use atomic_float::AtomicF32;
use criterion::{criterion_group, criterion_main, BenchmarkId, Criterion, Throughput};

use parmcts::harness::model::hand_off_line;
use parmcts::search::Playout;
use parmcts::{ConnectFour, Mode, Othello, Search, SearchConfig, SearchGame, TicTacToe};

fn bench_modes<G: SearchGame>(c: &mut Criterion, playouts: u64) {
    let mut group = c.benchmark_group(format!("search/{}", G::NAME));
    group.sample_size(10);
    group.throughput(Throughput::Elements(playouts));
    let mut plan = vec![(Mode::Sequential, 1)];
    for threads in [1, 2, 4, 8] {
        plan.push((Mode::TreeParallel, threads));
        plan.push((Mode::RootParallel, threads));
    }
    for (mode, threads) in plan {
        let config = SearchConfig::builder()
            .playouts(playouts)
            .playout(Playout::Random)
            .prune(false)
            .mode(mode)
            .threads(threads)
            .seed(1)
            .build()
            .unwrap();
        let mut search = Search::new(config).unwrap();
        group.bench_function(BenchmarkId::new(mode.name(), threads), |b| {
            b.iter(|| {
                let result = search.run(black_box(&G::new())).unwrap();
                assert_eq!(result.playouts, playouts);
                result.best_move
            })
        });
    }
    group.finish();
}

/// The value sum as exact fixed-point (visits and half points in one u64, one
/// `fetch_add`) against `atomic_float::AtomicF32` (a compare-exchange loop), each updated
/// by 2 threads hammering one counter.
fn bench_value_sum(c: &mut Criterion) {
    const UPDATES: u32 = 100_000;
    let mut group = c.benchmark_group("value_sum");
    group.sample_size(10);
    group.throughput(Throughput::Elements(2 * UPDATES as u64));
    group.bench_function("fixed_point_u64_fetch_add", |b| {
        b.iter(|| {
            let word = AtomicU64::new(0);
            std::thread::scope(|s| {
                for _ in 0..2 {
                    s.spawn(|| {
                        for i in 0..UPDATES {
                            word.fetch_add(1 | ((i & 2) as u64) << 32, Ordering::Relaxed);
                        }
                    });
                }
            });
            assert_eq!(word.load(Ordering::Relaxed) & 0xFFFF_FFFF, 2 * UPDATES as u64);
        })
    });
    group.bench_function("atomic_float_f32_fetch_add", |b| {
        b.iter(|| {
            let sum = AtomicF32::new(0.0);
            let visits = AtomicU64::new(0);
            std::thread::scope(|s| {
                for _ in 0..2 {
                    s.spawn(|| {
                        for i in 0..UPDATES {
                            sum.fetch_add((i & 1) as f32, Ordering::Relaxed);
                            visits.fetch_add(1, Ordering::Relaxed);
                        }
                    });
                }
            });
            assert_eq!(visits.load(Ordering::Relaxed), 2 * UPDATES as u64);
        })
    });
    group.finish();
}

/// What one cache-line transfer between two cores costs: two threads hand one atomic
/// counter back and forth (each waits for the other's increment), so every handoff moves
/// the line once. Tree-parallel search pays this on every shared counter it touches.
fn bench_line_handoff(c: &mut Criterion) {
    const HANDOFFS: u64 = 200_000;
    let mut group = c.benchmark_group("cache_line");
    group.sample_size(10);
    group.throughput(Throughput::Elements(HANDOFFS));
    group.bench_function("handoff_between_two_threads", |b| {
        b.iter(|| assert_eq!(hand_off_line(HANDOFFS, Duration::MAX), HANDOFFS))
    });
    group.finish();
}

fn search(c: &mut Criterion) {
    bench_line_handoff(c);
    bench_value_sum(c);
    bench_modes::<TicTacToe>(c, 100_000);
    bench_modes::<ConnectFour>(c, 200_000);
    bench_modes::<Othello>(c, 20_000);
}

criterion_group!(benches, search);
criterion_main!(benches);
