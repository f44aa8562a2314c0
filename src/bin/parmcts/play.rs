//! `parmcts play`: one game between two players.

use std::io::BufReader;

use clap::Args;

use parmcts::alphabeta::Evaluate;
use parmcts::harness::players::{Console, PlayerSpec, Seat};
use parmcts::harness::referee::{Ending, Referee, Step};
use parmcts::harness::report::PlayReport;
use parmcts::SearchGame;
use parmcts::{with_game, GameKind, Outcome};

use crate::common::{game_parser, out, parse_position, parse_spec, print_json, BoardFlags, Failure};

/// The grammar of a player spec, for `--help`.
pub const SPEC_HELP: &str = "Player specs: `random`; `mcts[:key=value,...]` with the search settings' keys \
(`mcts:playouts=10000,c=1.4`, `mcts:time-ms=500,mode=tree,threads=4`; no budget: 10000 playouts); \
`minimax:depth=D`; `alphabeta:depth=D`, `alphabeta:time-ms=T` (both allowed; `tt-mb=M` sizes the table); \
`expectimax:depth=D`, `expectimax:time-ms=T` (both allowed; searches die rolls, for einstein); \
`human`: a person at the board types moves in the game's notation, or `undo`, `hint`, `quit`, `help` \
(with `--json` the board and the prompts go to stderr).";

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
    let game = parse_position::<G>(moves)?;
    let specs = [parse_spec("--p1", &args.p1)?, parse_spec("--p2", &args.p2)?];
    let console = console(specs.iter().any(PlayerSpec::is_human), args.json);
    let seat = |i: usize| Seat { label: SEATS[i], opponent: &specs[1 - i], console: console.as_ref() };
    let mut players = [
        specs[0].build_seated::<G>(args.seed, &seat(0))?,
        specs[1].build_seated::<G>(args.seed.wrapping_add(1), &seat(1))?,
    ];
    // The referee's dice (games with chance turns), from the seed.
    let mut referee = Referee::new(game, args.seed ^ 0xD1CE);
    if let Some(console) = &console {
        referee = referee.narrated(console.clone(), SEATS);
        referee.announce("");
    }
    let (result, ending, detail) = loop {
        match referee.step(&mut players)? {
            Step::Finished { outcome, ending } => break finished(outcome, ending),
            Step::Abandoned { by } => break ("abandoned", "quit", Some(format!("{} quit", SEATS[by.index()]))),
            Step::Rolled(_) | Step::Played { .. } | Step::TookBack { .. } => {}
        }
    };
    let report = PlayReport { game: G::NAME, result, ending, detail, moves: referee.moves() };
    if args.json {
        return print_json(&report);
    }
    let detail = report.detail.as_ref().map_or(String::new(), |d| format!(" ({d})"));
    out!("result: {result}{detail}  moves: {}", report.moves.join(" "));
    Ok(())
}

/// The seats' names, by side: `p1` moves first.
const SEATS: [&str; 2] = ["p1", "p2"];

/// Where the game is drawn and a person at the board types: stdout and stdin; with
/// `--json`, stderr (stdout keeps the one JSON object), or nowhere without a person.
pub fn console(human: bool, json: bool) -> Option<Console> {
    let input = || BufReader::new(std::io::stdin());
    match (human, json) {
        (false, true) => None,
        (true, true) => Some(Console::new(input(), std::io::stderr())),
        (_, false) => Some(Console::new(input(), std::io::stdout())),
    }
}

/// The report's result, ending and detail of a game that ended with `outcome`.
fn finished(outcome: Outcome, ending: Ending) -> (&'static str, &'static str, Option<String>) {
    let (result, loser) = match outcome {
        Outcome::Win(winner) => (SEATS[winner.index()], SEATS[winner.other().index()]),
        Outcome::Draw => ("draw", ""),
    };
    let detail = match &ending {
        Ending::Rules => None,
        Ending::Resignation => Some(format!("{loser} resigned")),
        Ending::Forfeit { reason } => Some(format!("{loser} forfeited: {reason}")),
    };
    (result, ending.name(), detail)
}
