//! Player specs: parsing `kind:key=value,...` text, and building the player a spec names.

use super::baseline::{Baseline, Player, ALPHABETA, EXPECTIMAX, MINIMAX};
use super::*;
use crate::games::one_line;

/// A bad player spec, naming the bad part.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum SpecError {
    /// The player kind is not `random`, `mcts`, `minimax`, `alphabeta`, `expectimax`,
    /// `gtp` or `human`.
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
        expected: String,
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
        needs: String,
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
                "unknown player '{}' (expected random, mcts:key=value,..., minimax:depth=D, alphabeta:..., \
                 expectimax:depth=D|time-ms=T, gtp:COMMAND or human)",
                one_line(text)
            ),
            SpecError::MalformedOption { spec, option } => {
                write!(f, "bad option '{}' in '{}' (expected key=value)", one_line(option), one_line(spec))
            }
            SpecError::UnknownOption { player, key, expected } => {
                write!(f, "unknown option '{}' for {player} (expected {expected})", one_line(key))
            }
            SpecError::BadValue { key, value } => write!(f, "bad value '{}' for {}", one_line(value), one_line(key)),
            SpecError::Repeated(key) => write!(f, "{} given twice", one_line(key)),
            SpecError::Missing { spec, needs } => write!(f, "player '{}': {needs}", one_line(spec)),
            SpecError::Setting(e) => e.fmt(f),
            SpecError::Config { spec, error } => write!(f, "player '{}': {error}", one_line(spec)),
        }
    }
}

impl std::error::Error for SpecError {}

/// A parsed player spec.
// A spec is parsed once per player, so the MCTS configuration's size costs nothing.
#[allow(clippy::large_enum_variant)]
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
    /// A person at the board ([`HumanAgent`]), built with a console
    /// ([`PlayerSpec::build_seated`]).
    Human,
}

/// Where a player sits in a game of `play` or `match`: its seat's name, the spec across
/// the board (a person's hints search with its settings when it is an MCTS player) and
/// the console of the people at the board, if any.
#[derive(Clone, Copy, Debug)]
pub struct Seat<'a> {
    /// `p1` or `p2`.
    pub label: &'static str,
    /// The other seat's spec.
    pub opponent: &'a PlayerSpec,
    /// Where a `human` player reads and writes.
    pub console: Option<&'a Console>,
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
    /// [`crate::expectimax::MAX_DEPTH`]), `gtp:COMMAND LINE` or `human` (a person at the
    /// board). An `mcts` spec with no budget gets 10,000 playouts.
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
                    needs: "gtp needs a command line: gtp:PROGRAM ARGS".into(),
                });
            }
            return Ok(PlayerSpec::Gtp(command));
        }
        let options = self::options(text, options)?;
        match kind {
            "random" if options.is_empty() => Ok(PlayerSpec::Random),
            "human" if options.is_empty() => Ok(PlayerSpec::Human),
            "random" | "human" => {
                let player = if kind == "human" { "human" } else { "random" };
                Err(SpecError::UnknownOption { player, key: options[0].0.into(), expected: "none".into() })
            }
            "mcts" => parse_mcts(text, options),
            "minimax" => parse_minimax(text, options),
            "alphabeta" => parse_alphabeta(text, options),
            "expectimax" => parse_expectimax(text, options),
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
            PlayerSpec::Random | PlayerSpec::Minimax { .. } | PlayerSpec::Gtp(_) | PlayerSpec::Human => None,
        }
    }

    /// Builds a random or MCTS player for any game the search takes; `seed` decorrelates
    /// players that share a spec. Minimax, alpha-beta and expectimax players need the
    /// game's heuristic evaluation: build them with [`PlayerSpec::build_with_evaluation`].
    ///
    /// # Errors
    /// [`PlayerError::NeedsEvaluation`] for a minimax, alpha-beta or expectimax spec;
    /// [`PlayerError::NeedsConsole`] for `human`;
    /// [`PlayerError::Search`] if the search memory cannot be set up.
    pub fn build<G: SearchGame>(&self, seed: u64) -> Result<Box<dyn Agent<G>>, PlayerError> {
        Ok(match self {
            PlayerSpec::Random => Box::new(RandomAgent { rng: Xoshiro256PlusPlus::seed_from_u64(seed) }),
            PlayerSpec::Mcts(config) => Box::new(MctsAgent::<G>::new(config, seed)?),
            PlayerSpec::Gtp(command) => Box::new(GtpAgent::new(command.clone())),
            PlayerSpec::Minimax { .. } => return Err(PlayerError::NeedsEvaluation("minimax")),
            PlayerSpec::AlphaBeta { .. } => return Err(PlayerError::NeedsEvaluation("alphabeta")),
            PlayerSpec::Expectimax { .. } => return Err(PlayerError::NeedsEvaluation("expectimax")),
            PlayerSpec::Human => return Err(PlayerError::NeedsConsole),
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
            PlayerSpec::Random | PlayerSpec::Mcts(_) | PlayerSpec::Gtp(_) | PlayerSpec::Human => self.build(seed)?,
        })
    }

    /// Builds any player as [`PlayerSpec::build_with_evaluation`] does, and a person at
    /// the board at `seat`'s console.
    ///
    /// # Errors
    /// As [`PlayerSpec::build_with_evaluation`]; [`PlayerError::NeedsConsole`] for
    /// `human` at a seat without a console.
    pub fn build_seated<G: Evaluate + SearchGame>(
        &self,
        seed: u64,
        seat: &Seat,
    ) -> Result<Box<dyn Agent<G>>, PlayerError> {
        match (self, seat.console) {
            (PlayerSpec::Human, Some(console)) => {
                let hint = Hint::against(seat.opponent).map_err(|e| PlayerError::Search(SearchError::Config(e)))?;
                Ok(Box::new(HumanAgent::new(console.clone(), seat.label, hint)))
            }
            _ => self.build_with_evaluation(seed),
        }
    }

    /// Whether this is a person at the board (`human`).
    pub fn is_human(&self) -> bool {
        matches!(self, PlayerSpec::Human)
    }
}

/// An `mcts` spec's options: the search settings, 10,000 playouts when no budget is set.
fn parse_mcts(text: &str, options: Vec<(&str, &str)>) -> Result<PlayerSpec, SpecError> {
    let builder = SearchConfig::builder().apply_settings(options).map_err(SpecError::Setting)?;
    let config = builder
        .default_playouts(10_000)
        .build()
        .map_err(|error| SpecError::Config { spec: text.to_string(), error })?;
    Ok(PlayerSpec::Mcts(config))
}

/// A `minimax` spec's options ([`MINIMAX`]).
fn parse_minimax(text: &str, options: Vec<(&str, &str)>) -> Result<PlayerSpec, SpecError> {
    let Baseline { depth, .. } = MINIMAX.parse(text, options)?;
    // A minimax spec without a depth was refused (`MINIMAX.needs`).
    Ok(PlayerSpec::Minimax { depth: depth.unwrap_or(1) })
}

/// An `alphabeta` spec's options ([`ALPHABETA`]).
fn parse_alphabeta(text: &str, options: Vec<(&str, &str)>) -> Result<PlayerSpec, SpecError> {
    let Baseline { depth, time_ms, tt_mb, eval, endgame } = ALPHABETA.parse(text, options)?;
    let limits = Limits { max_depth: depth, time: time_ms.map(Duration::from_millis) };
    Ok(PlayerSpec::AlphaBeta { limits, tt_mb, eval, endgame })
}

/// An `expectimax` spec's options ([`EXPECTIMAX`]).
fn parse_expectimax(text: &str, options: Vec<(&str, &str)>) -> Result<PlayerSpec, SpecError> {
    let Baseline { depth, time_ms, .. } = EXPECTIMAX.parse(text, options)?;
    let limits = Limits { max_depth: depth, time: time_ms.map(Duration::from_millis) };
    Ok(PlayerSpec::Expectimax { limits })
}

impl Player {
    /// Reads `options` into a [`Baseline`] and checks it.
    ///
    /// # Errors
    /// [`SpecError`] naming the unknown key, the bad value, the missing limit or the
    /// bound broken, in this order.
    pub(super) fn parse(&self, text: &str, options: Vec<(&str, &str)>) -> Result<Baseline, SpecError> {
        let mut baseline = Baseline::default();
        for (key, value) in options {
            let Some(setting) = self.keys.iter().find(|s| s.key == key) else {
                let expected: Vec<&str> = self.keys.iter().map(|s| s.key).collect();
                let expected = expected.join(", ");
                return Err(SpecError::UnknownOption { player: self.name, key: key.into(), expected });
            };
            baseline = setting.apply(baseline, value).map_err(|e| match e {
                SettingError::BadValue { key, value, .. } => SpecError::BadValue { key: key.into(), value },
                other => SpecError::Setting(other),
            })?;
        }
        let missing = |needs: String| SpecError::Missing { spec: text.to_string(), needs };
        if baseline.depth.is_none() && (!self.timed || baseline.time_ms.is_none()) {
            return Err(missing(self.needs.to_string()));
        }
        for bound in self.bounds {
            bound.check(&baseline).map_err(missing)?;
        }
        Ok(baseline)
    }
}
