//! `parmcts train-network`: learn an n-tuple network by TD(0) self-play, checking its
//! strength as it goes.

use std::ops::ControlFlow;
use std::time::Instant;

use clap::Args;
use serde::Serialize;

use parmcts::alphabeta::Evaluate;
use parmcts::evaluator::train::{duel, train_td, DuelScore, Opponent, TdConfig};
use parmcts::solver::Endgame;
use parmcts::{with_game, GameKind, NTupleBoard, NTupleNetwork};

use crate::common::{at_least_one, game_parser, out, print_json, progress_bar, Failure};
use crate::interrupt;

#[derive(Args, Debug)]
pub struct TrainNetworkArgs {
    /// The game (one with a board for n-tuples: othello, connect4, tictactoe).
    #[arg(long, value_parser = game_parser())]
    game: GameKind,
    /// Self-play games.
    #[arg(long, default_value_t = 100_000)]
    games: u64,
    /// Learning rate (the step of the value's logit) at the start.
    #[arg(long, default_value_t = 0.5)]
    alpha: f32,
    /// Learning rate at the end (linear in between; default: --alpha throughout).
    #[arg(long = "alpha-end")]
    alpha_end: Option<f32>,
    /// Probability of a random move in self-play.
    #[arg(long, default_value_t = 0.1)]
    epsilon: f32,
    /// Seed of the random moves.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Label each game's positions backwards from its end with the game's exact solver,
    /// this many nodes each: a position it settles takes its exact value as the target
    /// (0: plain TD; Connect Four and Othello's last empties have solvers).
    #[arg(long = "solver-nodes", default_value_t = 0)]
    solver_nodes: u64,
    /// Threads playing the strength checks (training itself is sequential).
    #[arg(long, default_value_t = 1)]
    threads: usize,
    /// Game stages of a new network (by the number of occupied cells).
    #[arg(long, default_value_t = 1)]
    stages: usize,
    /// Strength checks: how many, evenly spaced (0: only at the end).
    #[arg(long, default_value_t = 10)]
    checks: u64,
    /// Pairs of games per strength check (each opening played with both colours).
    #[arg(long = "check-pairs", default_value_t = 50)]
    check_pairs: u32,
    /// Random plies opening each strength-check game.
    #[arg(long = "check-plies", default_value_t = 4)]
    check_plies: u32,
    /// Where to write the network.
    #[arg(long, default_value = "network.pmnt")]
    out: String,
    /// Start from this network file (same game) instead of zero weights.
    #[arg(long)]
    init: Option<String>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// One strength check.
#[derive(Debug, Serialize)]
struct Checkpoint {
    games: u64,
    seconds: f64,
    /// Mean |TD error| over the games since the previous check.
    mean_td_error: f64,
    vs_random: DuelScore,
    vs_heuristic: DuelScore,
}

/// The `train-network` report.
#[derive(Debug, Serialize)]
struct TrainNetworkReport {
    game: &'static str,
    out: String,
    source: String,
    weights: usize,
    games: u64,
    positions: u64,
    /// Positions whose target was the solver's exact value.
    solved: u64,
    seconds: f64,
    checkpoints: Vec<Checkpoint>,
    /// Whether Ctrl-C stopped the training: the network written has learned `games`.
    interrupted: bool,
}

pub fn run(args: &TrainNetworkArgs) -> Result<(), Failure> {
    with_game!(args.game, G => run_game::<G>(args))
}

fn run_game<G: NTupleBoard + Evaluate + Endgame>(args: &TrainNetworkArgs) -> Result<(), Failure> {
    at_least_one("--games", args.games)?;
    at_least_one("--threads", args.threads as u64)?;
    let config = TdConfig {
        games: args.games,
        alpha: args.alpha,
        alpha_end: args.alpha_end.unwrap_or(args.alpha),
        epsilon: args.epsilon,
        seed: args.seed,
        solver_nodes: args.solver_nodes,
    };
    config.validate().map_err(Failure::input)?;
    let mut network = initial_network::<G>(args)?;
    let pool =
        parmcts::harness::pool::worker_pool(args.threads).map_err(|e| Failure::runtime(format!("--threads: {e}")))?;
    let check = |network: &NTupleNetwork, seed: u64| {
        pool.install(|| {
            (
                duel::<G>(network, Opponent::Random, args.check_pairs, args.check_plies, seed),
                duel::<G>(network, Opponent::Heuristic, args.check_pairs, args.check_plies, seed),
            )
        })
    };
    let every = if args.checks == 0 { args.games } else { args.games.div_ceil(args.checks) };
    let bar =
        progress_bar(Some(args.games), "{bar:40} {pos}/{len} games  [{elapsed_precise} < {eta_precise}]", args.json);
    let start = Instant::now();
    let interrupt = interrupt::catch()?;
    let mut checkpoints = Vec::new();
    let (mut last_positions, mut last_error) = (0u64, 0f64);
    let progress = train_td::<G>(&mut network, &config, |progress, network| {
        bar.inc(1);
        // Stopped between two games: the network is saved as it is, without a check.
        if interrupt.requested() {
            return ControlFlow::Break(());
        }
        if progress.games % every != 0 && progress.games != args.games {
            return ControlFlow::Continue(());
        }
        let positions = (progress.positions - last_positions).max(1);
        let mean_td_error = (progress.abs_error_sum - last_error) / positions as f64;
        (last_positions, last_error) = (progress.positions, progress.abs_error_sum);
        let (vs_random, vs_heuristic) = check(network, args.seed ^ progress.games);
        let checkpoint = Checkpoint {
            games: progress.games,
            seconds: start.elapsed().as_secs_f64(),
            mean_td_error,
            vs_random,
            vs_heuristic,
        };
        if !args.json {
            bar.suspend(|| print_checkpoint(&checkpoint));
        }
        checkpoints.push(checkpoint);
        ControlFlow::Continue(())
    })
    .map_err(Failure::input)?;
    bar.finish_and_clear();
    let source = source_line::<G>(args, &network, progress.games);
    network.set_source(source.clone());
    network.save(&args.out).map_err(|e| Failure::runtime(format!("--out: {e}")))?;
    let report = TrainNetworkReport {
        game: G::NAME,
        out: args.out.clone(),
        source,
        weights: network.weights().len(),
        games: progress.games,
        positions: progress.positions,
        solved: progress.solved,
        seconds: start.elapsed().as_secs_f64(),
        checkpoints,
        interrupted: progress.games < args.games,
    };
    if args.json {
        return print_json(&report);
    }
    print_text(&report, args.games);
    Ok(())
}

/// The report's last lines (the checkpoints were printed as they came); `asked` games.
fn print_text(report: &TrainNetworkReport, asked: u64) {
    out!(
        "{} games ({} positions, {} of them solved) in {:.1} s; {} weights written to {}",
        report.games,
        report.positions,
        report.solved,
        report.seconds,
        report.weights,
        report.out
    );
    if report.interrupted {
        out!("interrupted after {} of {asked} games", report.games);
    }
}

/// The network training starts from: `--init`'s file, else a fresh one of the game's
/// default tuples and `--stages` stages.
fn initial_network<G: NTupleBoard>(args: &TrainNetworkArgs) -> Result<NTupleNetwork, Failure> {
    Ok(match &args.init {
        Some(path) => NTupleNetwork::load_for::<G>(path).map_err(|e| Failure::flag("--init", e))?,
        None => {
            NTupleNetwork::with_stages::<G>(G::default_tuples(), args.stages).map_err(|e| Failure::flag("--game", e))?
        }
    })
}

/// The command line that made the network, for its `source`, and the `games` it
/// played when Ctrl-C stopped it first.
fn source_line<G: NTupleBoard>(args: &TrainNetworkArgs, network: &NTupleNetwork, games: u64) -> String {
    let mut source = format!(
        "parmcts train-network --game {} --games {} --alpha {} --epsilon {} --seed {} --stages {}",
        G::NAME,
        args.games,
        args.alpha,
        args.epsilon,
        args.seed,
        network.stages()
    );
    if let Some(end) = args.alpha_end {
        source.push_str(&format!(" --alpha-end {end}"));
    }
    if args.solver_nodes > 0 {
        source.push_str(&format!(" --solver-nodes {}", args.solver_nodes));
    }
    if let Some(init) = &args.init {
        source.push_str(&format!(" --init {init} (itself: {})", network.source()));
    }
    if games < args.games {
        source.push_str(&format!(" (interrupted after {games} games)"));
    }
    source
}

fn print_checkpoint(c: &Checkpoint) {
    let line = |s: &DuelScore| format!("{:5.1} % (+{} ={} -{})", 100.0 * s.score(), s.wins, s.draws, s.losses);
    out!(
        "{:>9} games {:>7.1} s  |TD error| {:.4}  greedy vs random {}  vs 1-ply heuristic {}",
        c.games,
        c.seconds,
        c.mean_td_error,
        line(&c.vs_random),
        line(&c.vs_heuristic)
    );
}
