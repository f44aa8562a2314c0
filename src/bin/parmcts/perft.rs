//! `parmcts perft`: count move sequences to a depth.

use std::time::Instant;

use clap::Args;

use parmcts::games::perft::perft;
use parmcts::harness::report::PerftReport;
use parmcts::{with_game, Game, GameKind};

use crate::common::{game_parser, out, parse_position, print_json, BoardFlags, Failure};

#[derive(Args, Debug)]
pub struct PerftArgs {
    /// The game.
    #[arg(long, value_parser = game_parser())]
    game: GameKind,
    /// Plies to count.
    #[arg(long)]
    depth: u32,
    /// Start from this position: moves (`4453`, `f5d6`), or an Othello board of 64
    /// characters X/O/- (a1, b1, …, h8) followed by the side to move (X or O).
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    moves: String,
    #[command(flatten)]
    board: BoardFlags,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &PerftArgs) -> Result<(), Failure> {
    let (game, moves) = args.board.resolve(args.game, &args.moves)?;
    with_game!(game, G => run_game::<G>(args, &moves))
}

fn run_game<G: Game>(args: &PerftArgs, moves: &str) -> Result<(), Failure> {
    let root = parse_position::<G>(moves)?;
    let start = Instant::now();
    let nodes = perft(&root, args.depth);
    let seconds = start.elapsed().as_secs_f64();
    let report = PerftReport {
        game: G::NAME,
        depth: args.depth,
        nodes,
        seconds,
        nodes_per_sec: nodes as f64 / seconds.max(1e-9),
    };
    if args.json {
        return print_json(&report);
    }
    out!("perft({}) = {nodes}  [{seconds:.3} s, {:.1} M nodes/s]", args.depth, report.nodes_per_sec / 1e6);
    Ok(())
}
