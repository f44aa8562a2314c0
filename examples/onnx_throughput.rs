//! Positions per second of an ONNX evaluator (`OnnxEvaluator`, feature `onnx`) on
//! Connect Four, in batches of 1 and of 64: each round evaluates the same positions from
//! random play (values and priors) through `Evaluator::evaluate`, and the figure is the
//! median over the rounds.
//! `cargo run --release --features onnx --example onnx_throughput -- [MODEL] [POSITIONS] [ROUNDS]`
//! (defaults: `tests/data/onnx/connect4_tiny.onnx`, 2048 positions, 7 rounds).
use std::path::PathBuf;
use std::time::Instant;

use parmcts::evaluator::onnx::OnnxEvaluator;
use parmcts::evaluator::{Batch, Evaluator};
use parmcts::{ConnectFour, Game};
use rand_core::{RngCore, SeedableRng};
use rand_xoshiro::Xoshiro256PlusPlus;

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// `count` positions, not over, from random play of 0 to 29 plies (seeded).
fn positions(count: usize) -> Vec<ConnectFour> {
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(1);
    let mut out = Vec::with_capacity(count);
    while out.len() < count {
        let mut game = ConnectFour::new();
        for _ in 0..rng.next_u32() % 30 {
            let moves = game.legal_moves();
            let moves = moves.as_ref();
            if moves.is_empty() {
                break;
            }
            game.play_unchecked(moves[rng.next_u32() as usize % moves.len()]);
        }
        if game.outcome().is_none() {
            out.push(game);
        }
    }
    out
}

/// Positions per second evaluating `games` in batches of `size`, each a batch that
/// asks for priors.
fn rate(
    evaluator: &OnnxEvaluator<ConnectFour>,
    games: &[ConnectFour],
    size: usize,
) -> Result<f64, Box<dyn std::error::Error>> {
    let mut batches: Vec<Batch<ConnectFour>> = games
        .chunks(size)
        .map(|chunk| {
            let mut batch = Batch::new();
            chunk.iter().for_each(|g| _ = batch.push(*g, true));
            batch
        })
        .collect();
    let start = Instant::now();
    for batch in &mut batches {
        evaluator.evaluate(batch)?;
    }
    let seconds = start.elapsed().as_secs_f64();
    for batch in &batches {
        batch.check()?;
    }
    Ok(games.len() as f64 / seconds)
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let default_model = PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("tests/data/onnx/connect4_tiny.onnx");
    let model = args.next().map_or(default_model, PathBuf::from);
    let count: usize = args.next().map_or(Ok(2048), |a| a.parse())?;
    let rounds: usize = args.next().map_or(Ok(7), |a| a.parse())?;
    let evaluator = OnnxEvaluator::<ConnectFour>::load(&model)?;
    let games = positions(count);
    println!("{}: {count} Connect Four positions, median of {rounds} rounds", model.display());
    let mut figures = Vec::new();
    for size in [1, 64] {
        rate(&evaluator, &games, size)?; // warm-up
        let rates = (0..rounds).map(|_| rate(&evaluator, &games, size)).collect::<Result<Vec<_>, _>>()?;
        figures.push(format!("batch {size}: {:.0} pos/s", median(rates)));
    }
    println!("{}", figures.join(", "));
    Ok(())
}
