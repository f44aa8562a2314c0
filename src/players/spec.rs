//! Player specs: parsing `kind:key=value,...` text, and building the player a spec names.

use super::*;

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
        match kind {
            "random" if options.is_empty() => Ok(PlayerSpec::Random),
            "random" => Err(SpecError::UnknownOption { player: "random", key: options[0].0.into(), expected: "none" }),
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

/// An `mcts` spec's options: the search settings, 10,000 playouts when no budget is set.
fn parse_mcts(text: &str, options: Vec<(&str, &str)>) -> Result<PlayerSpec, SpecError> {
    let builder = SearchConfig::builder().apply_settings(options).map_err(SpecError::Setting)?;
    let config = builder
        .default_playouts(10_000)
        .build()
        .map_err(|error| SpecError::Config { spec: text.to_string(), error })?;
    Ok(PlayerSpec::Mcts(config))
}

/// A `minimax` spec's options: `depth=D`, at least 1.
fn parse_minimax(text: &str, options: Vec<(&str, &str)>) -> Result<PlayerSpec, SpecError> {
    let missing = |needs| Err(SpecError::Missing { spec: text.to_string(), needs });
    let mut depth = None;
    for (key, value) in options {
        match key {
            "depth" => depth = Some(parse_num::<u32>(key, value)?),
            _ => return Err(SpecError::UnknownOption { player: "minimax", key: key.into(), expected: "depth" }),
        }
    }
    match depth {
        Some(d) if d > 0 => Ok(PlayerSpec::Minimax { depth: d }),
        Some(_) => missing("depth must be at least 1 (got 0)"),
        None => missing("minimax needs depth=D"),
    }
}

/// An `alphabeta` spec's options: `depth=D` and/or `time-ms=T`, `tt-mb=M`, `eval=...`,
/// `endgame=N`.
fn parse_alphabeta(text: &str, options: Vec<(&str, &str)>) -> Result<PlayerSpec, SpecError> {
    let missing = |needs| Err(SpecError::Missing { spec: text.to_string(), needs });
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

/// An `expectimax` spec's options: `depth=D` (at most [`EXPECTIMAX_MAX_DEPTH`]) and/or
/// `time-ms=T`.
fn parse_expectimax(text: &str, options: Vec<(&str, &str)>) -> Result<PlayerSpec, SpecError> {
    let missing = |needs| Err(SpecError::Missing { spec: text.to_string(), needs });
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
