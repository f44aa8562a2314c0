//! `parmcts solve`: the exact Connect Four solver.

use std::time::{Duration, Instant};

use clap::Args;

use parmcts::report::SolveReport;
use parmcts::solver::connect4::{Solver, DEFAULT_TT_ENTRIES};
use parmcts::{ConnectFour, Game, GameKind};

use crate::common::{game_parser, out, parse_position, print_json, progress_bar, Failure};

#[derive(Args, Debug)]
#[command(after_help = "Time: positions after a dozen moves solve in milliseconds; `--moves 4453` takes about \
20 s and the empty board many minutes on one core. On a terminal the bounds found so far are shown as they \
narrow.")]
pub struct SolveArgs {
    /// connect4 (the only game with an exact solver).
    #[arg(long, value_parser = game_parser())]
    game: GameKind,
    /// The position as a move list (columns 1-7).
    #[arg(long, default_value = "")]
    moves: String,
    /// Only the sign of the score (win, draw or loss).
    #[arg(long)]
    weak: bool,
    /// Transposition table entries (8 bytes each).
    #[arg(long = "tt-entries", default_value_t = DEFAULT_TT_ENTRIES)]
    tt_entries: usize,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &SolveArgs) -> Result<(), Failure> {
    if args.game != GameKind::ConnectFour {
        return Err(Failure::flag("--game", format!("{}: the exact solver supports only connect4", args.game)));
    }
    let position = parse_position::<ConnectFour>(&args.moves)?;
    let mut solver = Solver::new(args.tt_entries).map_err(|e| Failure::flag("--tt-entries", e))?;
    let bar = progress_bar(None, "{spinner} {elapsed_precise}  {msg}", args.json);
    bar.enable_steady_tick(Duration::from_millis(200));
    let start = Instant::now();
    let result = solver.solve_with_progress(&position, args.weak, &mut |p| {
        bar.set_message(format!("score in [{}, {}], {} positions", p.min, p.max, p.nodes));
    })?;
    bar.finish_and_clear();
    let report = SolveReport {
        game: ConnectFour::NAME,
        moves: args.moves.clone(),
        score: result.score,
        best_move: result.best_move.map(|m| position.format_move(m)),
        nodes: result.nodes + result.move_nodes,
        seconds: start.elapsed().as_secs_f64(),
        weak: args.weak,
    };
    if args.json {
        return print_json(&report);
    }
    let verdict = match report.score {
        0 => "draw",
        s if s > 0 => "the side to move wins",
        _ => "the side to move loses",
    };
    out!(
        "score {} ({verdict}), best move {}  [{} nodes, {:.3} ms]",
        report.score,
        report.best_move.as_deref().unwrap_or("-"),
        report.nodes,
        report.seconds * 1e3
    );
    Ok(())
}
