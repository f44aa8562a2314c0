//! `parmcts play`: one game between two players.

use clap::Args;

use parmcts::alphabeta::Evaluate;
use parmcts::harness::report::PlayReport;
use parmcts::SearchGame;
use parmcts::{with_game, GameKind, Outcome, Player};
use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::common::{game_parser, out, parse_position, parse_spec, print_json, BoardFlags, Failure};

/// The grammar of a player spec, for `--help`.
pub const SPEC_HELP: &str = "Player specs: `random`; `mcts[:key=value,...]` with the search settings' keys \
(`mcts:playouts=10000,c=1.4`, `mcts:time-ms=500,mode=tree,threads=4`; no budget: 10000 playouts); \
`minimax:depth=D`; `alphabeta:depth=D`, `alphabeta:time-ms=T` (both allowed; `tt-mb=M` sizes the table); \
`expectimax:depth=D`, `expectimax:time-ms=T` (both allowed; searches die rolls, for einstein).";

#[derive(Args, Debug)]
#[command(after_help = SPEC_HELP)]
pub struct PlayArgs {
    /// The game.
    #[arg(long, value_parser = game_parser())]
    game: GameKind,
    /// Start from this position (moves, or an Othello board and the side to move).
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    moves: String,
    #[command(flatten)]
    board: BoardFlags,
    /// First player spec.
    #[arg(long, default_value = "mcts:playouts=10000")]
    p1: String,
    /// Second player spec.
    #[arg(long, default_value = "mcts:playouts=10000")]
    p2: String,
    /// Seed for both players.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &PlayArgs) -> Result<(), Failure> {
    let (game, moves) = args.board.resolve(args.game, &args.moves)?;
    with_game!(game, G => run_game::<G>(args, &moves))
}

fn run_game<G: Evaluate + SearchGame>(args: &PlayArgs, moves: &str) -> Result<(), Failure> {
    let mut game = parse_position::<G>(moves)?;
    let specs = [parse_spec("--p1", &args.p1)?, parse_spec("--p2", &args.p2)?];
    let mut players = [
        specs[0].build_with_evaluation::<G>(args.seed)?,
        specs[1].build_with_evaluation::<G>(args.seed.wrapping_add(1))?,
    ];
    let mut played = Vec::new();
    if !args.json {
        out!("{}", game.render());
    }
    // The referee's dice (games with chance turns), from the seed.
    let mut dice = Xoshiro256PlusPlus::seed_from_u64(args.seed ^ 0xD1CE);
    while game.outcome().is_none() {
        if let Some(mv) = parmcts::games::roll(&game, &mut dice) {
            let text = game.format_move(mv);
            game.play_unchecked(mv);
            if !args.json {
                out!("the die shows {text}\n{}", game.render());
            }
            played.push(text);
            continue;
        }
        let side = game.side_to_move();
        let mv = players[side.index()].choose(&game)?;
        let text = game.format_move(mv);
        game.try_play(mv).map_err(|e| Failure::runtime(format!("player {} chose {text}: {e}", side.index() + 1)))?;
        if !args.json {
            out!("p{} plays {text}\n{}", side.index() + 1, game.render());
        }
        played.push(text);
    }
    let result = match game.outcome() {
        Some(Outcome::Win(Player::One)) => "p1",
        Some(Outcome::Win(Player::Two)) => "p2",
        _ => "draw",
    };
    let report = PlayReport { game: G::NAME, result, moves: played };
    if args.json {
        return print_json(&report);
    }
    out!("result: {result}  moves: {}", report.moves.join(" "));
    Ok(())
}
