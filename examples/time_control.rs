//! Time control: how far past its budget a timed search runs, measured over many moves.
//!
//! Plays a game with MCTS at a fixed time per move (both sides), records for every move
//! the wall time of `Search::run` minus the budget, and prints the median, 99th
//! percentile and maximum overrun. Games repeat until the move count is reached.
//!
//! `cargo run --release --example time_control -- [game] [moves] [time-ms] [mode] [threads]`
//! (defaults: othello 1000 100 seq 1).

use std::time::{Duration, Instant};

use parmcts::{ConnectFour, Game, Mode, Othello, Search, SearchConfig, TicTacToe};

fn measure<G: Game>(moves: usize, budget: Duration, mode: Mode, threads: usize) -> Vec<f64> {
    let config = SearchConfig::builder().time(budget).mode(mode).threads(threads).seed(7).build().expect("config");
    let mut search = Search::new(config).expect("arena");
    let mut overruns = Vec::with_capacity(moves);
    let mut game = G::new();
    while overruns.len() < moves {
        if game.outcome().is_some() {
            game = G::new();
        }
        let start = Instant::now();
        let result = search.run(&game).expect("search");
        overruns.push((start.elapsed().as_secs_f64() - budget.as_secs_f64()) * 1e3);
        game.play_unchecked(result.best_move.expect("a move"));
    }
    overruns
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let game = args.first().map_or("othello", String::as_str);
    let moves: usize = args.get(1).map_or(1000, |s| s.parse().expect("moves"));
    let millis: u64 = args.get(2).map_or(100, |s| s.parse().expect("time-ms"));
    let mode: Mode = args.get(3).map_or(Mode::Sequential, |s| s.parse().expect("mode"));
    let threads: usize = args.get(4).map_or(1, |s| s.parse().expect("threads"));
    let budget = Duration::from_millis(millis);
    let mut overruns = match game {
        "tictactoe" => measure::<TicTacToe>(moves, budget, mode, threads),
        "connect4" => measure::<ConnectFour>(moves, budget, mode, threads),
        _ => measure::<Othello>(moves, budget, mode, threads),
    };
    overruns.sort_by(f64::total_cmp);
    let at = |q: f64| overruns[((overruns.len() - 1) as f64 * q).round() as usize];
    println!(
        "{game}, {} moves at {millis} ms ({mode}, {threads} threads): overrun median {:.3} ms, p99 {:.3} ms, max {:.3} ms",
        overruns.len(),
        at(0.5),
        at(0.99),
        overruns[overruns.len() - 1]
    );
}
