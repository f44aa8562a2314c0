//! `parmcts search`: search one position.

use clap::Args;

use parmcts::harness::report::SearchReport;
use parmcts::{with_game, GameKind, Search, SearchConfig, SearchGame, NODE_BYTES};

use crate::common::{cluster_for, game_parser, out, parse_position, print_json, rank, BoardFlags, Failure};
use crate::flags::{AllSettings, SettingFlags};

/// The playout budget when neither `--playouts` nor `--time-ms` is given.
const DEFAULT_PLAYOUTS: u64 = 100_000;

/// The environment variable that makes each rank of a distributed search print to
/// stderr, after the search, what it did (its shares, walks or leaves: measurements,
/// docs/SCALING.md).
const STATS_VAR: &str = "PARMCTS_DIST_STATS";

/// The environment variable that makes a rank of a distributed search panic after its
/// first share (tests: the job must then end rather than hang). Its value is the rank
/// that panics.
const PANIC_RANK_VAR: &str = "PARMCTS_DIST_PANIC_RANK";

#[derive(Args, Debug)]
pub struct SearchArgs {
    /// The game.
    #[arg(long, value_parser = game_parser())]
    game: GameKind,
    /// Start from this position: moves (`4453`, `f5d6`), or an Othello board of 64
    /// characters X/O/- (a1, b1, …, h8) followed by the side to move (X or O).
    #[arg(long, default_value = "", allow_hyphen_values = true)]
    moves: String,
    #[command(flatten)]
    board: BoardFlags,
    #[command(flatten)]
    settings: SettingFlags<AllSettings>,
    /// Check the quiescent tree invariants after the search (exit 1 on a violation).
    #[arg(long = "check-invariants")]
    check_invariants: bool,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &SearchArgs) -> Result<(), Failure> {
    let (game, moves) = args.board.resolve(args.game, &args.moves)?;
    with_game!(game, G => run_game::<G>(args, &moves))
}

fn config(args: &SearchArgs) -> Result<SearchConfig, Failure> {
    Ok(args.settings.apply(SearchConfig::builder())?.default_playouts(DEFAULT_PLAYOUTS).build()?)
}

fn run_game<G: SearchGame>(args: &SearchArgs, moves: &str) -> Result<(), Failure> {
    let root = parse_position::<G>(moves)?;
    let config = config(args)?;
    // With mode=dist: MPI until the end of this function (one rank per process).
    let _cluster = cluster_for(&config)?;
    let mut search = Search::new(config)?;
    if let Some(rank) = std::env::var(PANIC_RANK_VAR).ok().and_then(|r| r.parse::<usize>().ok()) {
        search.inject_distributed_panic(rank);
    }
    let result = search.run(&root)?;
    if let (Some(stats), true) = (&result.distributed, std::env::var_os(STATS_VAR).is_some()) {
        eprintln!("{stats}");
    }
    let invariants = args.check_invariants.then(|| {
        search.check_invariants().and_then(|nodes| search.check_proofs(&root).map(|_| nodes)).map_err(|e| e.to_string())
    });
    let mut report = SearchReport::new(&root, &result, search.config());
    // With mode=dist every rank prints its JSON object (the same root statistics), and
    // only rank 0 prints text.
    if args.json {
        report.invariants = invariants.as_ref().map(|check| check.as_ref().map_or_else(Clone::clone, |_| "ok".into()));
        print_json(&report)?;
    } else if rank() == 0 {
        print_text(&report, search.config().arena_capacity());
        if let Some(Ok(nodes)) = &invariants {
            out!("invariants: ok ({nodes} nodes reachable)");
        }
    }
    match invariants {
        Some(Err(violation)) => Err(Failure::runtime(violation)),
        _ => Ok(()),
    }
}

fn print_text(r: &SearchReport, capacity: u64) {
    out!("best move: {}", r.best_move.as_deref().unwrap_or("-"));
    out!(
        "playouts: {}  nodes: {}  max depth: {}  time: {:.1} ms  rate: {:.0} playouts/s{}",
        r.playouts,
        r.nodes,
        r.max_depth,
        r.elapsed_ms,
        r.playouts_per_sec,
        if r.arena_full { "  (arena full: later playouts ran from the leaves)" } else { "" }
    );
    out!("pv: {}", r.pv.join(" "));
    if let Some(proof) = r.proof {
        out!("proven: {proof} for the side to move");
    }
    let mib = |nodes: u64| (nodes * NODE_BYTES as u64) as f64 / (1 << 20) as f64;
    out!(
        "arena: {} of {capacity} nodes used, {NODE_BYTES} bytes per node ({:.1} of {:.1} MiB)",
        r.nodes,
        mib(r.nodes),
        mib(capacity)
    );
    out!("{:>6} {:>10} {:>7} {:>6}", "move", "visits", "value", "proof");
    for c in &r.children {
        out!("{:>6} {:>10} {:>7.3} {:>6}", c.mv, c.visits, c.value, c.proof.unwrap_or("-"));
    }
}
