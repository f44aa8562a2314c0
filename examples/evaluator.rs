//! An evaluator of one's own: a batched evaluator for Connect Four (standing in for a
//! neural network: it values a position by how central the side to move's discs are and
//! rates each move by its column's centrality), plugged into a search that gathers the
//! leaves of all its walks in flight into batches.
//! `cargo run --release --example evaluator -- [PLAYOUTS]` (default 20,000).
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::Arc;

use parmcts::evaluator::{Batch, EvalError, Evaluator};
use parmcts::search::Select;
use parmcts::{ConnectFour, Game, Mode, Move, Search, SearchConfig};

/// The batches and positions it was asked.
#[derive(Default)]
struct CentreEvaluator {
    batches: AtomicU64,
    positions: AtomicU64,
}

/// A column's weight: 4 in the middle, 1 at the edges.
fn centrality(column: u16) -> f32 {
    4.0 - (i32::from(column) - 3).abs() as f32
}

impl Evaluator<ConnectFour> for CentreEvaluator {
    /// One position: a batch of one (a network would run the same code).
    fn value(&self, game: &ConnectFour) -> f32 {
        let mut batch = Batch::new();
        batch.push(*game, false);
        match self.evaluate(&mut batch) {
            Ok(()) => batch.value(0),
            Err(_) => f32::NAN, // the search rejects NaN with a clear error
        }
    }

    fn evaluate(&self, batch: &mut Batch<ConnectFour>) -> Result<(), EvalError> {
        self.batches.fetch_add(1, Ordering::Relaxed);
        self.positions.fetch_add(batch.len() as u64, Ordering::Relaxed);
        for i in 0..batch.len() {
            let game = batch.position(i);
            let me = game.side_to_move();
            let mut score = 0.0;
            for column in 0..7u16 {
                for row in 0..6 {
                    match game.cell(u32::from(column), row) {
                        Some(owner) if owner == me => score += centrality(column),
                        Some(_) => score -= centrality(column),
                        None => {}
                    }
                }
            }
            // A logistic squash of the centrality balance: a value in (0, 1).
            batch.set_value(i, 1.0 / (1.0 + (-score / 8.0).exp()));
            if batch.wants_priors(i) {
                let (_, moves, priors) = batch.entry_mut(i);
                for (prior, &Move(column)) in priors.iter_mut().zip(moves) {
                    *prior = centrality(column);
                }
            }
        }
        Ok(())
    }
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let playouts = std::env::args().nth(1).map_or(Ok(20_000), |a| a.parse())?;
    let evaluator = Arc::new(CentreEvaluator::default());
    let config = SearchConfig::builder()
        .playouts(playouts)
        .mode(Mode::TreeParallel)
        .threads(2)
        .select(Select::Puct)
        .eval_priors(true)
        .eval_batch(32)
        .eval_in_flight(64)
        .build()?;
    let mut search = Search::new(config)?;
    search.set_evaluator(evaluator.clone());
    // The first player has three stones in column 1 and wins by playing it again.
    let position = ConnectFour::parse_position("121213")?;
    let result = search.run(&position)?;
    let best = result.best_move.map(|m| position.format_move(m)).unwrap_or_default();
    let (batches, positions) = (evaluator.batches.load(Ordering::Relaxed), evaluator.positions.load(Ordering::Relaxed));
    println!(
        "best move {best} after {} playouts; {positions} positions in {batches} batches (mean {:.1})",
        result.playouts,
        positions as f64 / batches.max(1) as f64
    );
    assert_eq!(best, "1", "the search finds the win");
    search.check_invariants()?;
    Ok(())
}
