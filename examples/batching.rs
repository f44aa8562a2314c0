//! What batching buys a slow evaluator: a synthetic evaluator that takes 2 ms per call,
//! for one position or a batch of up to 64 (its calls run one at a time, as on one
//! device), so its ceiling is 32,000 evaluations per second whatever the cores. A
//! tree-parallel Connect Four search of `SECONDS` per row, for each number of walks in
//! flight and evaluator threads, reports its evaluations per second, their share of the
//! ceiling, and the batches' sizes. The unbatched row asks the same evaluator one
//! position at a time on each worker.
//! `cargo run --release --example batching -- [SECONDS] [THREADS] [REPEATS]` (defaults 3, 2, 3).
use std::sync::{Arc, Mutex};
use std::time::Duration;

use parmcts::evaluator::{Batch, EvalError, Evaluator};
use parmcts::{ConnectFour, Game, Mode, NTupleNetwork, Search, SearchConfig};

/// The largest batch the synthetic evaluator takes.
const MAX_BATCH: usize = 64;
/// Its time per call.
const CALL: Duration = Duration::from_millis(2);

/// Values by the shipped Connect Four network, then waits out the rest of 2 ms while
/// holding the one "device".
struct Synthetic {
    network: Arc<NTupleNetwork>,
    device: Mutex<()>,
}

impl Synthetic {
    fn call(&self, batch: &mut Batch<ConnectFour>) -> Result<(), EvalError> {
        if batch.len() > MAX_BATCH {
            return Err(EvalError::Failed(format!("a batch of {} (at most {MAX_BATCH})", batch.len())));
        }
        let _device = self.device.lock().map_err(|_| EvalError::Failed("device poisoned".into()))?;
        let started = std::time::Instant::now();
        for i in 0..batch.len() {
            let value = Evaluator::<ConnectFour>::value(&*self.network, batch.position(i));
            batch.set_value(i, value);
        }
        std::thread::sleep(CALL.saturating_sub(started.elapsed()));
        Ok(())
    }
}

impl Evaluator<ConnectFour> for Synthetic {
    fn value(&self, game: &ConnectFour) -> f32 {
        let mut batch = Batch::new();
        batch.push(*game, false);
        self.call(&mut batch).map_or(f32::NAN, |()| batch.value(0))
    }

    fn evaluate(&self, batch: &mut Batch<ConnectFour>) -> Result<(), EvalError> {
        self.call(batch)
    }
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// One timed search: evaluations per second and the batches by size.
fn run(config: SearchConfig, evaluator: Arc<Synthetic>) -> Result<(f64, Vec<u64>), Box<dyn std::error::Error>> {
    let mut search = Search::new(config)?;
    search.set_evaluator(evaluator);
    let result = search.run(&ConnectFour::new())?;
    search.check_invariants()?;
    let evaluations: u64 = if result.batch_sizes.is_empty() {
        result.playouts
    } else {
        result.batch_sizes.iter().enumerate().map(|(i, n)| (i as u64 + 1) * n).sum()
    };
    Ok((evaluations as f64 / result.elapsed.as_secs_f64(), result.batch_sizes))
}

/// The batches' sizes in words: mean, share of full batches, and counts by band.
fn distribution(sizes: &[u64]) -> String {
    let batches: u64 = sizes.iter().sum();
    if batches == 0 {
        return "one position per call".to_string();
    }
    let leaves: u64 = sizes.iter().enumerate().map(|(i, n)| (i as u64 + 1) * n).sum();
    let band = |lo: usize, hi: usize| sizes[lo - 1..hi.min(sizes.len())].iter().sum::<u64>();
    format!(
        "mean {:.1}, full {:.0} %; 1-15: {}, 16-31: {}, 32-47: {}, 48-63: {}, 64: {}",
        leaves as f64 / batches as f64,
        100.0 * sizes[MAX_BATCH - 1] as f64 / batches as f64,
        band(1, 15),
        band(16, 31),
        band(32, 47),
        band(48, 63),
        sizes[MAX_BATCH - 1]
    )
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let seconds: f64 = args.next().map_or(Ok(3.0), |a| a.parse())?;
    let threads: usize = args.next().map_or(Ok(2), |a| a.parse())?;
    let repeats: usize = args.next().map_or(Ok(3), |a| a.parse())?;
    let network = NTupleNetwork::shipped::<ConnectFour>().ok_or("no network")??;
    let evaluator = Arc::new(Synthetic { network, device: Mutex::new(()) });
    let ceiling = MAX_BATCH as f64 / CALL.as_secs_f64();
    println!("synthetic evaluator: {CALL:?} per call of up to {MAX_BATCH}: ceiling {ceiling:.0} evaluations/s");
    println!("tree-parallel Connect Four, {threads} threads, {seconds} s per run, median of {repeats}");
    let time = Duration::from_secs_f64(seconds);
    let base = || SearchConfig::builder().time(time).mode(Mode::TreeParallel).threads(threads).seed(1);
    let mut rows: Vec<(String, SearchConfig)> = vec![("unbatched".to_string(), base().build()?)];
    for (in_flight, eval_threads) in [(64, 1), (128, 1), (128, 2), (256, 2)] {
        let config = base()
            .eval_batch(MAX_BATCH as u32)
            .eval_in_flight(in_flight)
            .eval_threads(eval_threads)
            .eval_wait_us(5_000)
            .build()?;
        rows.push((format!("batch 64, {in_flight} in flight, {eval_threads} evaluator threads"), config));
    }
    for (name, config) in rows {
        let mut rates = Vec::new();
        let mut sizes = Vec::new();
        for _ in 0..repeats {
            let (rate, batch_sizes) = run(config.clone(), evaluator.clone())?;
            rates.push(rate);
            sizes = batch_sizes;
        }
        let rate = median(rates);
        println!(
            "{name}: {rate:.0} evaluations/s ({:.1} % of the ceiling); {}",
            100.0 * rate / ceiling,
            distribution(&sizes)
        );
    }
    Ok(())
}
