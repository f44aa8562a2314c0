//! Criterion benches: move generation and random playouts per game.
//! Each bench asserts its result so a broken game cannot post a fast figure.
#![allow(missing_docs)] // criterion's macros generate undocumented items

use std::hint::black_box;

use criterion::{criterion_group, criterion_main, Criterion, Throughput};
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use parmcts::games::perft::perft;
use parmcts::games::PlayoutPolicy;
use parmcts::{
    ConnectFour, Game, Go, Go19, Go9, Hex11, Hex19, NTupleNetwork, Othello, Outcome, Playouts, SearchGame, TicTacToe,
};

fn bench_game<G: SearchGame>(c: &mut Criterion, perft_depth: u32, perft_nodes: u64) {
    let mut group = c.benchmark_group(G::NAME);
    group.sample_size(10);
    group.throughput(Throughput::Elements(perft_nodes));
    group.bench_function(format!("perft({perft_depth})"), |b| {
        b.iter(|| {
            let nodes = perft(black_box(&G::new()), perft_depth);
            assert_eq!(nodes, perft_nodes);
            nodes
        })
    });
    const PLAYOUTS: u64 = 10_000;
    group.throughput(Throughput::Elements(PLAYOUTS));
    group.bench_function("random_playouts", |b| {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        b.iter(|| {
            let mut decided = 0;
            for _ in 0..PLAYOUTS {
                let mut game = black_box(G::new());
                if game.random_playout(&mut rng) != Outcome::Draw {
                    decided += 1;
                }
                assert!(game.outcome().is_some());
            }
            decided
        })
    });
    group.finish();
}

/// Each game's playout policies from the start (`PlayoutPolicy::play_out`, the search's
/// dispatch): uniform, biased (the game's action values), pruned (win-first /
/// block-first), pruned and biased. `cargo bench --bench games -- playout_policies`.
fn playout_policies<G: SearchGame>(c: &mut Criterion) {
    let mut group = c.benchmark_group(format!("{}_playout_policies", G::NAME));
    group.sample_size(10);
    const PLAYOUTS: u64 = 1_000;
    group.throughput(Throughput::Elements(PLAYOUTS));
    for (name, biased, prune) in
        [("random", false, false), ("biased", true, false), ("pruned", false, true), ("pruned_biased", true, true)]
    {
        let policy = PlayoutPolicy { biased, prune, ..PlayoutPolicy::default() };
        group.bench_function(name, |b| {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
            b.iter(|| {
                let mut decided = 0;
                for _ in 0..PLAYOUTS {
                    let mut game = black_box(G::new());
                    if policy.play_out(&mut game, &mut rng) != Outcome::Draw {
                        decided += 1;
                    }
                    assert!(game.outcome().is_some());
                }
                decided
            })
        });
    }
    group.finish();
}

/// Othello's two builds of the playout primitives side by side (the same games: each
/// iteration asserts both builds' outcomes agree).
fn othello_builds(c: &mut Criterion) {
    use parmcts::games::othello::PlayoutBuild;
    const PLAYOUTS: u64 = 10_000;
    let mut group = c.benchmark_group("othello_playout_builds");
    group.sample_size(10);
    group.throughput(Throughput::Elements(PLAYOUTS));
    let run = |build: PlayoutBuild| {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(2);
        let mut black_wins = 0u32;
        for _ in 0..PLAYOUTS {
            let mut game = black_box(Othello::new());
            let outcome = game.random_playout_on(build, &mut rng).expect("checked before the bench");
            black_wins += u32::from(outcome == Outcome::Win(parmcts::Player::One));
        }
        black_wins
    };
    let builds: Vec<PlayoutBuild> = [PlayoutBuild::Portable, PlayoutBuild::Avx2]
        .into_iter()
        .filter(|&b| Othello::new().random_playout_on(b, &mut Xoshiro256PlusPlus::seed_from_u64(0)).is_some())
        .collect();
    let expected = run(PlayoutBuild::Portable);
    for build in builds {
        group.bench_function(build.name(), |b| {
            b.iter(|| {
                let black_wins = run(build);
                assert_eq!(black_wins, expected, "{} plays other games", build.name());
                black_wins
            })
        });
    }
    group.finish();
}

/// Othello playouts with 1 to 4 games in flight ([`Game::playouts`], as a search worker
/// with `leaves = N` runs them), side by side. Lane `i` plays from generator `i` the games
/// lone playouts play from it, so each width's count of first-player wins is asserted
/// equal to that of lone playouts on the same generators.
fn othello_lanes(c: &mut Criterion) {
    use parmcts::games::PlayoutPolicy;
    const PLAYOUTS: u64 = 10_008; // a multiple of 1, 2, 3 and 4
    fn run<const N: usize>() -> u32 {
        let mut rngs: [Xoshiro256PlusPlus; N] = std::array::from_fn(|i| Xoshiro256PlusPlus::seed_from_u64(i as u64));
        let mut black_wins = 0u32;
        for _ in 0..PLAYOUTS / N as u64 {
            let mut games = black_box([Othello::new(); N]);
            for outcome in Othello::playouts(&mut games, &mut rngs, PlayoutPolicy::default()) {
                black_wins += u32::from(outcome == Outcome::Win(parmcts::Player::One));
            }
        }
        black_wins
    }
    fn lone(lanes: u64) -> u32 {
        let mut black_wins = 0u32;
        for lane in 0..lanes {
            let mut rng = Xoshiro256PlusPlus::seed_from_u64(lane);
            for _ in 0..PLAYOUTS / lanes {
                let outcome = Othello::new().random_playout(&mut rng);
                black_wins += u32::from(outcome == Outcome::Win(parmcts::Player::One));
            }
        }
        black_wins
    }
    let mut group = c.benchmark_group("othello_playout_lanes");
    group.sample_size(10);
    group.throughput(Throughput::Elements(PLAYOUTS));
    let widths: [(u64, fn() -> u32); 4] = [(1, run::<1>), (2, run::<2>), (3, run::<3>), (4, run::<4>)];
    for (lanes, run) in widths {
        let expected = lone(lanes);
        group.bench_function(lanes.to_string(), |b| {
            b.iter(|| {
                let black_wins = run();
                assert_eq!(black_wins, expected, "{lanes} lanes play other games than lone playouts");
                black_wins
            })
        });
    }
    group.finish();
}

/// The shipped n-tuple network's value of a midgame position (the cost of an evaluated
/// leaf, `eval=network`).
fn network_value<G: SearchGame>(c: &mut Criterion, moves: &str) {
    let network = NTupleNetwork::shipped::<G>().expect("a shipped network").expect("it loads");
    let game = G::parse_position(moves).unwrap();
    let value = network.value(&game);
    assert!((0.0..=1.0).contains(&value), "{value}");
    c.bench_function(&format!("{}/network_value", G::NAME), |b| b.iter(|| network.value(black_box(&game))));
}

/// Go 19x19's move generation: perft(2) from the empty board.
fn perft_go19(c: &mut Criterion) {
    c.bench_function("go19/perft(2)", |b| {
        b.iter(|| {
            let nodes = perft(black_box(&Go19::new()), 2);
            assert_eq!(nodes, 130_683);
            nodes
        })
    });
}

/// Go's light playouts from a cloned empty board (as the search clones its root, without
/// building a board per playout). Each finished game's outcome is asserted to be the
/// sign of its Tromp-Taylor score.
fn go_light_playouts<const N: usize>(c: &mut Criterion, playouts: u64) {
    let mut group = c.benchmark_group(format!("{}_light_playouts", Go::<N>::NAME));
    group.sample_size(10);
    group.throughput(Throughput::Elements(playouts));
    let root = Go::<N>::new();
    group.bench_function("from_empty_board", |b| {
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
        b.iter(|| {
            let mut black_wins = 0;
            for _ in 0..playouts {
                let mut game = black_box(&root).clone();
                let outcome = game.random_playout(&mut rng);
                assert_eq!(outcome == Outcome::Win(parmcts::Player::One), game.area_score() > 0.0);
                black_wins += u32::from(outcome == Outcome::Win(parmcts::Player::One));
            }
            assert!(black_wins > 0 && black_wins < playouts as u32, "both colours win some random games");
            black_wins
        })
    });
    group.finish();
}

fn games(c: &mut Criterion) {
    bench_game::<TicTacToe>(c, 9, 255_168);
    bench_game::<ConnectFour>(c, 8, 5_673_234);
    bench_game::<Othello>(c, 7, 55_092);
    // Go: perft(2) is 81 * 81 + 82 on 9x9 (after a stone 80 points and the pass; after
    // a pass all 81 and the pass) and 361 * 361 + 362 on 19x19.
    bench_game::<Go9>(c, 2, 6_643);
    go_light_playouts::<9>(c, 10_000);
    go_light_playouts::<19>(c, 1_000);
    perft_go19(c);
    // Hex: no game ends before ply 2N - 1, so perft is 121 * 120 * 119 and 361 * 360.
    bench_game::<Hex11>(c, 3, 1_727_880);
    bench_game::<Hex19>(c, 2, 129_960);
    playout_policies::<Hex11>(c);
    othello_builds(c);
    othello_lanes(c);
    playout_policies::<ConnectFour>(c);
    playout_policies::<Othello>(c);
    network_value::<ConnectFour>(c, "4453321");
    network_value::<Othello>(c, "f5d6c3d3c4f4f6");
}

criterion_group!(benches, games);
criterion_main!(benches);
