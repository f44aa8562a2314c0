//! One search and how to read its result: `cargo run --release --example search`.
use parmcts::{ConnectFour, Game, Mode, Search, SearchConfig};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let config =
        SearchConfig::builder().playouts(200_000).mode(Mode::TreeParallel).threads(2).memory_mb(64).seed(1).build()?; // validated once: 0 threads, no budget, … are errors
    let mut search = Search::new(config)?; // the arena is allocated here, once
    let position = ConnectFour::parse_position("4453")?;
    let result = search.run(&position)?;
    let best = result.best_move.expect("the position has legal moves");
    println!(
        "best {} after {} playouts ({:.0}/s)",
        position.format_move(best),
        result.playouts,
        result.playouts_per_sec()
    );
    for child in &result.children {
        // value: the mean result for the side to move, in [0, 1] (a draw is 0.5).
        println!("  {} {:>7} visits  value {:.3}", position.format_move(child.mv), child.visits, child.value);
    }
    println!("expected line: {}", parmcts::search::format_moves(&position, &result.pv).join(" "));
    Ok(())
}
