//! Players behind one trait ([`Agent`]), built from text specs such as
//! `mcts:playouts=10000,c=1.4`, `mcts:time-ms=500,mode=tree,threads=4` or `random`.
//!
//! The keys of an `mcts:` spec are the same as the `search` command's flags, and both go
//! through [`apply_search_option`], so a flag and a spec key can never disagree.

use std::fmt;
use std::time::Duration;

use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use crate::games::{random_below, Game, Move};
use crate::search::{Mode, Search, SearchConfig, SearchConfigBuilder, SearchError, SearchResult};

/// A bad player spec or search option, naming the bad part.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SpecError(pub String);

impl fmt::Display for SpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for SpecError {}

/// The search option keys shared by `mcts:` specs and the CLI flags.
pub const SEARCH_KEYS: &[&str] =
    &["playouts", "time-ms", "c", "seed", "mode", "threads", "virtual-loss", "memory-mb", "nodes", "expand"];

fn parse_num<T: std::str::FromStr>(key: &str, value: &str) -> Result<T, SpecError> {
    value.parse().map_err(|_| SpecError(format!("bad value '{value}' for {key}")))
}

/// Applies one `key=value` search option to a builder.
///
/// # Errors
/// [`SpecError`] for an unknown key or a value that does not parse.
pub fn apply_search_option(
    builder: SearchConfigBuilder,
    key: &str,
    value: &str,
) -> Result<SearchConfigBuilder, SpecError> {
    Ok(match key {
        "playouts" => builder.playouts(parse_num(key, value)?),
        "time-ms" => builder.time(Duration::from_millis(parse_num(key, value)?)),
        "c" => builder.c(parse_num(key, value)?),
        "seed" => builder.seed(parse_num(key, value)?),
        "mode" => builder.mode(value.parse::<Mode>().map_err(|e| SpecError(e.to_string()))?),
        "threads" => builder.threads(parse_num(key, value)?),
        "virtual-loss" => builder.virtual_loss(parse_num(key, value)?),
        "memory-mb" => builder.memory_mb(parse_num(key, value)?),
        "nodes" => builder.arena_nodes(parse_num(key, value)?),
        "expand" => builder.expand_threshold(parse_num(key, value)?),
        _ => return Err(SpecError(format!("unknown option '{key}' (expected one of: {})", SEARCH_KEYS.join(", ")))),
    })
}

/// A parsed player spec.
#[derive(Clone, Debug, PartialEq)]
pub enum PlayerSpec {
    /// Uniformly random legal moves.
    Random,
    /// Monte Carlo Tree Search with this configuration.
    Mcts(SearchConfig),
}

impl PlayerSpec {
    /// Parses `random` or `mcts[:key=value,...]`. An `mcts` spec with no budget gets
    /// 10,000 playouts.
    ///
    /// # Errors
    /// [`SpecError`] naming the unknown player, key or bad value.
    pub fn parse(text: &str) -> Result<PlayerSpec, SpecError> {
        let (kind, options) = text.split_once(':').unwrap_or((text, ""));
        match kind {
            "random" if options.is_empty() => Ok(PlayerSpec::Random),
            "random" => Err(SpecError(format!("player 'random' takes no options (got '{options}')"))),
            "mcts" => {
                let mut builder = SearchConfig::builder();
                let mut budget = false;
                for pair in options.split(',').filter(|p| !p.is_empty()) {
                    let (key, value) = pair
                        .split_once('=')
                        .ok_or_else(|| SpecError(format!("bad option '{pair}' in '{text}' (expected key=value)")))?;
                    budget |= key == "playouts" || key == "time-ms";
                    builder = apply_search_option(builder, key, value)?;
                }
                if !budget {
                    builder = builder.playouts(10_000);
                }
                let config = builder.build().map_err(|e| SpecError(format!("player '{text}': {e}")))?;
                Ok(PlayerSpec::Mcts(config))
            }
            _ => Err(SpecError(format!("unknown player '{text}' (expected random or mcts:key=value,...)"))),
        }
    }

    /// Builds the player; `seed` decorrelates players that share a spec.
    ///
    /// # Errors
    /// [`SearchError`] if the search arenas cannot be set up.
    pub fn build<G: Game>(&self, seed: u64) -> Result<Box<dyn Agent<G>>, SearchError> {
        Ok(match self {
            PlayerSpec::Random => Box::new(RandomAgent { rng: Xoshiro256PlusPlus::seed_from_u64(seed) }),
            PlayerSpec::Mcts(config) => {
                let config = config.with_seed(config.seed() ^ seed);
                Box::new(MctsAgent { search: Search::new(config)?, moves_played: 0, last: None })
            }
        })
    }
}

/// Anything that picks moves: the one interface `play` and matches use.
pub trait Agent<G: Game>: Send {
    /// Chooses a legal move in `game` (which is not over).
    ///
    /// # Errors
    /// [`SearchError`] if the player cannot search this position.
    fn choose(&mut self, game: &G) -> Result<Move, SearchError>;

    /// The last search's result, for players that search.
    fn last_search(&self) -> Option<&SearchResult> {
        None
    }
}

/// Plays uniformly random legal moves.
#[derive(Debug)]
pub struct RandomAgent {
    rng: Xoshiro256PlusPlus,
}

impl<G: Game> Agent<G> for RandomAgent {
    fn choose(&mut self, game: &G) -> Result<Move, SearchError> {
        let moves = game.legal_moves();
        let moves = moves.as_ref();
        if moves.is_empty() {
            return Err(SearchError::GameOver);
        }
        Ok(moves[random_below(&mut self.rng, moves.len() as u32) as usize])
    }
}

/// Plays the most visited move of an MCTS search per move.
#[derive(Debug)]
pub struct MctsAgent {
    search: Search,
    moves_played: u64,
    last: Option<SearchResult>,
}

impl<G: Game> Agent<G> for MctsAgent {
    fn choose(&mut self, game: &G) -> Result<Move, SearchError> {
        // A fresh, reproducible seed per move.
        let seed = self.search.config().seed().wrapping_add(self.moves_played.wrapping_mul(0x9E37_79B9));
        self.moves_played += 1;
        self.search.set_seed(seed);
        let result = self.search.run(game)?;
        let best = result.best_move.ok_or(SearchError::GameOver)?;
        self.last = Some(result);
        Ok(best)
    }

    fn last_search(&self) -> Option<&SearchResult> {
        self.last.as_ref()
    }
}
