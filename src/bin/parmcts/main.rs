//! `parmcts`: the command-line front end, one file per subcommand. It parses arguments
//! (clap), calls the library and prints: text for people, or with `--json` exactly one
//! JSON object on stdout, serialised from the library's report types
//! (`parmcts::harness::report`).
//!
//! Every error is one line on stderr starting with `error:` that names the bad value.
//! Exit codes: 0 success, 2 bad input (arguments, specs, positions, settings), 1 a
//! failure at run time (I/O, a violated invariant), 130 a long command stopped by Ctrl-C
//! after printing what it finished (`interrupt.rs`).

mod analysis;
mod bench;
mod common;
#[cfg(test)]
mod doc_commands;
mod flags;
mod gtp;
mod interrupt;
mod ladder;
mod matches;
mod model;
mod perft;
mod play;
mod plots;
mod quality;
mod review;
mod scale;
mod search;
mod simulate;
mod solve;
mod train;
mod train_network;

use std::process::ExitCode;

use clap::error::{ContextKind, ContextValue, ErrorKind};
use clap::{Parser, Subcommand};

#[global_allocator]
static GLOBAL: mimalloc::MiMalloc = mimalloc::MiMalloc;

/// Lock-free parallel Monte Carlo Tree Search with bitboard games.
#[derive(Parser, Debug)]
#[command(name = "parmcts", version, about)]
struct Cli {
    #[command(subcommand)]
    command: Command,
}

#[derive(Subcommand, Debug)]
enum Command {
    /// Count move sequences to a depth (rules check against published tables).
    Perft(perft::PerftArgs),
    /// Search one position and print the best move and the root statistics.
    Search(Box<search::SearchArgs>),
    /// Play one game between two players, printing the board as it goes.
    Play(play::PlayArgs),
    /// A JSON-lines analysis engine on stdin and stdout (KataGo's protocol, every game).
    Analysis(Box<analysis::AnalysisArgs>),
    /// Talk GTP on stdin and stdout: an engine for GUIs (GoGui, Sabaki) and referees.
    Gtp(Box<gtp::GtpArgs>),
    /// Solve a Connect Four position (Pons's score convention) or an Othello endgame exactly.
    Solve(solve::SolveArgs),
    /// Play a match between two players: score and Elo with 95 % intervals.
    Match(Box<matches::MatchArgs>),
    /// What more search is worth: each doubling of the playouts against the rung below.
    Ladder(Box<ladder::LadderArgs>),
    /// The main job: playout throughput, pure and MCTS, per game and mode.
    Bench(Box<bench::BenchArgs>),
    /// What more cores are worth: throughput, search overhead and strength speedup.
    Scale(Box<scale::ScaleArgs>),
    /// Predict a distributed TDS search over many ranks: messages, imbalance, efficiency.
    SimulateRanks(Box<simulate::SimulateArgs>),
    /// The contention model: predicted against measured tree-parallel throughput.
    Model(Box<model::ModelArgs>),
    /// Move quality: how often a player's move keeps a Connect Four position's exact class.
    Quality(Box<quality::QualityArgs>),
    /// Where a match's Connect Four games were decided: each move judged by the exact solver.
    Review(Box<review::ReviewArgs>),
    /// Fit move-feature gammas (Bradley-Terry, Coulom's MM) to a teacher's choices.
    TrainWeights(train::TrainArgs),
    /// Learn an n-tuple network position evaluator by TD(0) self-play.
    TrainNetwork(Box<train_network::TrainNetworkArgs>),
}

fn main() -> ExitCode {
    let cli = match Cli::try_parse() {
        Ok(cli) => cli,
        Err(e) => return clap_failure(&e),
    };
    let outcome = match cli.command {
        Command::Perft(args) => perft::run(&args),
        Command::Search(args) => search::run(&args),
        Command::Play(args) => play::run(&args),
        Command::Solve(args) => solve::run(&args),
        Command::Gtp(args) => gtp::run(&args),
        Command::Analysis(args) => analysis::run(&args),
        Command::Match(args) => matches::run(&args),
        Command::Ladder(args) => ladder::run(&args),
        Command::Bench(args) => bench::run(&args),
        Command::Scale(args) => scale::run(&args),
        Command::SimulateRanks(args) => simulate::run(&args),
        Command::Model(args) => model::run(&args),
        Command::Quality(args) => quality::run(&args),
        Command::Review(args) => review::run(&args),
        Command::TrainWeights(args) => train::run(&args),
        Command::TrainNetwork(args) => train_network::run(&args),
    };
    match outcome {
        Ok(()) if interrupt::requested() => ExitCode::from(interrupt::EXIT_CODE),
        Ok(()) => ExitCode::SUCCESS,
        Err(failure) => {
            eprintln!("error: {}", failure.message);
            ExitCode::from(failure.code)
        }
    }
}

/// Help and version print as clap writes them; any other clap error becomes its first
/// line (clap adds usage and tips below it) and exit code 2.
fn clap_failure(e: &clap::Error) -> ExitCode {
    match e.kind() {
        ErrorKind::DisplayHelp | ErrorKind::DisplayVersion | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand => {
            let _ = e.print();
            if e.use_stderr() {
                ExitCode::from(2)
            } else {
                ExitCode::SUCCESS
            }
        }
        _ => {
            let text = e.render().to_string();
            let first = text.lines().map(str::trim).find(|l| !l.is_empty()).unwrap_or("bad arguments");
            let first = first.strip_prefix("error:").map_or(first, str::trim_start);
            // clap lists the accepted values on a later line: keep them on this one.
            let valid: Vec<String> = match e.get(ContextKind::ValidValue) {
                Some(ContextValue::Strings(values)) => values.clone(),
                _ => Vec::new(),
            };
            if valid.is_empty() {
                eprintln!("error: {first}");
            } else {
                eprintln!("error: {first} (expected one of: {})", valid.join(", "));
            }
            ExitCode::from(2)
        }
    }
}
