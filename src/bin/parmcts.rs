//! `parmcts`: the command-line front end (perft, search, play, bench).
//!
//! Every error is one line on stderr starting with `error:` that names the bad value, and
//! exit code 2. With `--json`, exactly one JSON object goes to stdout.

use std::io::Write as _;
use std::process::ExitCode;
use std::sync::Mutex;
use std::time::Instant;

use clap::{Args, Parser, Subcommand};
use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use serde_json::{json, Value};

use parmcts::alphabeta::Evaluate;
use parmcts::benchmark::{bench_game, BenchMode, BenchRow};
use parmcts::games::perft::perft;
use parmcts::matches::{run_match, MatchConfig, Openings, Sprt};
use parmcts::players::{apply_search_option, PlayerSpec};
use parmcts::search::{format_moves, ConfigError};
use parmcts::solver::connect4::Solver;
use parmcts::tree::NODE_BYTES;
use parmcts::weights::train::{
    collect_decisions, evaluate_fit, fit_mm, hold_out, temperature_exponent, with_temperature, TrainingGames,
};
use parmcts::weights::MoveWeights;
use parmcts::{ConnectFour, Game, GameKind, Othello, Outcome, Player, Proof, Search, SearchConfig, TicTacToe};

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
    Perft {
        /// tictactoe, connect4 or othello.
        #[arg(long)]
        game: GameKind,
        /// Plies to count.
        #[arg(long)]
        depth: u32,
        /// Start from this position (move list, or an Othello board string).
        #[arg(long, default_value = "")]
        moves: String,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Search one position and print the best move and the root statistics.
    Search(Box<SearchArgs>),
    /// Play one game between two players, printing the board as it goes.
    Play {
        /// tictactoe, connect4 or othello.
        #[arg(long)]
        game: GameKind,
        /// Start from this position.
        #[arg(long, default_value = "")]
        moves: String,
        /// First player spec (`random`, `mcts:playouts=10000,c=1.4`, ...).
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
    },
    /// Solve a Connect Four position exactly (Pons's score convention).
    Solve {
        /// connect4 (the only game with an exact solver).
        #[arg(long)]
        game: GameKind,
        /// The position as a move list.
        #[arg(long, default_value = "")]
        moves: String,
        /// Only the sign of the score (win, draw or loss).
        #[arg(long)]
        weak: bool,
        /// Transposition table entries (8 bytes each).
        #[arg(long = "tt-entries", default_value_t = parmcts::solver::connect4::DEFAULT_TT_ENTRIES)]
        tt_entries: usize,
        /// Print one JSON object.
        #[arg(long)]
        json: bool,
    },
    /// Play a match between two players: score and Elo with 95 % intervals.
    Match(MatchArgs),
    /// The main job: playout throughput, pure and MCTS, per game and mode.
    Bench(BenchArgs),
    /// Fit move-feature gammas (Bradley-Terry, Coulom's MM) to a teacher's choices.
    TrainWeights(TrainArgs),
}

#[derive(Args, Debug)]
struct TrainArgs {
    /// A game with move features (othello).
    #[arg(long)]
    game: GameKind,
    /// Self-play games of the teacher.
    #[arg(long, default_value_t = 200)]
    games: usize,
    /// The teacher, as a player spec (`alphabeta:depth=5`, `mcts:playouts=20000`, ...).
    #[arg(long, default_value = "alphabeta:depth=5")]
    teacher: String,
    /// Random moves opening each game.
    #[arg(long = "random-plies", default_value_t = 6)]
    random_plies: u32,
    /// MM iterations.
    #[arg(long, default_value_t = 200)]
    iterations: usize,
    /// Softmax temperature of the written policy: gammas raised to 1/T (1 = the fit
    /// itself; 0.5, the default, played best in playouts).
    #[arg(long, default_value_t = 0.5)]
    temperature: f64,
    /// Seed of the openings.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Threads playing the teacher's games.
    #[arg(long, default_value_t = 2)]
    threads: usize,
    /// Where to write the weights file.
    #[arg(long, default_value = "weights.json")]
    out: String,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct MatchArgs {
    /// tictactoe, connect4 or othello.
    #[arg(long)]
    game: GameKind,
    /// First player spec.
    #[arg(long)]
    p1: String,
    /// Second player spec.
    #[arg(long)]
    p2: String,
    /// Number of games (colours alternate).
    #[arg(long, default_value_t = 100)]
    games: u64,
    /// `random:R`: each pair of games starts from the same R random plies.
    #[arg(long, default_value = "start")]
    openings: String,
    /// Games played at the same time.
    #[arg(long = "parallel-games", default_value_t = 1)]
    parallel_games: usize,
    /// Seed for openings and players.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    /// Append one JSON line per game to this file.
    #[arg(long)]
    records: Option<std::path::PathBuf>,
    /// Stop early: `elo0,elo1[,alpha,beta]`.
    #[arg(long)]
    sprt: Option<String>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct SearchArgs {
    /// tictactoe, connect4 or othello.
    #[arg(long)]
    game: GameKind,
    /// Start from this position.
    #[arg(long, default_value = "")]
    moves: String,
    /// Playout budget.
    #[arg(long)]
    playouts: Option<String>,
    /// Time budget in milliseconds.
    #[arg(long = "time-ms")]
    time_ms: Option<String>,
    /// Random seed.
    #[arg(long)]
    seed: Option<String>,
    /// UCB1 exploration constant (default per game: 0.5 in Connect Four and Othello,
    /// sqrt(2) otherwise).
    #[arg(long, allow_hyphen_values = true)]
    c: Option<String>,
    /// seq, tree or root.
    #[arg(long)]
    mode: Option<String>,
    /// Worker threads.
    #[arg(long, allow_hyphen_values = true)]
    threads: Option<String>,
    /// Virtual loss per in-flight playout (tree mode; 0 disables).
    #[arg(long = "virtual-loss")]
    virtual_loss: Option<String>,
    /// How selection reads in-flight playouts: loss (virtual loss) or wu-uct.
    #[arg(long = "in-flight")]
    in_flight: Option<String>,
    /// Playouts each worker keeps in flight, 1-4 (default: the game's playout lanes).
    #[arg(long)]
    leaves: Option<String>,
    /// Arena size in MiB.
    #[arg(long = "memory-mb")]
    memory_mb: Option<String>,
    /// Arena size in nodes.
    #[arg(long)]
    nodes: Option<String>,
    /// Visits before a leaf is expanded.
    #[arg(long)]
    expand: Option<String>,
    /// Final move: visits (most visited), value (best mean) or secure (best lower bound).
    #[arg(long = "final")]
    final_move: Option<String>,
    /// Progressive bias weight C_BT (0: off).
    #[arg(long, allow_hyphen_values = true)]
    bias: Option<String>,
    /// Progressive bias constant K.
    #[arg(long = "bias-k", allow_hyphen_values = true)]
    bias_k: Option<String>,
    /// Playout policy: random or biased (roulette wheel over the game's action values).
    #[arg(long)]
    playout: Option<String>,
    /// Win-first / block-first pruning in tree and playouts: on or off (default: on in
    /// Connect Four, off elsewhere).
    #[arg(long)]
    prune: Option<String>,
    /// MCTS-Solver (proven wins, losses and draws; stops once the root is proven): on or off.
    #[arg(long)]
    solver: Option<String>,
    /// RAVE constant k in beta = sqrt(k / (3N + k)) (0: off).
    #[arg(long, allow_hyphen_values = true)]
    rave: Option<String>,
    /// Move strengths: `default` (the game's shipped learned set where it has one, else its
    /// hand-set action values), `hand-set`, or a `parmcts train-weights` file.
    #[arg(long)]
    weights: Option<String>,
    /// Check the quiescent tree invariants after the search (exit 1 on a violation).
    #[arg(long = "check-invariants")]
    check_invariants: bool,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

#[derive(Args, Debug)]
struct BenchArgs {
    /// One game (default: every game).
    #[arg(long)]
    game: Option<GameKind>,
    /// Comma-separated modes: pure, seq, tree, root.
    #[arg(long, default_value = "pure,seq,tree,root")]
    modes: String,
    /// Comma-separated thread counts.
    #[arg(long, default_value = "1,2")]
    threads: String,
    /// Playouts per measurement (default: per game, about a quarter second each).
    #[arg(long)]
    playouts: Option<u64>,
    /// Repeats per configuration; the median is reported.
    #[arg(long, default_value_t = 5)]
    repeat: usize,
    /// Virtual loss for tree mode.
    #[arg(long = "virtual-loss", default_value_t = 1)]
    virtual_loss: u32,
    /// Playouts (pure: games) each thread keeps in flight, 1-4 (default: each game's
    /// playout lanes).
    #[arg(long)]
    leaves: Option<u32>,
    /// Seed.
    #[arg(long, default_value_t = 1)]
    seed: u64,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

/// A failure: one line for stderr, and the exit code (2 for bad input).
struct Failure(String, u8);

impl<E: std::fmt::Display> From<E> for Failure {
    fn from(e: E) -> Self {
        Failure(e.to_string(), 2)
    }
}

/// `println!` that ignores a closed stdout (`parmcts bench | head` must not panic).
macro_rules! out {
    ($($arg:tt)*) => {{
        use std::io::Write as _;
        let _ = writeln!(std::io::stdout(), $($arg)*);
    }};
}

/// Runs `$body` with `$G` bound to the game type named by `$kind`.
macro_rules! with_game {
    ($kind:expr, $G:ident => $body:expr) => {
        match $kind {
            GameKind::TicTacToe => {
                type $G = TicTacToe;
                $body
            }
            GameKind::ConnectFour => {
                type $G = ConnectFour;
                $body
            }
            GameKind::Othello => {
                type $G = Othello;
                $body
            }
        }
    };
}

fn main() -> ExitCode {
    let cli = Cli::parse();
    let outcome = match cli.command {
        Command::Perft { game, depth, moves, json } => with_game!(game, G => run_perft::<G>(depth, &moves, json)),
        Command::Search(args) => with_game!(args.game, G => run_search::<G>(&args)),
        Command::Play { game, moves, p1, p2, seed, json } => {
            with_game!(game, G => run_play::<G>(&moves, &p1, &p2, seed, json))
        }
        Command::Solve { game, moves, weak, tt_entries, json } => run_solve(game, &moves, weak, tt_entries, json),
        Command::Match(args) => with_game!(args.game, G => run_match_command::<G>(&args)),
        Command::Bench(args) => run_bench(&args),
        Command::TrainWeights(args) => match args.game {
            GameKind::Othello => run_train::<Othello>(&args, &parmcts::games::othello::hand_set_gammas()),
            other => Err(Failure(format!("--game {other}: only othello has move features to train"), 2)),
        },
    };
    match outcome {
        Ok(()) => ExitCode::SUCCESS,
        Err(Failure(message, code)) => {
            eprintln!("error: {message}");
            ExitCode::from(code)
        }
    }
}

fn parse_position<G: Game>(moves: &str) -> Result<G, Failure> {
    G::parse_position(moves).map_err(|e| Failure(format!("--moves '{moves}': {e}"), 2))
}

fn print_json(value: &Value) {
    out!("{value}");
}

fn run_perft<G: Game>(depth: u32, moves: &str, json: bool) -> Result<(), Failure> {
    let root = parse_position::<G>(moves)?;
    let start = Instant::now();
    let nodes = perft(&root, depth);
    let seconds = start.elapsed().as_secs_f64();
    let rate = nodes as f64 / seconds.max(1e-9);
    if json {
        print_json(
            &json!({"game": G::NAME, "depth": depth, "nodes": nodes, "seconds": seconds, "nodes_per_sec": rate}),
        );
    } else {
        out!("perft({depth}) = {nodes}  [{seconds:.3} s, {:.1} M nodes/s]", rate / 1e6);
    }
    Ok(())
}

fn search_config(args: &SearchArgs) -> Result<SearchConfig, Failure> {
    let options = [
        ("playouts", &args.playouts),
        ("time-ms", &args.time_ms),
        ("seed", &args.seed),
        ("c", &args.c),
        ("mode", &args.mode),
        ("threads", &args.threads),
        ("virtual-loss", &args.virtual_loss),
        ("in-flight", &args.in_flight),
        ("leaves", &args.leaves),
        ("memory-mb", &args.memory_mb),
        ("nodes", &args.nodes),
        ("expand", &args.expand),
        ("final", &args.final_move),
        ("bias", &args.bias),
        ("bias-k", &args.bias_k),
        ("playout", &args.playout),
        ("prune", &args.prune),
        ("solver", &args.solver),
        ("rave", &args.rave),
        ("weights", &args.weights),
    ];
    let mut builder = SearchConfig::builder();
    if args.playouts.is_none() && args.time_ms.is_none() {
        builder = builder.playouts(100_000);
    }
    for (key, value) in options {
        if let Some(value) = value {
            builder = apply_search_option(builder, key, value).map_err(|e| Failure(format!("--{key}: {}", e.0), 2))?;
        }
    }
    Ok(builder.build()?)
}

fn run_search<G: Game>(args: &SearchArgs) -> Result<(), Failure> {
    let root = parse_position::<G>(&args.moves)?;
    let config = search_config(args)?;
    let mut search = Search::new(config)?;
    let result = search.run(&root)?;
    let invariants = if args.check_invariants {
        Some(
            search
                .check_invariants()
                .and_then(|nodes| search.check_proofs(&root).map(|_| nodes))
                .map_err(|e| Failure(e.to_string(), 1)),
        )
    } else {
        None
    };
    let best = result.best_move.map(|m| root.format_move(m));
    let pv = format_moves(&root, &result.pv);
    if args.json {
        let children: Vec<Value> = result
            .children
            .iter()
            .map(|c| {
                json!({"move": root.format_move(c.mv), "visits": c.visits, "value": c.value,
                       "proof": proof_name(c.proof)})
            })
            .collect();
        let mut out = json!({
            "game": G::NAME,
            "best_move": best,
            "playouts": result.playouts,
            "nodes": result.nodes,
            "elapsed_ms": result.elapsed.as_secs_f64() * 1e3,
            "playouts_per_sec": result.playouts_per_sec(),
            "root_visits": result.root_visits,
            "children": children,
            "pv": pv,
            "max_depth": result.max_depth,
            "arena_full": result.arena_full,
            "mode": result.mode.name(),
            "threads": result.threads,
            "leaves": result.leaves,
            "reused_nodes": result.reused_nodes,
            "proof": proof_name(result.proof),
            "node_bytes": NODE_BYTES,
            "arena_nodes": search.config().arena_nodes(),
        });
        if let Some(check) = &invariants {
            out["invariants"] = json!(check.as_ref().map(|_| "ok".to_string()).unwrap_or_else(|e| e.0.clone()));
        }
        print_json(&out);
    } else {
        out!("best move: {}", best.as_deref().unwrap_or("-"));
        out!(
            "playouts: {}  nodes: {}  max depth: {}  time: {:.1} ms  rate: {:.0} playouts/s{}",
            result.playouts,
            result.nodes,
            result.max_depth,
            result.elapsed.as_secs_f64() * 1e3,
            result.playouts_per_sec(),
            if result.arena_full { "  (arena full: later playouts ran from the leaves)" } else { "" }
        );
        out!("pv: {}", pv.join(" "));
        if let Some(proof) = proof_name(result.proof) {
            out!("proven: {proof} for the side to move");
        }
        let capacity = search.config().arena_nodes();
        out!(
            "arena: {} of {capacity} nodes used, {NODE_BYTES} bytes per node ({:.1} of {:.1} MiB)",
            result.nodes,
            (result.nodes * NODE_BYTES as u64) as f64 / (1 << 20) as f64,
            (capacity * NODE_BYTES as u64) as f64 / (1 << 20) as f64
        );
        out!("{:>6} {:>10} {:>7} {:>6}", "move", "visits", "value", "proof");
        for c in &result.children {
            let proof = proof_name(c.proof).unwrap_or("-");
            out!("{:>6} {:>10} {:>7.3} {proof:>6}", root.format_move(c.mv), c.visits, c.value);
        }
        if let Some(Ok(nodes)) = &invariants {
            out!("invariants: ok ({nodes} nodes reachable)");
        }
    }
    match invariants {
        Some(Err(failure)) => Err(failure),
        _ => Ok(()),
    }
}

fn run_train<G: Evaluate>(args: &TrainArgs, hand_set: &[f32]) -> Result<(), Failure> {
    if args.games == 0 || args.threads == 0 || args.iterations == 0 {
        return Err(Failure("--games, --threads and --iterations must be at least 1".into(), 2));
    }
    // Checked before the teacher's games, not after them.
    temperature_exponent(args.temperature).map_err(|e| Failure(format!("--temperature: {e}"), 2))?;
    let teacher = PlayerSpec::parse(&args.teacher).map_err(|e| Failure(format!("--teacher: {e}"), 2))?;
    let plan = TrainingGames {
        games: args.games,
        teacher,
        random_plies: args.random_plies,
        seed: args.seed,
        threads: args.threads,
    };
    let bar = ProgressBar::with_draw_target(Some(args.games as u64), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} teacher games  [{elapsed_precise} < {eta_precise}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let start = Instant::now();
    let decisions = collect_decisions::<G>(&plan, &|| bar.inc(1))?;
    bar.finish_and_clear();
    // Every fifth decision is held out to compare the fitted and the hand-set gammas.
    let total = decisions.len();
    let (held_out, training) = hold_out(decisions, 5);
    let fitted = fit_mm(&training, G::MOVE_FEATURES.len(), args.iterations);
    let gammas = with_temperature(&fitted, args.temperature)?;
    let hand: Vec<f64> = hand_set.iter().map(|&g| g as f64).collect();
    let (fitted_fit, learned_fit, hand_fit) =
        (evaluate_fit(&held_out, &fitted), evaluate_fit(&held_out, &gammas), evaluate_fit(&held_out, &hand));
    let source = format!(
        "parmcts train-weights --game {} --games {} --teacher {} --random-plies {} --iterations {} --seed {} --temperature {}",
        G::NAME,
        args.games,
        args.teacher,
        args.random_plies,
        args.iterations,
        args.seed,
        args.temperature
    );
    let weights = MoveWeights::new::<G>(gammas.iter().map(|&g| g as f32).collect(), &source)?;
    weights.save(&args.out)?;
    let seconds = start.elapsed().as_secs_f64();
    if args.json {
        print_json(&json!({
            "game": G::NAME, "out": args.out, "decisions": total, "held_out": held_out.len(),
            "features": G::MOVE_FEATURES, "gammas": weights.gammas, "hand_set": hand_set,
            "temperature": args.temperature, "fitted_gammas": fitted, "fitted_log_likelihood": fitted_fit.log_likelihood,
            "learned_log_likelihood": learned_fit.log_likelihood, "learned_top_feature": learned_fit.top_feature,
            "hand_set_log_likelihood": hand_fit.log_likelihood, "hand_set_top_feature": hand_fit.top_feature,
            "seconds": seconds,
        }));
    } else {
        out!("{} decisions of the teacher {}, {} held out; {seconds:.1} s", total, args.teacher, held_out.len());
        let written = format!("T = {}", args.temperature);
        out!("{:>10} {:>9} {:>9} {:>9}", "feature", "hand-set", "fitted", written);
        for (((name, hand), fit), learned) in G::MOVE_FEATURES.iter().zip(hand_set).zip(&fitted).zip(&weights.gammas) {
            out!("{name:>10} {hand:>9.3} {fit:>9.3} {learned:>9.3}");
        }
        out!(
            "held-out fit: log-likelihood per move {:.4} fitted, {:.4} written, {:.4} hand-set; top feature {:.1} % written vs {:.1} % hand-set",
            fitted_fit.log_likelihood,
            learned_fit.log_likelihood,
            hand_fit.log_likelihood,
            100.0 * learned_fit.top_feature,
            100.0 * hand_fit.top_feature
        );
        out!("wrote {}", args.out);
    }
    Ok(())
}

/// A proven value's name for output (`None`: not proven).
fn proof_name(proof: Proof) -> Option<&'static str> {
    match proof {
        Proof::Unknown => None,
        Proof::Win => Some("win"),
        Proof::Loss => Some("loss"),
        Proof::Draw => Some("draw"),
    }
}

fn run_play<G: Evaluate>(moves: &str, p1: &str, p2: &str, seed: u64, json: bool) -> Result<(), Failure> {
    let mut game = parse_position::<G>(moves)?;
    let spec1 = PlayerSpec::parse(p1).map_err(|e| Failure(format!("--p1: {e}"), 2))?;
    let spec2 = PlayerSpec::parse(p2).map_err(|e| Failure(format!("--p2: {e}"), 2))?;
    let mut players = [spec1.build::<G>(seed)?, spec2.build::<G>(seed.wrapping_add(1))?];
    let mut played = Vec::new();
    if !json {
        out!("{}", game.render());
    }
    while game.outcome().is_none() {
        let side = game.side_to_move();
        let mv = players[side.index()].choose(&game)?;
        let text = game.format_move(mv);
        game.try_play(mv).map_err(|e| Failure(format!("player {} chose {text}: {e}", side.index() + 1), 1))?;
        if !json {
            out!("p{} plays {text}\n{}", side.index() + 1, game.render());
        }
        played.push(text);
    }
    let result = match game.outcome() {
        Some(Outcome::Win(Player::One)) => "p1",
        Some(Outcome::Win(Player::Two)) => "p2",
        _ => "draw",
    };
    if json {
        print_json(&json!({"game": G::NAME, "result": result, "moves": played}));
    } else {
        out!("result: {result}  moves: {}", played.join(" "));
    }
    Ok(())
}

fn run_solve(game: GameKind, moves: &str, weak: bool, tt_entries: usize, json: bool) -> Result<(), Failure> {
    if game != GameKind::ConnectFour {
        return Err(Failure(format!("--game {game}: the exact solver supports only connect4"), 2));
    }
    let position = parse_position::<ConnectFour>(moves)?;
    let mut solver = Solver::new(tt_entries)?;
    let start = Instant::now();
    let result = solver.solve(&position, weak)?;
    let seconds = start.elapsed().as_secs_f64();
    let best = result.best_move.map(|m| position.format_move(m));
    if json {
        print_json(&json!({
            "game": "connect4",
            "moves": moves,
            "score": result.score,
            "best_move": best,
            "nodes": result.nodes + result.move_nodes,
            "seconds": seconds,
            "weak": weak,
        }));
    } else {
        out!(
            "score {} ({}), best move {}  [{} nodes, {:.3} ms]",
            result.score,
            match result.score {
                0 => "draw",
                s if s > 0 => "the side to move wins",
                _ => "the side to move loses",
            },
            best.as_deref().unwrap_or("-"),
            result.nodes + result.move_nodes,
            seconds * 1e3
        );
    }
    Ok(())
}

fn run_match_command<G: Evaluate>(args: &MatchArgs) -> Result<(), Failure> {
    let p1 = PlayerSpec::parse(&args.p1).map_err(|e| Failure(format!("--p1: {e}"), 2))?;
    let p2 = PlayerSpec::parse(&args.p2).map_err(|e| Failure(format!("--p2: {e}"), 2))?;
    let openings: Openings = args.openings.parse().map_err(|e: String| Failure(e, 2))?;
    let sprt = args.sprt.as_deref().map(Sprt::parse).transpose().map_err(|e| Failure(e, 2))?;
    if args.games == 0 {
        return Err(Failure("--games: bad value '0' (at least 1)".into(), 2));
    }
    if args.parallel_games == 0 {
        return Err(Failure("--parallel-games: bad value '0' (at least 1)".into(), 2));
    }
    let records = match &args.records {
        Some(path) => Some(Mutex::new(
            std::fs::OpenOptions::new()
                .create(true)
                .append(true)
                .open(path)
                .map_err(|e| Failure(format!("--records '{}': {e}", path.display()), 2))?,
        )),
        None => None,
    };
    let config =
        MatchConfig { games: args.games, openings, parallel_games: args.parallel_games, seed: args.seed, sprt };
    let bar = ProgressBar::with_draw_target(Some(args.games), ProgressDrawTarget::stderr());
    bar.set_style(
        ProgressStyle::with_template("{bar:40} {pos}/{len} games  {msg}  [{elapsed_precise} < {eta_precise}]")
            .unwrap_or_else(|_| ProgressStyle::default_bar()),
    );
    let record_error = Mutex::new(None);
    let summary = run_match(&G::new(), &p1, &p2, &config, |record, tally| {
        bar.inc(1);
        bar.set_message(format!("+{} ={} -{}  elo {:+.0}", tally.wins, tally.draws, tally.losses, tally.elo()));
        if let Some(file) = &records {
            let line = json!({
                "game": record.index,
                "opening": record.opening,
                "moves": record.moves,
                "result": record.result,
                "p1_first": record.p1_first,
                "players": [args.p1, args.p2],
                "move_ms": record.move_ms,
            });
            let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
            if let Err(e) = writeln!(file, "{line}") {
                record_error.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(e.to_string());
            }
        }
    })?;
    bar.finish_and_clear();
    if let Some(e) = record_error.into_inner().unwrap_or_else(|e| e.into_inner()) {
        return Err(Failure(format!("--records: {e}"), 1));
    }
    let t = summary.tally;
    // Each player's move times with its budget per move in ms, if it has one.
    let timed: Vec<_> = [("p1", &p1), ("p2", &p2)]
        .into_iter()
        .zip(summary.move_times)
        .filter_map(|((key, spec), times)| Some((key, times?, spec.time_budget().map(|b| b.as_secs_f64() * 1e3))))
        .collect();
    let (slo, shi) = t.score_ci95();
    let (elo_lo, elo_hi) = t.elo_ci95();
    if args.json {
        let mut out = json!({
            "game": G::NAME,
            "p1": args.p1,
            "p2": args.p2,
            "games": t.games(),
            "p1_wins": t.wins,
            "draws": t.draws,
            "p2_wins": t.losses,
            "score": t.score(),
            "score_ci95": [slo, shi],
            "elo": t.elo(),
            "elo_ci95": [elo_lo, elo_hi],
        });
        if let Some((verdict, llr)) = summary.sprt {
            out["sprt"] = json!({"verdict": format!("{verdict:?}"), "llr": llr});
        }
        for &(key, t, budget) in &timed {
            out["move_times"][key] = json!({
                "moves": t.moves,
                "median_ms": t.median_ms,
                "p99_ms": t.p99_ms,
                "max_ms": t.max_ms,
                "budget_ms": budget,
            });
        }
        print_json(&out);
    } else {
        out!("{} vs {} in {} ({} games)", args.p1, args.p2, G::NAME, t.games());
        out!("p1 wins {}  draws {}  p2 wins {}", t.wins, t.draws, t.losses);
        out!("score {:.3} [{slo:.3}, {shi:.3}]  elo {:+.1} [{elo_lo:+.1}, {elo_hi:+.1}] (95 %)", t.score(), t.elo());
        if let Some((verdict, llr)) = summary.sprt {
            out!("sprt: {verdict:?} (llr {llr:.2})");
        }
        for &(key, t, budget) in &timed {
            let over = budget.map_or(String::new(), |budget| {
                format!(
                    "; over the {budget} ms budget: median {:+.3} ms, p99 {:+.3} ms, max {:+.3} ms",
                    t.median_ms - budget,
                    t.p99_ms - budget,
                    t.max_ms - budget
                )
            });
            out!(
                "{key} move time over {} moves: median {:.3} ms, p99 {:.3} ms, max {:.3} ms{over}",
                t.moves,
                t.median_ms,
                t.p99_ms,
                t.max_ms
            );
        }
    }
    Ok(())
}

/// Default playouts per measurement: about a quarter second of sequential MCTS each.
fn default_bench_playouts(game: GameKind) -> u64 {
    match game {
        GameKind::TicTacToe => 500_000,
        GameKind::ConnectFour => 1_000_000,
        GameKind::Othello => 100_000,
    }
}

fn parse_list<T: std::str::FromStr>(flag: &str, text: &str) -> Result<Vec<T>, Failure> {
    text.split(',').map(|s| s.trim().parse::<T>().map_err(|_| Failure(format!("{flag}: bad value '{s}'"), 2))).collect()
}

fn run_bench(args: &BenchArgs) -> Result<(), Failure> {
    let modes: Vec<BenchMode> = args
        .modes
        .split(',')
        .map(|s| s.trim().parse::<BenchMode>().map_err(|e| Failure(format!("--modes: {e}"), 2)))
        .collect::<Result<_, _>>()?;
    let threads: Vec<usize> = parse_list("--threads", &args.threads)?;
    if let Some(&t) = threads.iter().find(|&&t| t == 0) {
        return Err(Failure(format!("--threads: bad value '{t}' (threads must be at least 1)"), 2));
    }
    if args.playouts == Some(0) {
        return Err(Failure("--playouts: bad value '0' (at least 1)".into(), 2));
    }
    if args.repeat == 0 {
        return Err(Failure("--repeat: bad value '0' (at least 1)".into(), 2));
    }
    let games = match args.game {
        Some(g) => vec![g],
        None => GameKind::ALL.to_vec(),
    };
    let mut rows: Vec<BenchRow> = Vec::new();
    for game in games {
        let playouts = args.playouts.unwrap_or_else(|| default_bench_playouts(game));
        let mut base = SearchConfig::builder().playouts(playouts).seed(args.seed).virtual_loss(args.virtual_loss);
        if let Some(n) = args.leaves {
            base = base.leaves(n);
        }
        let base = base.build().map_err(|e| match e {
            ConfigError::BadLeaves(_) => Failure(format!("--leaves: {e}"), 2),
            e => e.into(),
        })?;
        let game_rows = with_game!(game, G => bench_game(&G::new(), &modes, &threads, playouts, args.repeat, &base))?;
        if !args.json {
            print_bench_table(&game_rows);
        }
        rows.extend(game_rows);
    }
    if args.json {
        let results: Vec<Value> = rows
            .iter()
            .map(|r| {
                json!({
                    "game": r.game,
                    "mode": r.mode.name(),
                    "threads": r.threads,
                    "leaves": r.leaves,
                    "playouts": r.playouts,
                    "playouts_per_sec": r.playouts_per_sec,
                    "ns_per_playout": r.ns_per_playout(),
                    "ratio_to_seq": r.ratio_to_seq,
                    "samples": r.samples,
                })
            })
            .collect();
        print_json(&json!({
            "results": results, "repeat": args.repeat, "cores": available_cores(),
            "othello_playout_build": parmcts::games::othello::PlayoutBuild::detect().name(),
        }));
    }
    Ok(())
}

fn available_cores() -> usize {
    std::thread::available_parallelism().map_or(1, |n| n.get())
}

fn print_bench_table(rows: &[BenchRow]) {
    let Some(first) = rows.first() else { return };
    out!(
        "{} ({} playouts per run, median of repeats, {} cores, {} playout{} in flight per thread)",
        first.game,
        first.playouts,
        available_cores(),
        first.leaves,
        if first.leaves == 1 { "" } else { "s" }
    );
    if first.game == Othello::NAME {
        out!(
            "(playouts on the {} build of the Othello kernels)",
            parmcts::games::othello::PlayoutBuild::detect().name()
        );
    }
    out!("{:<6} {:>7} {:>14} {:>12} {:>12}", "mode", "threads", "playouts/s", "ns/playout", "x seq");
    for r in rows {
        out!(
            "{:<6} {:>7} {:>14.0} {:>12.1} {:>12.2}",
            r.mode.name(),
            r.threads,
            r.playouts_per_sec,
            r.ns_per_playout(),
            r.ratio_to_seq.unwrap_or(f64::NAN)
        );
    }
    let pure = rows.iter().find(|r| r.mode == BenchMode::Pure && r.threads == 1);
    let seq = rows.iter().find(|r| r.mode.name() == "seq");
    if let (Some(pure), Some(seq)) = (pure, seq) {
        out!(
            "tree work per iteration (seq MCTS minus pure playout): {:.1} ns; pure/seq rate ratio {:.2}",
            seq.ns_per_playout() - pure.ns_per_playout(),
            pure.playouts_per_sec / seq.playouts_per_sec
        );
    }
    out!();
}
