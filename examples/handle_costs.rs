//! What a search handle costs: how long `SearchHandle::stop` takes to return the result
//! (median and 99th percentile over repeated stops, at 1, 2, 16 and 64 threads: beyond the
//! cores, oversubscribed), and what snapshots ten times a second cost in playouts per
//! second against the same timed search without them (rounds alternating, medians).
//! `cargo run --release --example handle_costs -- [STOPS] [ROUNDS]` (defaults 200 and 5).
use std::time::{Duration, Instant};

use parmcts::{ConnectFour, Game, Mode, Search, SearchConfig};

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn percentile(mut v: Vec<f64>, p: f64) -> f64 {
    v.sort_by(f64::total_cmp);
    v[((v.len() - 1) as f64 * p).round() as usize]
}

fn mode(threads: usize) -> Mode {
    if threads == 1 {
        Mode::Sequential
    } else {
        Mode::TreeParallel
    }
}

/// `stops` searches of Connect Four's start, each stopped after `run` of searching.
fn stop_latencies(threads: usize, stops: usize, run: Duration) -> Result<Vec<f64>, Box<dyn std::error::Error>> {
    let config = SearchConfig::builder().until_stopped(true).mode(mode(threads)).threads(threads).build()?;
    let mut search = Search::new(config)?;
    let mut latencies = Vec::with_capacity(stops);
    for _ in 0..stops {
        let handle = search.start(ConnectFour::new())?;
        std::thread::sleep(run);
        let asked = Instant::now();
        let finished = handle.stop();
        latencies.push(asked.elapsed().as_secs_f64() * 1e3);
        finished.result?;
        search = finished.search;
    }
    Ok(latencies)
}

/// Playouts per second of a `time`-long search, with a snapshot every 100 ms or none.
fn rate(threads: usize, time: Duration, snapshots: bool) -> Result<f64, Box<dyn std::error::Error>> {
    let config = SearchConfig::builder().time(time).mode(mode(threads)).threads(threads).build()?;
    let handle = Search::new(config)?.start(ConnectFour::new())?;
    while snapshots && !handle.is_finished() {
        std::thread::sleep(Duration::from_millis(100));
        std::hint::black_box(handle.snapshot());
    }
    Ok(handle.wait().result?.playouts_per_sec())
}

fn main() -> Result<(), Box<dyn std::error::Error>> {
    let mut args = std::env::args().skip(1);
    let stops: usize = args.next().map_or(Ok(200), |a| a.parse())?;
    let rounds: usize = args.next().map_or(Ok(5), |a| a.parse())?;
    println!("stop() latency, Connect Four, {stops} stops after 20 ms of search each:");
    for threads in [1, 2, 16, 64] {
        let ms = stop_latencies(threads, stops, Duration::from_millis(20))?;
        let (max, p99, p50) = (percentile(ms.clone(), 1.0), percentile(ms.clone(), 0.99), median(ms));
        println!("  {threads:>2} threads: median {p50:.3} ms, p99 {p99:.3} ms, max {max:.3} ms");
    }
    println!("snapshots every 100 ms against none, 1 s searches, {rounds} alternating rounds:");
    for threads in [1, 2] {
        let mut ratios = Vec::new();
        for _ in 0..rounds {
            let without = rate(threads, Duration::from_secs(1), false)?;
            let with = rate(threads, Duration::from_secs(1), true)?;
            ratios.push(with / without);
        }
        let text: Vec<String> = ratios.iter().map(|r| format!("{r:.3}")).collect();
        println!("  {threads} threads: with/without {:.3} (rounds {})", median(ratios.clone()), text.join(" "));
    }
    Ok(())
}
