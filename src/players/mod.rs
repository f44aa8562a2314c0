//! Players behind one trait ([`Agent`]), built from text specs such as
//! `mcts:playouts=10000,c=1.4`, `mcts:time-ms=500,mode=tree,threads=4`, `random`,
//! `minimax:depth=4`, `alphabeta:depth=6`, `alphabeta:time-ms=200`,
//! `alphabeta:depth=4,eval=network` (the depth cut-off scored by the game's shipped
//! n-tuple network; `eval=FILE` for a network file, `eval=heuristic` the default), or
//! `expectimax:depth=3` / `expectimax:time-ms=200` (expectimax with Star1 pruning, the
//! baseline for games with dice: [`crate::expectimax`]).
//!
//! The keys of an `mcts:` spec are the same as the `search` command's flags: both go
//! through [`crate::search::SETTINGS`], so a flag and a spec key can never disagree.

use std::fmt;
use std::sync::Arc;
use std::time::Duration;

use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::alphabeta::{minimax, AbError, AlphaBeta, Evaluate, Limits};
use crate::evaluator::{NTupleNetwork, NetworkError};
use crate::expectimax::{Expectimax, ExpectimaxError, MAX_DEPTH as EXPECTIMAX_MAX_DEPTH};
use crate::games::{random_below, Game, Move, SearchGame};
use crate::gtp::client::{ClientError, GtpClient};
use crate::gtp::game::colour_name;
use crate::search::{ConfigError, Search, SearchConfig, SearchError, SearchResult, SettingError};
use crate::solver::{solved_to_play, Endgame, Solved};

/// A bad player spec, naming the bad part.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum SpecError {
    /// The player kind is not `random`, `mcts`, `minimax`, `alphabeta`, `expectimax` or
    /// `gtp`.
    UnknownPlayer(String),
    /// An option is not `key=value`.
    MalformedOption {
        /// The whole spec.
        spec: String,
        /// The bad option.
        option: String,
    },
    /// The player takes no such option.
    UnknownOption {
        /// The player kind.
        player: &'static str,
        /// The key given.
        key: String,
        /// The keys it takes.
        expected: &'static str,
    },
    /// A value that does not parse.
    BadValue {
        /// The key.
        key: String,
        /// The value given.
        value: String,
    },
    /// A key given twice.
    Repeated(String),
    /// A required option is missing or zero.
    Missing {
        /// The whole spec.
        spec: String,
        /// What is needed.
        needs: &'static str,
    },
    /// An `mcts` option that the search settings reject.
    Setting(SettingError),
    /// An `mcts` spec whose search configuration is invalid.
    Config {
        /// The whole spec.
        spec: String,
        /// Why.
        error: ConfigError,
    },
}

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SpecError::UnknownPlayer(text) => write!(
                f,
                "unknown player '{text}' (expected random, mcts:key=value,..., minimax:depth=D, alphabeta:..., \
                 expectimax:depth=D|time-ms=T or gtp:COMMAND)"
            ),
            SpecError::MalformedOption { spec, option } => {
                write!(f, "bad option '{option}' in '{spec}' (expected key=value)")
            }
            SpecError::UnknownOption { player, key, expected } => {
                write!(f, "unknown option '{key}' for {player} (expected {expected})")
            }
            SpecError::BadValue { key, value } => write!(f, "bad value '{value}' for {key}"),
            SpecError::Repeated(key) => write!(f, "{key} given twice"),
            SpecError::Missing { spec, needs } => write!(f, "player '{spec}': {needs}"),
            SpecError::Setting(e) => e.fmt(f),
            SpecError::Config { spec, error } => write!(f, "player '{spec}': {error}"),
        }
    }
}

impl std::error::Error for SpecError {}

fn parse_num<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, SpecError> {
    value.parse().map_err(|_| SpecError::BadValue { key: key.to_string(), value: value.to_string() })
}

/// Why a player could not move.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum PlayerError {
    /// The MCTS player's search failed.
    Search(SearchError),
    /// The alpha-beta player's search failed.
    AlphaBeta(AbError),
    /// The expectimax player's search failed.
    Expectimax(ExpectimaxError),
    /// A player was asked to move at a chance turn, where the referee rolls.
    ChanceToMove,
    /// The position is already over.
    GameOver,
    /// A minimax or alpha-beta player was asked for a game without a heuristic
    /// evaluation ([`PlayerSpec::build`] builds random and MCTS players only).
    NeedsEvaluation(&'static str),
    /// An alpha-beta player's network (`eval=network` or `eval=FILE`) cannot be used.
    Network(NetworkError),
    /// An external engine (`gtp:COMMAND`) failed: it did not start, exited, timed out or
    /// refused a command.
    Gtp(ClientError),
    /// An external engine answered `genmove` with text that is not a move of the game.
    GtpMove {
        /// Its answer.
        reply: String,
        /// Why it is not a move.
        reason: String,
    },
    /// The player resigned (an external engine answered `genmove` with `resign`).
    Resigned,
    /// A minimax or alpha-beta player was asked for a game with chance turns, which
    /// they do not search (no chance nodes).
    ChanceTurns(&'static str),
    /// The player, played on MPI rank 0 for every rank (the other side of a distributed
    /// player's match), failed there: rank 0 reports how; `forfeit` as
    /// [`PlayerError::forfeits`] said of it.
    OnRankZero {
        /// Whether its error lost it the game.
        forfeit: bool,
    },
}

impl PlayerError {
    /// Whether this error loses the player the game rather than stopping the match: the
    /// failures of an external engine (a crash, a time-out, a reply that is not a move, a
    /// refused move). An engine that cannot be started at all is a bad command line, and
    /// errors of the crate's own players are bugs or bad settings: those stop the match.
    pub fn forfeits(&self) -> bool {
        match self {
            PlayerError::Gtp(ClientError::Spawn { .. }) => false,
            PlayerError::Gtp(_) | PlayerError::GtpMove { .. } => true,
            PlayerError::OnRankZero { forfeit } => *forfeit,
            _ => false,
        }
    }
}

impl fmt::Display for PlayerError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlayerError::Search(e) => e.fmt(f),
            PlayerError::AlphaBeta(e) => e.fmt(f),
            PlayerError::Expectimax(e) => e.fmt(f),
            PlayerError::ChanceToMove => write!(f, "asked for a move at a chance turn (the referee rolls the die)"),
            PlayerError::GameOver => write!(f, "the game is already over"),
            PlayerError::NeedsEvaluation(kind) => {
                write!(f, "a {kind} player needs the game's heuristic evaluation (build_with_evaluation)")
            }
            PlayerError::Network(e) => write!(f, "alphabeta eval: {e}"),
            PlayerError::Gtp(e) => write!(f, "gtp player: {e}"),
            PlayerError::GtpMove { reply, reason } => write!(f, "gtp player answered '{reply}': {reason}"),
            PlayerError::Resigned => write!(f, "the player resigned"),
            PlayerError::OnRankZero { .. } => write!(f, "the player failed on MPI rank 0 (reported there)"),
            PlayerError::ChanceTurns(game) => {
                write!(
                    f,
                    "minimax and alphabeta players do not search chance turns ({game} has dice): \
                     use expectimax, mcts or random"
                )
            }
        }
    }
}

impl std::error::Error for PlayerError {}

impl From<SearchError> for PlayerError {
    fn from(e: SearchError) -> Self {
        PlayerError::Search(e)
    }
}

impl From<NetworkError> for PlayerError {
    fn from(e: NetworkError) -> Self {
        PlayerError::Network(e)
    }
}

impl From<ExpectimaxError> for PlayerError {
    fn from(e: ExpectimaxError) -> Self {
        PlayerError::Expectimax(e)
    }
}

impl From<AbError> for PlayerError {
    fn from(e: AbError) -> Self {
        PlayerError::AlphaBeta(e)
    }
}

/// Default transposition table of an alpha-beta player, in MiB.
pub const DEFAULT_TT_MB: usize = 16;

/// A parsed player spec.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerSpec {
    /// Uniformly random legal moves.
    Random,
    /// Monte Carlo Tree Search with this configuration.
    Mcts(SearchConfig),
    /// Plain negamax to a fixed depth (the reference baseline).
    Minimax {
        /// Plies.
        depth: u32,
    },
    /// Alpha-beta with iterative deepening and a transposition table.
    AlphaBeta {
        /// Depth and/or time limit per move.
        limits: Limits,
        /// Transposition table size in MiB.
        tt_mb: usize,
        /// What scores the depth cut-off.
        eval: EvalSpec,
        /// Node budget of the game's exact solver, tried before searching (0: off).
        endgame: u64,
    },
    /// Expectimax with Star1 pruning and iterative deepening ([`Expectimax`]): the
    /// baseline for games with chance turns, and alpha-beta for the others.
    Expectimax {
        /// Depth (player plies) and/or time limit per move.
        limits: Limits,
    },
    /// An external engine over GTP (`gtp:COMMAND LINE`): the program and its arguments.
    Gtp(Vec<String>),
}

/// What scores an alpha-beta player's depth cut-off (its `eval=` key).
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum EvalSpec {
    /// The game's hand-written [`Evaluate`] (`eval=heuristic`, the default).
    #[default]
    Heuristic,
    /// The game's shipped n-tuple network (`eval=network`;
    /// [`NTupleNetwork::shipped`]).
    Network,
    /// An n-tuple network file (`eval=FILE`).
    File(String),
}

impl EvalSpec {
    fn parse(value: &str) -> Result<EvalSpec, SpecError> {
        Ok(match value {
            "heuristic" => EvalSpec::Heuristic,
            "network" => EvalSpec::Network,
            "" => return Err(SpecError::BadValue { key: "eval".to_string(), value: value.to_string() }),
            path => EvalSpec::File(path.to_string()),
        })
    }

    /// Loads the network this spec names for `G` (`None` for the heuristic).
    ///
    /// # Errors
    /// [`NetworkError::NoShippedNetwork`] for `network` in a game that ships none; the
    /// file's or the check's error for `FILE`.
    pub fn network<G: SearchGame>(&self) -> Result<Option<Arc<NTupleNetwork>>, NetworkError> {
        match self {
            EvalSpec::Heuristic => Ok(None),
            EvalSpec::Network => match NTupleNetwork::shipped::<G>() {
                Some(network) => network.map(Some),
                None => Err(NetworkError::NoShippedNetwork { game: G::NAME }),
            },
            EvalSpec::File(path) => NTupleNetwork::load_for::<G>(path).map(|n| Some(Arc::new(n))),
        }
    }
}

/// Splits `key=value,...` options, naming the first malformed or repeated one.
fn options<'a>(text: &'a str, options: &'a str) -> Result<Vec<(&'a str, &'a str)>, SpecError> {
    let pairs: Vec<(&str, &str)> = options
        .split(',')
        .filter(|p| !p.is_empty())
        .map(|pair| {
            pair.split_once('=')
                .ok_or_else(|| SpecError::MalformedOption { spec: text.to_string(), option: pair.to_string() })
        })
        .collect::<Result<_, _>>()?;
    for (i, (key, _)) in pairs.iter().enumerate() {
        if pairs[..i].iter().any(|(k, _)| k == key) {
            return Err(SpecError::Repeated(key.to_string()));
        }
    }
    Ok(pairs)
}

impl PlayerSpec {
    /// Parses `random`, `mcts[:key=value,...]`, `minimax:depth=D`,
    /// `alphabeta:depth=D` / `alphabeta:time-ms=T` (both allowed; `tt-mb=M` sizes the
    /// table, `eval=heuristic|network|FILE` picks the cut-off score),
    /// `expectimax:depth=D` / `expectimax:time-ms=T` (both allowed; depth at most
    /// [`EXPECTIMAX_MAX_DEPTH`]) or `gtp:COMMAND LINE`. An `mcts` spec with no budget
    /// gets 10,000 playouts.
    ///
    /// # Errors
    /// [`SpecError`] naming the unknown player, key or bad value.
    pub fn parse(text: &str) -> Result<PlayerSpec, SpecError> {
        let (kind, options) = text.split_once(':').unwrap_or((text, ""));
        if kind == "gtp" {
            // The rest is a command line, not options.
            let command: Vec<String> = options.split_whitespace().map(str::to_string).collect();
            if command.is_empty() {
                return Err(SpecError::Missing {
                    spec: text.to_string(),
                    needs: "gtp needs a command line: gtp:PROGRAM ARGS",
                });
            }
            return Ok(PlayerSpec::Gtp(command));
        }
        let options = self::options(text, options)?;
        let missing = |needs| Err(SpecError::Missing { spec: text.to_string(), needs });
        match kind {
            "random" if options.is_empty() => Ok(PlayerSpec::Random),
            "random" => Err(SpecError::UnknownOption { player: "random", key: options[0].0.into(), expected: "none" }),
            "mcts" => {
                let builder = SearchConfig::builder().apply_settings(options).map_err(SpecError::Setting)?;
                let config = builder
                    .default_playouts(10_000)
                    .build()
                    .map_err(|error| SpecError::Config { spec: text.to_string(), error })?;
                Ok(PlayerSpec::Mcts(config))
            }
            "minimax" => {
                let mut depth = None;
                for (key, value) in options {
                    match key {
                        "depth" => depth = Some(parse_num::<u32>(key, value)?),
                        _ => {
                            return Err(SpecError::UnknownOption {
                                player: "minimax",
                                key: key.into(),
                                expected: "depth",
                            })
                        }
                    }
                }
                match depth {
                    Some(d) if d > 0 => Ok(PlayerSpec::Minimax { depth: d }),
                    Some(_) => missing("depth must be at least 1 (got 0)"),
                    None => missing("minimax needs depth=D"),
                }
            }
            "alphabeta" => {
                let mut limits = Limits::default();
                let mut tt_mb = DEFAULT_TT_MB;
                let mut eval = EvalSpec::default();
                let mut endgame = 0;
                for (key, value) in options {
                    match key {
                        "depth" => limits.max_depth = Some(parse_num(key, value)?),
                        "time-ms" => limits.time = Some(Duration::from_millis(parse_num(key, value)?)),
                        "tt-mb" => tt_mb = parse_num(key, value)?,
                        "eval" => eval = EvalSpec::parse(value)?,
                        "endgame" => endgame = parse_num(key, value)?,
                        _ => {
                            let expected = "depth, time-ms, tt-mb, eval, endgame";
                            return Err(SpecError::UnknownOption { player: "alphabeta", key: key.into(), expected });
                        }
                    }
                }
                match (limits.max_depth, limits.time) {
                    (None, None) => missing("alphabeta needs depth=D or time-ms=T"),
                    (Some(0), _) => missing("depth must be at least 1 (got 0)"),
                    (_, Some(t)) if t.is_zero() => missing("time-ms must be at least 1 (got 0)"),
                    _ if tt_mb == 0 => missing("tt-mb must be at least 1 (got 0)"),
                    _ => Ok(PlayerSpec::AlphaBeta { limits, tt_mb, eval, endgame }),
                }
            }
            "expectimax" => {
                let mut limits = Limits::default();
                for (key, value) in options {
                    match key {
                        "depth" => limits.max_depth = Some(parse_num(key, value)?),
                        "time-ms" => limits.time = Some(Duration::from_millis(parse_num(key, value)?)),
                        _ => {
                            let expected = "depth, time-ms";
                            return Err(SpecError::UnknownOption { player: "expectimax", key: key.into(), expected });
                        }
                    }
                }
                match (limits.max_depth, limits.time) {
                    (None, None) => missing("expectimax needs depth=D or time-ms=T"),
                    (Some(0), _) => missing("depth must be at least 1 (got 0)"),
                    (Some(d), _) if d > EXPECTIMAX_MAX_DEPTH => missing("depth must be at most 64"),
                    (_, Some(t)) if t.is_zero() => missing("time-ms must be at least 1 (got 0)"),
                    _ => Ok(PlayerSpec::Expectimax { limits }),
                }
            }
            _ => Err(SpecError::UnknownPlayer(text.to_string())),
        }
    }

    /// The search configuration of a distributed MCTS player (`mode=dist`), which every
    /// MPI rank plays in lockstep.
    pub fn distributed(&self) -> Option<&SearchConfig> {
        match self {
            PlayerSpec::Mcts(config) if config.mode() == crate::Mode::Dist => Some(config),
            _ => None,
        }
    }

    /// The wall-clock budget per move, for the players that have one (`time-ms=`).
    pub fn time_budget(&self) -> Option<std::time::Duration> {
        match self {
            PlayerSpec::Mcts(config) => config.time(),
            PlayerSpec::AlphaBeta { limits, .. } | PlayerSpec::Expectimax { limits } => limits.time,
            PlayerSpec::Random | PlayerSpec::Minimax { .. } | PlayerSpec::Gtp(_) => None,
        }
    }

    /// Builds a random or MCTS player for any game the search takes; `seed` decorrelates
    /// players that share a spec. Minimax, alpha-beta and expectimax players need the
    /// game's heuristic evaluation: build them with [`PlayerSpec::build_with_evaluation`].
    ///
    /// # Errors
    /// [`PlayerError::NeedsEvaluation`] for a minimax, alpha-beta or expectimax spec;
    /// [`PlayerError::Search`] if the search memory cannot be set up.
    pub fn build<G: SearchGame>(&self, seed: u64) -> Result<Box<dyn Agent<G>>, PlayerError> {
        Ok(match self {
            PlayerSpec::Random => Box::new(RandomAgent { rng: Xoshiro256PlusPlus::seed_from_u64(seed) }),
            PlayerSpec::Mcts(config) => Box::new(MctsAgent::<G>::new(config, seed)?),
            PlayerSpec::Gtp(command) => Box::new(GtpAgent::new(command.clone())),
            PlayerSpec::Minimax { .. } => return Err(PlayerError::NeedsEvaluation("minimax")),
            PlayerSpec::AlphaBeta { .. } => return Err(PlayerError::NeedsEvaluation("alphabeta")),
            PlayerSpec::Expectimax { .. } => return Err(PlayerError::NeedsEvaluation("expectimax")),
        })
    }

    /// Builds any player, minimax, alpha-beta and expectimax included, for a game with a
    /// heuristic evaluation ([`Evaluate`]).
    ///
    /// # Errors
    /// [`PlayerError`] if the search or the transposition table cannot be set up, or
    /// the alpha-beta player's network cannot be loaded ([`PlayerError::Network`]);
    /// [`PlayerError::ChanceTurns`] for a minimax or alpha-beta player in a game with
    /// dice (expectimax searches them).
    pub fn build_with_evaluation<G: Evaluate + SearchGame>(&self, seed: u64) -> Result<Box<dyn Agent<G>>, PlayerError> {
        Ok(match self {
            PlayerSpec::Minimax { .. } | PlayerSpec::AlphaBeta { .. } if G::HAS_CHANCE => {
                return Err(PlayerError::ChanceTurns(G::NAME));
            }
            PlayerSpec::Minimax { depth } => Box::new(MinimaxAgent { depth: *depth }),
            PlayerSpec::AlphaBeta { limits, tt_mb, eval, endgame } => {
                let mut search = AlphaBeta::with_memory_mb(*tt_mb)?;
                if let Some(network) = eval.network::<G>()? {
                    search = search.with_network(network);
                }
                Box::new(AlphaBetaAgent { search, limits: *limits, endgame: *endgame })
            }
            PlayerSpec::Expectimax { limits } => {
                Box::new(ExpectimaxAgent { search: Expectimax::new(), limits: *limits })
            }
            PlayerSpec::Random | PlayerSpec::Mcts(_) | PlayerSpec::Gtp(_) => self.build(seed)?,
        })
    }
}

/// Anything that picks moves: the one interface `play` and matches use.
pub trait Agent<G: Game>: Send {
    /// Chooses a legal move in `game` (which is not over).
    ///
    /// # Errors
    /// [`SearchError`] if the player cannot search this position.
    fn choose(&mut self, game: &G) -> Result<Move, PlayerError>;

    /// The last search's result, for players that search.
    fn last_search(&self) -> Option<&SearchResult> {
        None
    }

    /// Sees move `mv` played in `before` (by either side, the opening's included, in
    /// order): players that keep their own board (an external engine) follow the game.
    ///
    /// # Errors
    /// [`PlayerError`] if the player cannot follow (its engine refused the move).
    fn observe(&mut self, before: &G, mv: Move) -> Result<(), PlayerError> {
        let _ = (before, mv);
        Ok(())
    }
}

/// How long an external engine may take to answer one command (a move included).
pub const GTP_TIMEOUT: Duration = Duration::from_secs(120);

/// An external engine over GTP (`gtp:COMMAND LINE`), started at its first move or
/// observed move: it gets the game's set-up ([`Game::gtp_setup`], then `clear_board`),
/// every move played (`play`), and `genmove` for its own.
#[derive(Debug)]
pub struct GtpAgent {
    command: Vec<String>,
    client: Option<GtpClient>,
    /// The move it chose last, which `observe` then sees and must not send back.
    own: Option<Move>,
}

impl GtpAgent {
    /// A player for the engine that `command` (program and arguments) starts.
    pub fn new(command: Vec<String>) -> GtpAgent {
        GtpAgent { command, client: None, own: None }
    }

    /// The engine, started and set up for `game` on first use.
    fn client<G: Game>(&mut self, game: &G) -> Result<&mut GtpClient, PlayerError> {
        if self.client.is_none() {
            let (program, args) = self.command.split_first().ok_or(PlayerError::Gtp(ClientError::Spawn {
                program: String::new(),
                reason: "empty command line".to_string(),
            }))?;
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let mut client = GtpClient::spawn(program, &args, GTP_TIMEOUT).map_err(PlayerError::Gtp)?;
            for command in game.gtp_setup().iter().map(String::as_str).chain(["clear_board"]) {
                client.send(command).map_err(PlayerError::Gtp)?;
            }
            self.client = Some(client);
        }
        Ok(self.client.as_mut().expect("started above"))
    }
}

impl<G: Game> Agent<G> for GtpAgent {
    fn choose(&mut self, game: &G) -> Result<Move, PlayerError> {
        let command = format!("genmove {}", colour_name(game.side_to_move()));
        let reply = self.client(game)?.send(&command).map_err(PlayerError::Gtp)?;
        if reply.eq_ignore_ascii_case("resign") {
            return Err(PlayerError::Resigned);
        }
        let mv = game
            .parse_move(&reply)
            .map_err(|e| PlayerError::GtpMove { reply: reply.clone(), reason: e.to_string() })?;
        self.own = Some(mv);
        Ok(mv)
    }

    fn observe(&mut self, before: &G, mv: Move) -> Result<(), PlayerError> {
        if self.own.take() == Some(mv) {
            return Ok(());
        }
        let command = format!("play {} {}", colour_name(before.side_to_move()), before.format_move(mv));
        self.client(before)?.send(&command).map_err(PlayerError::Gtp).map(drop)
    }
}

/// Plays uniformly random legal moves.
#[derive(Debug)]
pub struct RandomAgent {
    rng: Xoshiro256PlusPlus,
}

impl<G: Game> Agent<G> for RandomAgent {
    fn choose(&mut self, game: &G) -> Result<Move, PlayerError> {
        let moves = game.legal_moves();
        let moves = moves.as_ref();
        if moves.is_empty() {
            return Err(PlayerError::GameOver);
        }
        Ok(moves[random_below(&mut self.rng, moves.len() as u32) as usize])
    }
}

/// Plays the final move of an MCTS search per move; with `reuse=on` it keeps the
/// subtree of the position it finds on its next turn.
#[derive(Debug)]
pub struct MctsAgent<G> {
    search: Search,
    moves_played: u64,
    last: Option<SearchResult>,
    /// The position searched last (to find the new position in its tree).
    last_root: Option<G>,
}

impl<G: SearchGame> MctsAgent<G> {
    /// A player searching with `config`, its seed mixed with `seed` (which decorrelates
    /// players that share a configuration).
    ///
    /// # Errors
    /// [`SearchError::Config`] if the search memory cannot be set up.
    pub fn new(config: &SearchConfig, seed: u64) -> Result<Self, SearchError> {
        let config = config.with_seed(config.seed() ^ seed);
        Ok(MctsAgent { search: Search::new(config)?, moves_played: 0, last: None, last_root: None })
    }

    /// The search configuration (with the budget of the next move).
    pub fn config(&self) -> &SearchConfig {
        self.search.config()
    }

    /// Changes the budget of the next moves ([`Search::set_budget`]); the tree kept for
    /// reuse stays.
    ///
    /// # Errors
    /// As [`SearchConfig::with_budget`]; the budget is then unchanged.
    pub fn set_budget(&mut self, playouts: Option<u64>, time: Option<Duration>) -> Result<(), ConfigError> {
        self.search.set_budget(playouts, time)
    }
}

/// Plies between two searches of one player that tree reuse looks through: its own move,
/// the reply, and room for forced passes.
const REUSE_PLIES: u32 = 4;

impl<G: SearchGame> Agent<G> for MctsAgent<G> {
    fn choose(&mut self, game: &G) -> Result<Move, PlayerError> {
        if let Some(old) = self.last_root.take() {
            self.search.reuse(&old, game, REUSE_PLIES);
        }
        // A fresh, reproducible seed per move.
        let seed = self.search.config().seed().wrapping_add(self.moves_played.wrapping_mul(0x9E37_79B9));
        self.moves_played += 1;
        self.search.set_seed(seed);
        let result = self.search.run(game)?;
        if self.search.config().reuse() {
            self.last_root = Some(game.clone());
        }
        let best = result.best_move.ok_or(PlayerError::GameOver)?;
        self.last = Some(result);
        Ok(best)
    }

    fn last_search(&self) -> Option<&SearchResult> {
        self.last.as_ref()
    }
}

/// Plays the move of a plain negamax search to a fixed depth.
#[derive(Debug)]
pub struct MinimaxAgent {
    depth: u32,
}

impl<G: Evaluate> Agent<G> for MinimaxAgent {
    fn choose(&mut self, game: &G) -> Result<Move, PlayerError> {
        minimax(game, self.depth).1.ok_or(PlayerError::GameOver)
    }
}

/// Plays the move of an iterative-deepening alpha-beta search.
pub struct AlphaBetaAgent<G: Evaluate> {
    search: AlphaBeta<G>,
    limits: Limits,
    /// Node budget of the game's exact solver before searching (`endgame=`; 0: off).
    endgame: u64,
}

impl<G: Evaluate> fmt::Debug for AlphaBetaAgent<G> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("AlphaBetaAgent").field("limits", &self.limits).finish()
    }
}

impl<G: Evaluate + Endgame> Agent<G> for AlphaBetaAgent<G> {
    fn choose(&mut self, game: &G) -> Result<Move, PlayerError> {
        // As the MCTS search does: a proven win or draw is played at once.
        if let Some(Solved { best_move: Some(best), .. }) = solved_to_play(game, self.endgame) {
            return Ok(best);
        }
        Ok(self.search.search(game, self.limits)?.best_move)
    }
}

/// Plays the move of an iterative-deepening expectimax search with Star1 pruning.
#[derive(Debug)]
pub struct ExpectimaxAgent {
    search: Expectimax,
    limits: Limits,
}

impl<G: Evaluate> Agent<G> for ExpectimaxAgent {
    fn choose(&mut self, game: &G) -> Result<Move, PlayerError> {
        self.search.search(game, self.limits)?.best_move.ok_or(PlayerError::ChanceToMove)
    }
}
