//! Tree-parallel against sequential, measured from code: the same playout budget from the
//! same position in each mode, every rate given as a ratio to the sequential search of
//! the same run (the machine's speed varies; the ratio is what carries over).
//! `cargo run --release --example parallel -- 1000000` (playouts; default 300,000).
use parmcts::{ConnectFour, Game, Mode, Search, SearchConfig};

fn rate(mode: Mode, threads: usize, playouts: u64) -> Result<f64, Box<dyn std::error::Error>> {
    let config = SearchConfig::builder().playouts(playouts).mode(mode).threads(threads).seed(1).build()?;
    let mut search = Search::new(config)?;
    let result = search.run(&ConnectFour::new())?;
    assert_eq!(result.playouts, playouts);
    Ok(result.playouts_per_sec())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let playouts: u64 = std::env::args().nth(1).map_or(Ok(300_000), |a| a.parse())?;
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    println!("Connect Four, {playouts} playouts, {cores} cores");
    let seq = rate(Mode::Sequential, 1, playouts)?;
    println!("seq  x1: {seq:>10.0} playouts/s = 1.00");
    for (mode, threads) in [(Mode::TreeParallel, 1), (Mode::TreeParallel, 2), (Mode::RootParallel, 2)] {
        let r = rate(mode, threads, playouts)?;
        println!("{mode} x{threads}: {r:>10.0} playouts/s = {:.2}", r / seq);
    }
    Ok(())
}
