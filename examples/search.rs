//! One search and how to read its result: `cargo run --release --example search`.
use parmcts::{ConnectFour, Game, Mode, Search, SearchConfig};

fn main() -> Result<(), Box<dyn std::error::Error>> {
    // Validated once: no budget, 0 threads, a setting out of range… are errors here.
    let config = SearchConfig::builder().playouts(200_000).mode(Mode::TreeParallel).threads(2).seed(1).build()?;
    let mut search = Search::new(config)?; // the arena is allocated here, once; reuse it move after move
    let position = ConnectFour::parse_position("4453")?;
    let result = search.run(&position)?;
    let best = result.best_move.expect("the position has legal moves");
    let rate = result.playouts_per_sec();
    println!("best {} after {} playouts, {rate:.0}/s", position.format_move(best), result.playouts);
    for child in &result.children {
        // Each root move: its visits and its mean result for the side to move (a draw is 0.5).
        println!("  {} {:>7} visits  value {:.3}", position.format_move(child.mv), child.visits, child.value);
    }
    println!("expected line: {}", parmcts::search::format_moves(&position, &result.pv).join(" "));
    Ok(())
}
