//! `parmcts solve`: the exact solvers (Connect Four from any position, Othello endgames).

use std::sync::mpsc::{self, RecvTimeoutError};
use std::sync::{Arc, Mutex, PoisonError};
use std::time::{Duration, Instant};

use clap::Args;
use indicatif::ProgressBar;

use parmcts::harness::report::{SolveBoundsReport, SolveReport};
use parmcts::solver::connect4::{SolveProgress, Solver, DEFAULT_TT_ENTRIES};
use parmcts::solver::connect4x::BoardSolver;
use parmcts::solver::othello::{EndgameSolver, DEFAULT_TT_ENTRIES as ENDGAME_TT_ENTRIES};
use parmcts::{ConnectFour, ConnectFourBoard, Game, GameKind, Othello, Outcome};

use crate::common::{game_parser, out, parse_position, print_json, progress_bar, BoardFlags, Failure};
use crate::interrupt;

#[derive(Args, Clone, Debug)]
#[command(after_help = "Connect Four: positions after a dozen moves solve in milliseconds; `--moves 4453` \
takes about 20 s and the empty board many minutes on one core. On a terminal the bounds found so far are \
shown as they narrow. Othello: endgames of at most 36 empty squares (an OBF board as --moves, or a move \
list); the score is the final disc difference with empties to the winner; FFO #40 (20 empties) takes \
about a second, #50 (26 empties) under a minute, with a larger table (--tt-entries 4194304).")]
pub struct SolveArgs {
    /// connect4 or othello (the games with an exact solver).
    #[arg(long, value_parser = game_parser())]
    game: GameKind,
    /// The position: a move list (Connect Four columns 1-7, Othello squares), or an Othello board.
    #[arg(long, default_value = "")]
    moves: String,
    #[command(flatten)]
    board: BoardFlags,
    /// connect4x: give up after this many positions.
    #[arg(long = "max-nodes", default_value_t = 100_000_000)]
    max_nodes: u64,
    /// Only the sign of the score (win, draw or loss).
    #[arg(long)]
    weak: bool,
    /// Transposition table entries [default: per game].
    #[arg(long = "tt-entries")]
    tt_entries: Option<usize>,
    /// Othello: order the moves by mobility alone, without the shipped n-tuple network
    /// (the solver's ordering before the network, for comparison; the same scores).
    #[arg(long = "no-network")]
    no_network: bool,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &SolveArgs) -> Result<(), Failure> {
    let (game, moves) = args.board.resolve(args.game, &args.moves)?;
    if args.no_network && game != GameKind::Othello {
        return Err(Failure::flag(
            "--no-network",
            format!("{game}: only Othello's solver orders its moves by a network"),
        ));
    }
    if !matches!(game, GameKind::ConnectFourBoard | GameKind::ConnectFour | GameKind::Othello) {
        return Err(Failure::flag(
            "--game",
            format!("{game}: the exact solvers are for connect4, connect4x and othello"),
        ));
    }
    let Some(report) = solve_interruptibly(args, game, moves)? else { return Ok(()) };
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

/// How often the waiting thread looks for Ctrl-C.
const POLL: Duration = Duration::from_millis(50);

/// Solves on a thread of its own while this one waits for the result or Ctrl-C: a solve
/// is one long unit of work with no stop hook, so on Ctrl-C the bounds proven so far
/// (Connect Four's) are printed and the solver is left to end with the process. `None`
/// when interrupted.
fn solve_interruptibly(args: &SolveArgs, game: GameKind, moves: String) -> Result<Option<SolveReport>, Failure> {
    let interrupt = interrupt::catch()?;
    let bar = progress_bar(None, "{spinner} {elapsed_precise}  {msg}", args.json);
    bar.enable_steady_tick(Duration::from_millis(200));
    let bounds: Arc<Mutex<Option<SolveProgress>>> = Arc::default();
    let (sender, result) = mpsc::channel();
    let (job, job_bar, job_bounds, job_moves) = (args.clone(), bar.clone(), Arc::clone(&bounds), moves.clone());
    let start = Instant::now();
    // The main thread's stack size, for the solvers' recursion.
    let solver = std::thread::Builder::new().name("solve".into()).stack_size(8 << 20).spawn(move || {
        let report = match game {
            GameKind::ConnectFourBoard => solve_board(&job, &job_moves),
            GameKind::ConnectFour => solve_connect4(&job, &job_bar, &job_bounds),
            _ => solve_othello(&job),
        };
        let _ = sender.send(report);
    });
    solver.map_err(|e| Failure::runtime(format!("cannot start the solver's thread: {e}")))?;
    loop {
        match result.recv_timeout(POLL) {
            Ok(report) => {
                bar.finish_and_clear();
                return report.map(Some);
            }
            Err(RecvTimeoutError::Timeout) if !interrupt.requested() => {}
            Err(RecvTimeoutError::Timeout) => break,
            Err(RecvTimeoutError::Disconnected) => return Err(Failure::runtime("the solver stopped without a result")),
        }
    }
    bar.finish_and_clear();
    let proven = *bounds.lock().unwrap_or_else(PoisonError::into_inner);
    let report = SolveBoundsReport {
        game: game.name(),
        moves,
        score_bounds: proven.map(|p| [p.min, p.max]),
        nodes: proven.map(|p| p.nodes),
        seconds: start.elapsed().as_secs_f64(),
        weak: args.weak,
        interrupted: true,
    };
    if args.json {
        print_json(&report)?;
    } else {
        match report.score_bounds {
            Some([min, max]) => out!("interrupted after {:.1} s: score in [{min}, {max}]", report.seconds),
            None => out!("interrupted after {:.1} s: no bound on the score yet", report.seconds),
        }
    }
    Ok(None)
}

fn solve_othello(args: &SolveArgs) -> Result<SolveReport, Failure> {
    let position = parse_position::<Othello>(&args.moves)?;
    let mut solver = EndgameSolver::new(args.tt_entries.unwrap_or(ENDGAME_TT_ENTRIES))
        .map_err(|e| Failure::flag("--tt-entries", e))?;
    if args.no_network {
        solver.set_network(None);
    }
    let start = Instant::now();
    let result = if args.weak { solver.solve_weak(&position) } else { solver.solve(&position) };
    // The one way a solve fails: more empty squares than the solver takes.
    let result = result.map_err(|e| Failure::flag("--moves", e))?;
    Ok(SolveReport {
        game: Othello::NAME,
        moves: args.moves.clone(),
        score: result.score,
        best_move: result.best_move.map(|m| position.format_move(m)),
        nodes: result.nodes,
        seconds: start.elapsed().as_secs_f64(),
        weak: args.weak,
    })
}

/// Connect Four 7x6, showing on `bar` and keeping in `bounds` the bounds as they narrow.
fn solve_connect4(
    args: &SolveArgs,
    bar: &ProgressBar,
    bounds: &Mutex<Option<SolveProgress>>,
) -> Result<SolveReport, Failure> {
    let position = parse_position::<ConnectFour>(&args.moves)?;
    let mut solver =
        Solver::new(args.tt_entries.unwrap_or(DEFAULT_TT_ENTRIES)).map_err(|e| Failure::flag("--tt-entries", e))?;
    let start = Instant::now();
    let result = solver.solve_with_progress(&position, args.weak, &mut |p| {
        bar.set_message(format!("score in [{}, {}], {} positions", p.min, p.max, p.nodes));
        *bounds.lock().unwrap_or_else(PoisonError::into_inner) = Some(p);
    })?;
    Ok(SolveReport {
        game: ConnectFour::NAME,
        moves: args.moves.clone(),
        score: result.score,
        best_move: result.best_move.map(|m| position.format_move(m)),
        nodes: result.nodes + result.move_nodes,
        seconds: start.elapsed().as_secs_f64(),
        weak: args.weak,
    })
}

/// Connect Four on a run-time board: win, draw or loss only (`BoardSolver`).
fn solve_board(args: &SolveArgs, moves: &str) -> Result<SolveReport, Failure> {
    let position = parse_position::<ConnectFourBoard>(moves)?;
    let start = Instant::now();
    let mut solver = BoardSolver::new(args.max_nodes);
    let solved = solver.solve(&position).ok_or_else(|| {
        Failure::runtime(format!("gave up after {} positions (--max-nodes {})", args.max_nodes, args.max_nodes))
    })?;
    let mover = position.side_to_move();
    let score = match solved.outcome {
        Outcome::Draw => 0,
        Outcome::Win(p) if p == mover => 1,
        Outcome::Win(_) => -1,
    };
    Ok(SolveReport {
        game: ConnectFourBoard::NAME,
        moves: moves.to_string(),
        score,
        best_move: solved.best_move.map(|m| position.format_move(m)),
        nodes: solved.nodes,
        seconds: start.elapsed().as_secs_f64(),
        weak: true,
    })
}
