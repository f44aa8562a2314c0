//! The match harness behind `parmcts match`: two player specs, colours alternating,
//! optional paired random openings, games in parallel, a running tally with Elo and an
//! optional SPRT that stops early. Each game is one [`Referee`]'s; a person at the board
//! (`human`) plays at a console, one game after another.

mod move_times;
mod openings;
mod rank_zero;
mod scoring;
pub mod stats;

use std::ops::ControlFlow;
use std::sync::{Mutex, PoisonError};

use rayon::iter::{ParallelBridge, ParallelIterator};

use crate::alphabeta::Evaluate;
use crate::games::{Game, Outcome, Player, SearchGame};
use crate::harness::interrupt::Interrupt;
use crate::harness::players::{Agent, Console, PlayerError, PlayerSpec, Seat};
use crate::harness::pool::{worker_pool, PoolStartError};
pub use crate::harness::referee::Ending;
use crate::harness::referee::{show_move, Referee, Step};
pub use move_times::{MovePlayouts, MoveTimes};
use openings::{nth_opening, random_opening};
pub use openings::{BadOpenings, Openings, MAX_ALL_OPENINGS, MAX_OPENING_WALK};
pub use rank_zero::RankZeroAgent;
pub use scoring::{read_score, Disagreement};
pub use stats::{BadSprt, Sprt, SprtVerdict, Tally};

/// Match settings.
#[derive(Clone, Debug)]
pub struct MatchConfig {
    /// Games to play (at most; the SPRT may stop earlier).
    pub games: u64,
    /// How games start.
    pub openings: Openings,
    /// Games played at the same time.
    pub parallel_games: usize,
    /// Seed for openings and players.
    pub seed: u64,
    /// Optional early stopping.
    pub sprt: Option<Sprt>,
    /// Stops the match early: no game starts once it is requested, and the games in
    /// progress are dropped (they count for nobody).
    pub interrupt: Interrupt,
    /// A referee engine's command line (`--referee gtp:COMMAND`): it scores the games
    /// whose result a player disputes, and its result counts ([`Disagreement`]).
    pub referee: Option<Vec<String>>,
    /// A handicap game: moves every game starts with, before its opening (Go's handicap
    /// stones, White passing between them), and the second spec (`p2`) takes the side
    /// that moves first, which receives them, in every game; `None`: colours alternate.
    pub handicap: Option<Vec<String>>,
}

impl MatchConfig {
    /// `games` games from `openings`, `parallel_games` at a time, seeded by `seed`:
    /// colours alternating, no early stop, no referee, not interrupted.
    pub fn new(games: u64, openings: Openings, parallel_games: usize, seed: u64) -> MatchConfig {
        let interrupt = Interrupt::default();
        MatchConfig { games, openings, parallel_games, seed, sprt: None, interrupt, referee: None, handicap: None }
    }
}

/// One finished game.
#[derive(Clone, Debug, PartialEq)]
pub struct GameRecord {
    /// Index in the match (0-based).
    pub index: u64,
    /// Whether the first spec (`p1`) moved first.
    pub p1_first: bool,
    /// The random opening, in move text.
    pub opening: Vec<String>,
    /// The moves after the opening.
    pub moves: Vec<String>,
    /// `p1`, `p2` (by spec, not colour) or `draw`.
    pub result: &'static str,
    /// How the game ended.
    pub ending: Ending,
    /// The board's set-up where the game has more than one ([`Game::setup`]).
    pub setup: Option<String>,
    /// Wall time of each move in milliseconds, by spec (`p1`'s, then `p2`'s), in order.
    pub move_ms: [Vec<f64>; 2],
    /// Playouts of each move's search, by spec, in order; empty for a spec that does not
    /// search (alpha-beta, an external engine). With `move_ms`, a player's rate in play.
    pub move_playouts: [Vec<u64>; 2],
    /// The players' scores, where one disputed the rules' result (and then the
    /// referee's, whose result is `result`).
    pub disagreement: Option<Disagreement>,
}

/// A game lost by forfeit, in a [`MatchSummary`].
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Forfeit {
    /// The game's index in the match.
    pub game: u64,
    /// The spec that forfeited: `p1` or `p2`.
    pub by: &'static str,
    /// What went wrong.
    pub reason: String,
}

/// The outcome of a match.
#[derive(Clone, Debug, PartialEq)]
pub struct MatchSummary {
    /// Wins, draws and losses of the first spec.
    pub tally: Tally,
    /// The SPRT's verdict, when one ran.
    pub sprt: Option<(SprtVerdict, f64)>,
    /// How long each spec's moves took (`p1`, `p2`); `None` for a spec that never moved.
    pub move_times: [Option<MoveTimes>; 2],
    /// The games lost by forfeit, in completion order.
    pub forfeits: Vec<Forfeit>,
    /// The game a person at the board quit, which ended the match; it counts for
    /// nobody.
    pub abandoned: Option<u64>,
    /// Whether the match stopped early on [`MatchConfig::interrupt`]: the tally counts
    /// the games finished before it.
    pub interrupted: bool,
    /// The games whose result a player disputed, by index, in completion order.
    pub disagreements: Vec<(u64, Disagreement)>,
}

/// Why a match could not be played.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum MatchError {
    /// `games` was 0.
    ZeroGames,
    /// `parallel_games` was 0.
    ZeroParallelGames,
    /// No opening of this many plies leaves the game unfinished (for `random:R`, none
    /// of 1,000 drawn).
    NoOpening {
        /// The plies asked for.
        plies: u32,
    },
    /// `all:R` asked for more openings than [`MAX_ALL_OPENINGS`], or for a walk of more
    /// positions than [`MAX_OPENING_WALK`] to count them.
    TooManyOpenings {
        /// The plies asked for.
        plies: u32,
    },
    /// A move of the random opening that the rules refuse.
    IllegalMove {
        /// The move, in the game's notation.
        mv: String,
        /// Why the rules refuse it.
        reason: String,
    },
    /// A player could not move.
    Player(PlayerError),
    /// The pool of threads playing the games could not be started.
    ThreadPool(PoolStartError),
    /// A person at the board (`human`) was to play games at the same time.
    HumanInParallel,
}

impl std::fmt::Display for MatchError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            MatchError::ZeroGames => write!(f, "--games must be at least 1"),
            MatchError::ZeroParallelGames => write!(f, "--parallel-games must be at least 1"),
            MatchError::NoOpening { plies } => write!(f, "no opening of {plies} plies leaves the game unfinished"),
            MatchError::TooManyOpenings { plies } => {
                write!(
                    f,
                    "--openings all:{plies}: more than {MAX_ALL_OPENINGS} openings (or {MAX_OPENING_WALK} positions \\
                     to walk to count them); use fewer plies, or random:{plies}"
                )
            }
            MatchError::IllegalMove { mv, reason } => write!(f, "a player chose an illegal move '{mv}': {reason}"),
            MatchError::Player(e) => e.fmt(f),
            MatchError::ThreadPool(e) => e.fmt(f),
            MatchError::HumanInParallel => {
                write!(f, "--parallel-games must be 1 with a human player (a person plays one game at a time)")
            }
        }
    }
}

impl std::error::Error for MatchError {}

/// Distinguishes the referee's dice from the openings' and players' generators.
const DICE_SEEDS: u64 = 0xD1CE_D1CE_0BAD_5EED;

/// How a game of a match ended.
enum Played {
    /// It finished, by the rules, a resignation or a forfeit.
    Finished(Box<GameRecord>),
    /// A person at the board quit it.
    Abandoned,
    /// The match was interrupted while it was being played.
    Interrupted,
}

/// Plays game `index` (the first spec moves first in the even ones, the second in every
/// handicap game).
fn play_game<G: Evaluate + SearchGame>(
    start: &G,
    specs: [&PlayerSpec; 2],
    index: u64,
    config: &MatchConfig,
    console: Option<&Console>,
) -> Result<Played, MatchError> {
    if start.outcome().is_some() {
        return Err(MatchError::Player(PlayerError::GameOver));
    }
    let p1_first = config.handicap.is_none() && index.is_multiple_of(2);
    let handicap = config.handicap.as_deref().unwrap_or_default();
    let from = played(start, handicap)?;
    // A pair of games shares an opening with colours swapped; where colours are fixed (a
    // handicap), each game has its own.
    let opening_index = if config.handicap.is_some() { index } else { index / 2 };
    let (game, opening) = match config.openings {
        Openings::Start => (from, Vec::new()),
        Openings::Random(plies) => random_opening(&from, plies, config.seed ^ opening_index.wrapping_mul(0x9E37_79B9))?,
        Openings::All(plies) => nth_opening(&from, plies, opening_index)?,
    };
    let opening: Vec<String> = handicap.iter().cloned().chain(opening).collect();
    // agents[0] moves for Player::One; `names` are their seats.
    let names = if p1_first { ["p1", "p2"] } else { ["p2", "p1"] };
    let seed = config.seed.wrapping_add(index.wrapping_mul(1_000_003));
    let mut agents = seat_players::<G>(specs, p1_first, seed, console)?;
    // The referee's dice: one sequence per pair, so both colourings of a paired game
    // see the same rolls.
    let mut referee = Referee::new(game, config.seed ^ DICE_SEEDS ^ (index / 2).wrapping_mul(0x9E37_79B9));
    if let Some(console) = console {
        referee = referee.narrated(console.clone(), names);
        let [one, two] = G::MARKS;
        referee.announce(&format!(
            "game {} of {}: {} is {one} and moves first, {} is {two}",
            index + 1,
            config.games,
            names[0],
            names[1]
        ));
    }
    let mut times = GameTimes::default();
    let end = match replay_opening(&mut agents, start, &opening)? {
        Some(refused) => refused,
        None => match referee_game(&mut referee, &mut agents, p1_first, &mut times, &config.interrupt)? {
            Some(end) => end,
            None => return Ok(Played::Interrupted),
        },
    };
    let (outcome, ending) = match end {
        Step::Finished { outcome, ending } => (outcome, ending),
        _ => return Ok(Played::Abandoned),
    };
    let mut moves = referee.moves();
    let (outcome, disagreement) = if ending == Ending::Rules {
        let all: Vec<String> = opening.iter().chain(&moves).cloned().collect();
        let game = (start, &all[..], referee.position());
        scoring::settle(game, outcome, &mut agents, p1_first, config.referee.as_deref())
    } else {
        (outcome, None)
    };
    if ending == Ending::Resignation {
        moves.push("resign".to_string());
    }
    let result = match outcome {
        Outcome::Draw => "draw",
        Outcome::Win(winner) if (winner == Player::One) == p1_first => "p1",
        Outcome::Win(_) => "p2",
    };
    let GameTimes { move_ms, move_playouts } = times;
    Ok(Played::Finished(Box::new(GameRecord {
        index,
        p1_first,
        opening,
        moves,
        result,
        ending,
        setup: start.setup(),
        move_ms,
        move_playouts,
        disagreement,
    })))
}

/// The players of a game by side (`[0]` moves first): `specs` (`p1`, `p2`) in the order
/// `p1_first` says, seeded from `seed`.
fn seat_players<G: Evaluate + SearchGame>(
    specs: [&PlayerSpec; 2],
    p1_first: bool,
    seed: u64,
    console: Option<&Console>,
) -> Result<[Box<dyn Agent<G>>; 2], MatchError> {
    let (first, second) = if p1_first { (specs[0], specs[1]) } else { (specs[1], specs[0]) };
    let labels = if p1_first { ["p1", "p2"] } else { ["p2", "p1"] };
    let build = |spec: &PlayerSpec, other: &PlayerSpec, label, seed| {
        let seat = Seat { label, opponent: other, console };
        let agent = spec.build_seated::<G>(seed, &seat).map_err(MatchError::Player)?;
        Ok(against_distributed(agent, spec, other))
    };
    Ok([build(first, second, labels[0], seed)?, build(second, first, labels[1], seed ^ 0xABCD)?])
}

/// `start` with `moves` (move text) played.
fn played<G: Game>(start: &G, moves: &[String]) -> Result<G, MatchError> {
    let mut game = start.clone();
    for text in moves {
        let mv =
            game.parse_move(text).map_err(|e| MatchError::IllegalMove { mv: text.clone(), reason: e.to_string() })?;
        game.try_play(mv).map_err(|e| MatchError::IllegalMove { mv: text.clone(), reason: e.to_string() })?;
    }
    Ok(game)
}

/// Shows the moves of the opening, played from `start`, to players that keep their own
/// board (external engines); `Some` of the game's end when one fails to follow.
fn replay_opening<G: Game>(
    agents: &mut [Box<dyn Agent<G>>; 2],
    start: &G,
    opening: &[String],
) -> Result<Option<Step>, MatchError> {
    let mut replay = start.clone();
    for text in opening {
        let mv =
            replay.parse_move(text).map_err(|e| MatchError::IllegalMove { mv: text.clone(), reason: e.to_string() })?;
        if let Some(refused) = show_move(agents, &replay, mv).map_err(MatchError::Player)? {
            return Ok(Some(refused));
        }
        replay.play_unchecked(mv);
    }
    Ok(None)
}

/// Each spec's move times and playouts in one game (`p1`'s, then `p2`'s).
#[derive(Default)]
struct GameTimes {
    move_ms: [Vec<f64>; 2],
    move_playouts: [Vec<u64>; 2],
}

/// Runs `referee`'s game to its end (`Step::Finished` or `Step::Abandoned`, returned),
/// timing each move by spec; `None` when `interrupt` is requested first (checked between
/// moves, so that a long game does not hold up the end of the match).
fn referee_game<G: Game>(
    referee: &mut Referee<G>,
    agents: &mut [Box<dyn Agent<G>>; 2],
    p1_first: bool,
    times: &mut GameTimes,
    interrupt: &Interrupt,
) -> Result<Option<Step>, MatchError> {
    loop {
        if interrupt.requested() {
            return Ok(None);
        }
        match referee.step(agents).map_err(MatchError::Player)? {
            Step::Played { mover, thought, .. } => {
                // agents[0] is p1's exactly when p1 moves first.
                let spec = usize::from((mover == Player::One) != p1_first);
                times.move_ms[spec].push(thought.as_secs_f64() * 1e3);
                if let Some(search) = agents[mover.index()].last_search() {
                    times.move_playouts[spec].push(search.playouts);
                }
            }
            Step::Rolled(_) | Step::TookBack { .. } => {}
            end @ (Step::Finished { .. } | Step::Abandoned { .. }) => return Ok(Some(end)),
        }
    }
}

/// `agent`, played by `spec` against `other`: against a distributed player (which every
/// MPI rank plays in lockstep, `mode=dist`) a player of one process moves on rank 0 only
/// and its moves go to every rank ([`RankZeroAgent`]), so it may have a time budget and
/// searches on one core.
fn against_distributed<G: Game>(agent: Box<dyn Agent<G>>, spec: &PlayerSpec, other: &PlayerSpec) -> Box<dyn Agent<G>> {
    if spec.distributed().is_none() && other.distributed().is_some() {
        return Box::new(RankZeroAgent::new(agent));
    }
    agent
}

/// What the games of a match have gathered so far, shared by the pool's threads.
#[derive(Default)]
struct Progress {
    tally: Tally,
    /// The first error, in completion order; the match stops when there is one.
    error: Option<MatchError>,
    /// Every move's wall time in milliseconds, by spec (`p1`'s, then `p2`'s).
    move_ms: [Vec<f64>; 2],
    /// Every move's playouts, by spec, for a spec that searches.
    move_playouts: [Vec<u64>; 2],
    /// The games lost by forfeit.
    forfeits: Vec<Forfeit>,
    /// The game a person at the board quit.
    abandoned: Option<u64>,
    /// Whether the match stopped on its interrupt.
    interrupted: bool,
    /// The games whose result a player disputed.
    disagreements: Vec<(u64, Disagreement)>,
}

impl Progress {
    /// Counts game `index` if it finished, shows it to `on_game` and says whether to
    /// stop (an error, an abandoned or interrupted game, or an SPRT verdict).
    fn record(
        &mut self,
        index: u64,
        played: Result<Played, MatchError>,
        config: &MatchConfig,
        on_game: &impl Fn(&GameRecord, &Tally),
    ) -> ControlFlow<()> {
        let record = match played {
            Ok(Played::Finished(record)) => *record,
            Ok(Played::Abandoned) => {
                self.abandoned.get_or_insert(index);
                return ControlFlow::Break(());
            }
            Ok(Played::Interrupted) => {
                self.interrupted = true;
                return ControlFlow::Break(());
            }
            Err(e) => {
                self.error.get_or_insert(e);
                return ControlFlow::Break(());
            }
        };
        match record.result {
            "p1" => self.tally.wins += 1,
            "p2" => self.tally.losses += 1,
            _ => self.tally.draws += 1,
        }
        if let Ending::Forfeit { reason } = &record.ending {
            // The loser forfeited: the spec that did not win.
            let by = if record.result == "p1" { "p2" } else { "p1" };
            self.forfeits.push(Forfeit { game: record.index, by, reason: reason.clone() });
        }
        if let Some(disagreement) = &record.disagreement {
            self.disagreements.push((record.index, disagreement.clone()));
        }
        on_game(&record, &self.tally);
        for (all, game) in self.move_ms.iter_mut().zip(&record.move_ms) {
            all.extend_from_slice(game);
        }
        for (all, game) in self.move_playouts.iter_mut().zip(&record.move_playouts) {
            all.extend_from_slice(game);
        }
        match config.sprt {
            Some(sprt) if sprt.verdict(&self.tally) != SprtVerdict::Continue => ControlFlow::Break(()),
            _ => ControlFlow::Continue(()),
        }
    }
}

/// Plays a match between `p1` and `p2` from `start`. `on_game` sees each finished game
/// with the tally so far (for progress and records), in completion order.
///
/// The games run on a rayon pool of `parallel_games` threads (at most one per game); with
/// one, on the calling thread.
/// They are handed out in index order, one at a time, to whichever thread is free, so a
/// match that the SPRT stops early has played the first games (and those in flight
/// then finish and count). A game's opening and its players' seeds depend only on its
/// index and the seed, so players that are deterministic given their seed (no time
/// budget, one search thread) play the same games whatever the number of threads.
///
/// Once [`MatchConfig::interrupt`] is requested no game starts, the games in progress
/// are dropped between two moves, and the summary counts the games finished before
/// ([`MatchSummary::interrupted`]).
///
/// # Errors
/// [`MatchError`] for impossible settings, a player that cannot search, or a pool whose
/// threads could not be started.
pub fn run_match<G: Evaluate + SearchGame>(
    start: &G,
    p1: &PlayerSpec,
    p2: &PlayerSpec,
    config: &MatchConfig,
    on_game: impl Fn(&GameRecord, &Tally) + Sync,
) -> Result<MatchSummary, MatchError> {
    if start.outcome().is_some() {
        return Err(MatchError::Player(PlayerError::GameOver));
    }
    run_match_from(|_| start.clone(), p1, p2, config, on_game)
}

/// [`run_match_from`] with a console for people at the board: a `human` spec plays
/// there, and every game is drawn there, ply by ply (a person sees the other side's
/// moves). With a `human` spec the games are played one after another (more than one
/// at a time is [`MatchError::HumanInParallel`]); a person's `quit` ends the game and
/// the match ([`MatchSummary::abandoned`]; the game counts for nobody).
///
/// # Errors
/// As [`run_match_from`]; [`PlayerError::NeedsConsole`] for a `human` spec without a
/// console.
pub fn run_match_with_console<G: Evaluate + SearchGame>(
    start: impl Fn(u64) -> G + Sync,
    p1: &PlayerSpec,
    p2: &PlayerSpec,
    config: &MatchConfig,
    console: Option<&Console>,
    on_game: impl Fn(&GameRecord, &Tally) + Sync,
) -> Result<MatchSummary, MatchError> {
    if config.games == 0 {
        return Err(MatchError::ZeroGames);
    }
    if config.parallel_games == 0 {
        return Err(MatchError::ZeroParallelGames);
    }
    let threads = config.parallel_games.min(usize::try_from(config.games).unwrap_or(usize::MAX));
    if threads > 1 && (p1.is_human() || p2.is_human()) {
        return Err(MatchError::HumanInParallel);
    }
    let progress = Mutex::new(Progress::default());
    if threads == 1 {
        // One game at a time on the calling thread (a distributed player's searches must
        // stay on the thread that initialised MPI).
        for index in 0..config.games {
            let record = if config.interrupt.requested() {
                Ok(Played::Interrupted)
            } else {
                play_game(&start(index / 2), [p1, p2], index, config, console)
            };
            let flow = progress.lock().unwrap_or_else(PoisonError::into_inner).record(index, record, config, &on_game);
            if flow.is_break() {
                break;
            }
        }
        return summarise(progress, config);
    }
    let pool = worker_pool(threads).map_err(MatchError::ThreadPool)?;
    // `par_bridge` takes the indices from the range one at a time, in order, as threads
    // come free; a `Break` stops the handing out (games in flight finish and count,
    // unless interrupted).
    // The tally, the callback and the decision to stop are behind one lock, so each
    // game sees the tally with itself counted and the games before it in completion.
    // Whether the match stopped early is read from `progress` below.
    let _: ControlFlow<()> = pool.install(|| {
        (0..config.games).par_bridge().try_for_each(|index| {
            let record = if config.interrupt.requested() {
                Ok(Played::Interrupted)
            } else {
                play_game(&start(index / 2), [p1, p2], index, config, console)
            };
            progress.lock().unwrap_or_else(PoisonError::into_inner).record(index, record, config, &on_game)
        })
    });
    summarise(progress, config)
}

/// [`run_match`] with a start position per pair of games: games `2k` and `2k + 1` (the
/// two colourings) start from `start(k)`, which must depend on `k` alone so that a match
/// is reproducible (Connect Four's random variant boards, drawn from the seed and `k`).
///
/// # Errors
/// As [`run_match`]; a start position that is already over is
/// [`PlayerError::GameOver`].
pub fn run_match_from<G: Evaluate + SearchGame>(
    start: impl Fn(u64) -> G + Sync,
    p1: &PlayerSpec,
    p2: &PlayerSpec,
    config: &MatchConfig,
    on_game: impl Fn(&GameRecord, &Tally) + Sync,
) -> Result<MatchSummary, MatchError> {
    run_match_with_console(start, p1, p2, config, None, on_game)
}

/// The summary of a match from its progress.
fn summarise(progress: Mutex<Progress>, config: &MatchConfig) -> Result<MatchSummary, MatchError> {
    let Progress {
        tally,
        error,
        move_ms: [p1_ms, p2_ms],
        move_playouts: [p1_playouts, p2_playouts],
        forfeits,
        abandoned,
        interrupted,
        disagreements,
    } = progress.into_inner().unwrap_or_else(PoisonError::into_inner);
    if let Some(e) = error {
        return Err(e);
    }
    let sprt = config.sprt.map(|s| (s.verdict(&tally), s.llr(&tally)));
    Ok(MatchSummary {
        tally,
        sprt,
        move_times: [MoveTimes::of(p1_ms, p1_playouts), MoveTimes::of(p2_ms, p2_playouts)],
        forfeits,
        abandoned,
        interrupted,
        disagreements,
    })
}
