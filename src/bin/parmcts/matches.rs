//! `parmcts match`: a match between two players.

use std::io::Write as _;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use clap::Args;

use parmcts::alphabeta::Evaluate;
use parmcts::gtp::sgf::{self, Decision, GameToRecord, RecordWriter};
use parmcts::gtp::GtpGame;
use parmcts::harness::matches::{run_match_with_console, Ending, GameRecord, MatchConfig, Openings, Sprt, Tally};
use parmcts::harness::players::PlayerSpec;
use parmcts::harness::report::{MatchReport, MoveTimesReport, RecordLine};
use parmcts::{with_game, ConnectFourBoard, Einstein, GameKind, Go13, Go19, Go9};
use parmcts::{Player, SearchGame};

use crate::common::{
    at_least_one, cluster_for, game_parser, out, parse_position, parse_spec, print_json, progress_bar, rank,
    BoardFlags, Failure,
};
use crate::interrupt;
use crate::play::{console, SPEC_HELP};

#[derive(Args, Debug)]
#[command(after_help = SPEC_HELP)]
pub struct MatchArgs {
    /// The game.
    #[arg(long, value_parser = game_parser())]
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
    /// `start`; `random:R`: each pair of games starts from the same R random plies; or
    /// `all:R`: every opening of R plies in turn, one per pair (games a multiple of twice
    /// their number play each equally).
    #[arg(long, default_value = "start")]
    openings: String,
    /// Games played at the same time.
    #[arg(long = "parallel-games", default_value_t = 1)]
    parallel_games: usize,
    /// Seed for openings and players.
    #[arg(long, default_value_t = 0)]
    seed: u64,
    #[command(flatten)]
    board: BoardFlags,
    /// `random`: each pair of games gets, from the seed, a random Connect Four board
    /// (width and height in 9-12, one blocked cell), or
    /// EinStein arrangements of both sides' pieces.
    #[arg(long, help_heading = "Connect Four board")]
    variant: Option<String>,
    /// Append one JSON line per game to this file.
    #[arg(long)]
    records: Option<PathBuf>,
    /// Write each game as an SGF record (Go and Othello) into this folder, as
    /// `game-NNNN.sgf`; the folder is created if need be.
    #[arg(long)]
    sgf: Option<PathBuf>,
    /// Stop early: `elo0,elo1[,alpha,beta]`.
    #[arg(long)]
    sprt: Option<String>,
    /// A referee engine, `gtp:COMMAND`: it scores (GTP `final_score`) the games whose
    /// result a player's own `final_score` disputes, and its result counts.
    #[arg(long)]
    referee: Option<String>,
    /// Go: the komi White receives [default: 7].
    #[arg(long, help_heading = "Go")]
    komi: Option<f32>,
    /// Go: a handicap game, `p2` taking Black with N stones in GTP's fixed layout (White
    /// passing between them, then to move) in every game; give `--komi` too (0.5 is
    /// usual). The opening's plies follow the stones.
    #[arg(long, help_heading = "Go")]
    handicap: Option<u32>,
    /// Print one JSON object.
    #[arg(long)]
    json: bool,
}

pub fn run(args: &MatchArgs) -> Result<(), Failure> {
    if args.komi.is_some() || args.handicap.is_some() {
        return match args.game {
            GameKind::Go => go_match::<Go9>(args),
            GameKind::Go13 => go_match::<Go13>(args),
            GameKind::Go19 => go_match::<Go19>(args),
            other => {
                let flag = if args.komi.is_some() { "--komi" } else { "--handicap" };
                Err(Failure::flag(flag, format!("only Go has a komi and handicaps (not {other})")))
            }
        };
    }
    match args.variant.as_deref() {
        None => {}
        Some("random") if args.board.given() => {
            return Err(Failure::flag("--variant", "random draws the board: give no --width, --height or --blocked"));
        }
        Some("random") if matches!(args.game, GameKind::ConnectFour | GameKind::ConnectFourBoard) => {
            let seed = args.seed;
            let start =
                move |pair: u64| ConnectFourBoard::variant_from_seed(seed ^ pair.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            return run_game::<ConnectFourBoard>(args, start, None);
        }
        Some("random") if args.game == GameKind::Einstein => {
            let seed = args.seed;
            let start = move |pair: u64| Einstein::setup_from_seed(seed ^ pair.wrapping_mul(0x9E37_79B9_7F4A_7C15));
            return run_game::<Einstein>(args, start, None);
        }
        Some("random") => {
            return Err(Failure::flag(
                "--variant",
                format!("only Connect Four and EinStein have variants (not '{}')", args.game),
            ));
        }
        Some(other) => return Err(Failure::flag("--variant", format!("bad value '{other}' (expected random)"))),
    }
    let (game, moves) = args.board.resolve(args.game, "")?;
    with_game!(game, G => {
        let start = parse_position::<G>(&moves)?;
        run_game::<G>(args, same_start(start), None)
    })
}

/// A Go match with `--komi` or `--handicap`: the stones, then White, passing between
/// them.
fn go_match<G: Evaluate + SearchGame + GtpGame>(args: &MatchArgs) -> Result<(), Failure> {
    if args.variant.is_some() || args.board.given() {
        return Err(Failure::flag("--variant", "Go has no variants nor Connect Four boards"));
    }
    let mut start = parse_position::<G>("")?;
    if let Some(komi) = args.komi {
        if !komi.is_finite() || komi.abs() > 150.0 {
            return Err(Failure::flag("--komi", format!("{komi} (expected a number of points in [-150, 150])")));
        }
        start.set_komi(komi);
    }
    let handicap = match args.handicap {
        None => None,
        Some(stones) => {
            let layout = G::handicap_layout(stones).ok_or_else(|| {
                let size = G::BOARD_SIZE;
                Failure::flag("--handicap", format!("{stones} stones: {size}x{size} Go has no fixed layout of so many"))
            })?;
            let mut moves = Vec::new();
            for point in layout {
                if !moves.is_empty() {
                    moves.push("pass".to_string());
                }
                moves.push(start.format_move(point));
            }
            Some(moves)
        }
    };
    run_game::<G>(args, same_start(start), handicap)
}

/// The command line of `--referee`'s `gtp:COMMAND` engine.
fn referee_command(spec: &str) -> Result<Vec<String>, Failure> {
    match parse_spec("--referee", spec)? {
        PlayerSpec::Gtp(command) => Ok(command),
        _ => Err(Failure::flag("--referee", format!("'{spec}' is no engine: give gtp:COMMAND"))),
    }
}

/// Every game from `start`.
fn same_start<G: Clone + Sync>(start: G) -> impl Fn(u64) -> G + Sync {
    move |_| start.clone()
}

fn run_game<G: Evaluate + SearchGame>(
    args: &MatchArgs,
    start: impl Fn(u64) -> G + Sync,
    handicap: Option<Vec<String>>,
) -> Result<(), Failure> {
    let p1 = parse_spec("--p1", &args.p1)?;
    let p2 = parse_spec("--p2", &args.p2)?;
    let openings: Openings = args.openings.parse().map_err(Failure::input)?;
    let sprt = args.sprt.as_deref().map(Sprt::parse).transpose().map_err(Failure::input)?;
    at_least_one("--games", args.games)?;
    at_least_one("--parallel-games", args.parallel_games as u64)?;
    // A distributed player (mode=dist): every rank plays the match in lockstep, its
    // searches together, one game at a time on this thread; rank 0 reports.
    let dist = [&p1, &p2].into_iter().find_map(PlayerSpec::distributed);
    let _cluster = match dist {
        Some(_) if args.parallel_games != 1 => {
            return Err(Failure::flag("--parallel-games", "must be 1 with a distributed player (mode=dist)"));
        }
        Some(config) => cluster_for(config)?,
        None => None,
    };
    let kept = Kept::open(args)?;
    // Each finished game is on disk (records, SGF) before the next one counts: an
    // interrupted match loses only the games in progress.
    let interrupt = interrupt::catch()?;
    let config = MatchConfig {
        games: args.games,
        openings,
        parallel_games: args.parallel_games,
        seed: args.seed,
        sprt,
        interrupt,
        referee: args.referee.as_deref().map(referee_command).transpose()?,
        handicap,
    };
    // A person at the board plays at a console (stdout, or stderr with --json), where the
    // games are drawn: no progress bar then.
    let console = if p1.is_human() || p2.is_human() { console(true, args.json) } else { None };
    let bar = progress_bar(
        Some(args.games),
        "{bar:40} {pos}/{len} games  {msg}  [{elapsed_precise} < {eta_precise}]",
        rank() != 0 || console.is_some(),
    );
    let summary = run_match_with_console(start, &p1, &p2, &config, console.as_ref(), |record, tally| {
        bar.inc(1);
        if let Some(console) = &console {
            console.say(&game_line(record, tally));
        }
        bar.set_message(format!("+{} ={} -{}  elo {:+.0}", tally.wins, tally.draws, tally.losses, tally.elo()));
        kept.write(record, args);
    })?;
    bar.finish_and_clear();
    kept.finish()?;
    let budget_ms = |spec: &parmcts::harness::players::PlayerSpec| spec.time_budget().map(|b| b.as_secs_f64() * 1e3);
    let report = MatchReport::new::<G>(&args.p1, &args.p2, &summary, [budget_ms(&p1), budget_ms(&p2)]);
    if rank() != 0 {
        return Ok(());
    }
    if let (Some(console), Some(game)) = (&console, summary.abandoned) {
        let finished = summary.tally.games();
        console.say(&format!("game {} abandoned: the match ends with {finished} games finished", game + 1));
    }
    if args.json {
        return print_json(&report);
    }
    print_text(&report);
    if report.interrupted {
        out!("interrupted after {} of {} games", report.games, args.games);
    }
    Ok(())
}

/// Where the finished games are kept: the `--records` file and the `--sgf` folder, and
/// the first error writing to them.
struct Kept {
    records: Option<Mutex<std::fs::File>>,
    sgf: Option<(RecordWriter, PathBuf)>,
    error: Mutex<Option<String>>,
}

impl Kept {
    fn open(args: &MatchArgs) -> Result<Kept, Failure> {
        let sgf = match &args.sgf {
            Some(dir) => Some(sgf_folder(args.game, dir)?),
            None => None,
        };
        Ok(Kept { records: records_file(args)?, sgf, error: Mutex::new(None) })
    }

    /// Writes a finished game: its line to the (unbuffered) records file, its SGF file.
    fn write(&self, record: &GameRecord, args: &MatchArgs) {
        if let Some(file) = &self.records {
            let line = serde_json::to_string(&RecordLine::new(record, [&args.p1, &args.p2]));
            let mut file = file.lock().unwrap_or_else(|e| e.into_inner());
            if let Err(e) = line
                .map_err(|e| e.to_string())
                // One write per line: a quit mid-match leaves no half line.
                .and_then(|l| file.write_all(format!("{l}\n").as_bytes()).map_err(|e| e.to_string()))
                .map_err(|e| format!("--records: {e}"))
            {
                self.error.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(e);
            }
        }
        if let Some((writer, dir)) = &self.sgf {
            if let Err(e) = write_sgf(*writer, dir, record, [&args.p1, &args.p2], args.seed) {
                self.error.lock().unwrap_or_else(|e| e.into_inner()).get_or_insert(e);
            }
        }
    }

    /// The first error writing a game, if any.
    fn finish(self) -> Result<(), Failure> {
        match self.error.into_inner().unwrap_or_else(|e| e.into_inner()) {
            Some(e) => Err(Failure::runtime(e)),
            None => Ok(()),
        }
    }
}

/// The `--records` file, opened for appending (on rank 0 only).
fn records_file(args: &MatchArgs) -> Result<Option<Mutex<std::fs::File>>, Failure> {
    match &args.records {
        Some(path) if rank() == 0 => {
            let file = std::fs::OpenOptions::new().create(true).append(true).open(path);
            let file = file.map_err(|e| Failure::flag("--records", format!("'{}': {e}", path.display())))?;
            Ok(Some(Mutex::new(file)))
        }
        _ => Ok(None),
    }
}

/// A finished game's line for the people at the board: `game 1: p2 wins (rules); p1 0, p2 1, draws 0`.
fn game_line(record: &GameRecord, tally: &Tally) -> String {
    let result = match record.result {
        "draw" => "a draw".to_string(),
        winner => format!("{winner} wins"),
    };
    let ending = match &record.ending {
        Ending::Forfeit { reason } => format!("forfeit: {reason}"),
        ending => ending.name().to_string(),
    };
    let (p1, p2, draws) = (tally.wins, tally.losses, tally.draws);
    format!("game {}: {result} ({ending}); so far p1 {p1}, p2 {p2}, draws {draws}", record.index + 1)
}

/// The SGF writer of `game` and the folder `dir`, created.
fn sgf_folder(game: GameKind, dir: &Path) -> Result<(RecordWriter, PathBuf), Failure> {
    let writer = sgf::writer_for(game).ok_or_else(|| {
        let names: Vec<&str> =
            GameKind::ALL.iter().filter(|k| sgf::writer_for(**k).is_some()).map(|k| k.name()).collect();
        Failure::flag("--sgf", format!("SGF records are written for {}, not {}", names.join(", "), game.name()))
    })?;
    std::fs::create_dir_all(dir).map_err(|e| Failure::flag("--sgf", format!("'{}': {e}", dir.display())))?;
    Ok((writer, dir.to_path_buf()))
}

/// Writes `record`'s SGF file into `dir`.
fn write_sgf(writer: RecordWriter, dir: &Path, record: &GameRecord, specs: [&str; 2], seed: u64) -> Result<(), String> {
    // Black is the spec that moved first.
    let (black, white) = if record.p1_first { (specs[0], specs[1]) } else { (specs[1], specs[0]) };
    let winner = match record.result {
        "p1" if record.p1_first => Player::One,
        "p2" if !record.p1_first => Player::One,
        _ => Player::Two,
    };
    let decision = match &record.ending {
        Ending::Rules => Decision::Rules,
        Ending::Resignation => Decision::Resignation { winner },
        Ending::Forfeit { reason } => Decision::Forfeit { winner, reason },
    };
    let moves: Vec<String> = record.opening.iter().chain(&record.moves).cloned().collect();
    let comment = format!("parmcts match, game {} (seed {seed}), {} opening plies", record.index, record.opening.len());
    let game = GameToRecord { players: [black, white], moves: &moves, decision, comment: Some(&comment) };
    let text = writer(&game).map_err(|e| format!("--sgf: game {}: {e}", record.index))?;
    let path = dir.join(format!("game-{:04}.sgf", record.index));
    std::fs::write(&path, text).map_err(|e| format!("--sgf: '{}': {e}", path.display()))
}

fn print_text(r: &MatchReport) {
    out!("{} vs {} in {} ({} games)", r.p1, r.p2, r.game, r.games);
    out!("p1 wins {}  draws {}  p2 wins {}", r.p1_wins, r.draws, r.p2_wins);
    let ([slo, shi], [elo_lo, elo_hi]) = (r.score_ci95, r.elo_ci95);
    if r.games > 0 {
        out!("score {:.3} [{slo:.3}, {shi:.3}]  elo {:+.1} [{elo_lo:+.1}, {elo_hi:+.1}] (95 %)", r.score, r.elo);
    }
    for f in &r.forfeits {
        out!("game {}: {} forfeited: {}", f.game, f.by, f.reason);
    }
    for d in &r.disagreements {
        let scores = &d.scores;
        let said = |key: &str, i: usize| {
            let answer = scores.said[i].as_ref()?;
            let dead = scores.dead[i].as_deref().filter(|d| !d.is_empty()).map(|d| format!(" (dead: {d})"));
            Some(format!(", {key} said {answer}{}", dead.unwrap_or_default()))
        };
        let referee = scores.referee.as_ref().map(|a| format!(", the referee said {a}"));
        out!(
            "game {}: the score disputed: rules {}{}{}{}",
            d.game,
            scores.rules,
            said("p1", 0).unwrap_or_default(),
            said("p2", 1).unwrap_or_default(),
            referee.unwrap_or_default()
        );
    }
    if let Some(sprt) = &r.sprt {
        out!("sprt: {} (llr {:.2})", sprt.verdict, sprt.llr);
    }
    for (key, t) in &r.move_times {
        out!(
            "{key} move time over {} moves: median {:.3} ms, p99 {:.3} ms, max {:.3} ms{}",
            t.moves,
            t.median_ms,
            t.p99_ms,
            t.max_ms,
            budget_note(t)
        );
        if let (Some(median), Some(rate)) = (t.median_playouts, t.playouts_per_s) {
            out!("{key} playouts a move: median {median}, median rate {rate:.0} playouts/s");
        }
    }
}

/// How the move times compare with the budget: the overruns where there are any.
fn budget_note(t: &MoveTimesReport) -> String {
    let Some(budget) = t.budget_ms else { return String::new() };
    if t.max_ms <= budget {
        return format!("; never over the {budget} ms budget");
    }
    let over = |x: f64| if x > budget { format!("+{:.3} ms", x - budget) } else { "within".to_string() };
    format!(
        "; over the {budget} ms budget: median {}, p99 {}, max {}",
        over(t.median_ms),
        over(t.p99_ms),
        over(t.max_ms)
    )
}
