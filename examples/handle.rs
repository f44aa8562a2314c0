//! A search on its own thread: start it, watch it ten times a second as a GUI would, and
//! stop it when the user has seen enough. `cargo run --release --example handle -- [MS]`
//! (how long to let it run: 1000 ms by default).
use std::time::Duration;

use parmcts::{Game, Mode, Othello, Search, SearchConfig};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let ms: u64 = std::env::args().nth(1).map_or(Ok(1000), |a| a.parse())?;
    // No budget: only the handle stops this search.
    let config = SearchConfig::builder().until_stopped(true).mode(Mode::TreeParallel).threads(2).build()?;
    let position = Othello::new();
    let handle = Search::new(config)?.start(position)?;
    for _ in 0..ms / 100 {
        std::thread::sleep(Duration::from_millis(100));
        let snapshot = handle.snapshot();
        let Some(best) = snapshot.best() else { continue };
        let line: Vec<String> = best.pv.iter().map(|&mv| position.format_move(mv)).collect();
        println!(
            "{:>6.1} s  {:>9} playouts ({:>9.0}/s)  value {:.3}  best {} ({} visits, prior {:.2}): {}",
            snapshot.elapsed.as_secs_f64(),
            snapshot.playouts,
            snapshot.rate(),
            snapshot.root_value().unwrap_or(0.5),
            position.format_move(best.mv),
            best.visits,
            best.prior,
            line.join(" ")
        );
    }
    // Every worker stops at its next chunk; the result is the search's, as `run` gives it.
    let finished = handle.stop();
    let result = finished.result?;
    let best = result.best_move.expect("the start position has moves");
    println!("stopped after {} playouts: {}", result.playouts, position.format_move(best));
    Ok(())
}
