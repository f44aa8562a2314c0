//! Why a search configuration is invalid.

use std::fmt;

use super::drivers::distributed::ClusterError;
use super::limits::{MAX_ARENA_NODES, MIN_ARENA_NODES};
use super::options::Mode;
use crate::evaluator::{EvalError, NetworkError};
use crate::tree::CapacityError;
use crate::weights::WeightsError;

/// A configuration that failed validation, naming the bad value.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum ConfigError {
    /// Neither a playout nor a time budget was given.
    NoBudget,
    /// `playouts` was 0.
    ZeroPlayouts,
    /// The playout budget exceeds what the 32-bit node counters hold.
    TooManyPlayouts {
        /// The budget given.
        got: u64,
        /// The most accepted.
        max: u64,
    },
    /// The time budget was 0.
    ZeroTime,
    /// The exploration constant is negative or not finite (as stored: a 32-bit float).
    BadExploration(f64),
    /// `threads` was 0.
    ZeroThreads,
    /// More threads than the cap.
    TooManyThreads {
        /// The count given.
        got: usize,
        /// The most accepted.
        max: usize,
    },
    /// The arena cannot hold a root and its children: the one error for an arena too
    /// small, whether the configuration shows it (fewer than [`MIN_ARENA_NODES`] per tree)
    /// or the position searched does (more children than fit, from [`Search::run`]).
    ///
    /// [`MIN_ARENA_NODES`]: super::MIN_ARENA_NODES
    /// [`Search::run`]: super::Search::run
    ArenaTooSmall {
        /// Nodes per tree.
        nodes: u64,
        /// The fewest that hold the root and its children.
        needed: u64,
    },
    /// The arena is larger than the 32-bit node index can address.
    ArenaTooLarge {
        /// Nodes asked for.
        nodes: u64,
        /// The most accepted.
        max: u64,
    },
    /// The arenas (every tree's nodes and side arrays, and the spare arena of tree reuse)
    /// need more memory than the machine has available: refused when the search is
    /// set up ([`Search::new`](super::Search::new)) rather than killed by the operating
    /// system when the pages are touched.
    ArenaOverMemory {
        /// Bytes the arenas need.
        bytes: u64,
        /// Bytes available (Linux's `MemAvailable`, within the process's cgroup limit).
        available: u64,
    },
    /// The mode name is not one of [`Mode::ALL`](super::Mode::ALL).
    UnknownMode(String),
    /// `mode=dist` in a build without the `mpi` feature.
    DistUnavailable,
    /// `dist-every` was 0 playouts.
    ZeroDistEvery,
    /// `dist-scheme` was not `share` or `farm`.
    UnknownDistScheme(String),
    /// `dist-batch` was 0 or above the most accepted.
    BadDistBatch {
        /// The count given.
        got: u32,
        /// The most accepted.
        max: u32,
    },
    /// `dist-period` was 0 ms.
    ZeroDistPeriod,
    /// `dist-share` was not a percentage, 0 to 100 (as stored).
    BadDistShare(f64),
    /// The expansion threshold was 0 (a leaf must be visited before it is expanded).
    ZeroExpandThreshold,
    /// The final-move rule is not `visits`, `value` or `secure`.
    UnknownFinalMove(String),
    /// The progressive bias weight is negative or not finite (as stored).
    BadBias(f64),
    /// The progressive bias constant K is not positive and finite (as stored).
    BadBiasK(f64),
    /// The playout policy is not `random` or `biased`.
    UnknownPlayout(String),
    /// `select` was not `ucb` or `puct`.
    UnknownSelect(String),
    /// A number outside the range its setting takes (PUCT's `c-puct`, `fpu`, `noise`,
    /// `noise-frac`, `temperature`; the batches' `eval-batch`, `eval-in-flight`,
    /// `eval-wait-us`, `eval-threads`).
    OutOfRange {
        /// The setting's key.
        key: &'static str,
        /// The value given (as stored).
        got: f64,
        /// The range it takes, in words.
        range: &'static str,
    },
    /// `in-flight` was not `loss` or `wu-uct`.
    UnknownInFlight(String),
    /// `chance` was not `sample` or `walk`.
    UnknownChance(String),
    /// `lanes` was 0 or above the most a worker keeps in flight.
    BadLanes {
        /// The count given.
        got: u32,
        /// The most accepted.
        max: usize,
    },
    /// RAVE k is negative or not finite (as stored).
    BadRave(f64),
    /// `eval-weight` is not in `[0, 1]` (as stored).
    BadEvalWeight(f64),
    /// `implicit` is not in `[0, 1]` (as stored).
    BadImplicit(f64),
    /// `eval-depth` is above the most allowed.
    BadEvalDepth {
        /// The value given.
        got: u32,
        /// The most allowed.
        max: u32,
    },
    /// `sync-every` was 0.
    ZeroSyncEvery,
    /// A setting the game searched has no use for.
    NotForGame {
        /// The setting, as `key=value`.
        setting: &'static str,
        /// The game.
        game: &'static str,
        /// What the game lacks.
        why: &'static str,
    },
    /// Two settings that exclude each other were both given.
    Conflict {
        /// The first, as `key=value`.
        first: String,
        /// The second, as `key=value`.
        second: String,
        /// Why they conflict.
        why: &'static str,
    },
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::NoBudget => write!(f, "no budget: give a playout count, a time, or both"),
            ConfigError::ZeroPlayouts => write!(f, "playouts must be at least 1 (got 0)"),
            ConfigError::TooManyPlayouts { got, max } => write!(f, "playouts {got} exceeds the maximum {max}"),
            ConfigError::ZeroTime => write!(f, "time budget must be at least 1 ms (got 0)"),
            ConfigError::BadExploration(c) => {
                write!(f, "exploration constant c must be finite and >= 0 as a 32-bit float (got {c})")
            }
            ConfigError::ZeroThreads => write!(f, "threads must be at least 1 (got 0)"),
            ConfigError::TooManyThreads { got, max } => write!(f, "threads must be at most {max} (got {got})"),
            ConfigError::ArenaTooSmall { nodes, needed } => {
                write!(f, "arena of {nodes} nodes per tree is too small: the root and its children need {needed}")
            }
            ConfigError::ArenaTooLarge { nodes, max } => {
                write!(f, "arena of {nodes} nodes is too large (at most {max} nodes)")
            }
            ConfigError::ArenaOverMemory { bytes, available } => write!(
                f,
                "the arenas need {} MiB, more than the {} MiB of memory available (a smaller --memory-mb or --nodes)",
                bytes >> 20,
                available >> 20
            ),
            ConfigError::UnknownMode(m) => {
                let names: Vec<&str> = super::Mode::ALL.iter().map(|m| m.name()).collect();
                write!(f, "unknown mode '{m}' (expected one of {})", names.join(", "))
            }
            ConfigError::ZeroSyncEvery => write!(f, "sync-every must be at least 1 iteration (got 0)"),
            ConfigError::DistUnavailable => write!(
                f,
                "mode dist needs the mpi feature: build with `cargo build --release --features mpi` \
                 (Open MPI and libclang installed) and run under mpirun"
            ),
            ConfigError::ZeroDistPeriod => write!(f, "dist-period must be at least 1 ms (got 0)"),
            ConfigError::ZeroDistEvery => write!(f, "dist-every must be at least 1 playout (got 0)"),
            ConfigError::UnknownDistScheme(d) => {
                write!(f, "unknown dist-scheme '{d}' (expected share, farm, split or tds)")
            }
            ConfigError::BadDistBatch { got, max } => write!(f, "dist-batch must be 1 to {max} leaves (got {got})"),
            ConfigError::BadDistShare(p) => write!(f, "dist-share must be a percentage, 0 to 100 (got {p})"),
            ConfigError::ZeroExpandThreshold => write!(f, "expand threshold must be at least 1 (got 0)"),
            ConfigError::UnknownFinalMove(m) => {
                write!(f, "unknown final-move rule '{m}' (expected visits, value or secure)")
            }
            ConfigError::BadBias(b) => write!(f, "progressive bias must be finite and >= 0 (got {b})"),
            ConfigError::BadBiasK(k) => write!(f, "progressive bias K must be finite and > 0 (got {k})"),
            ConfigError::UnknownPlayout(p) => write!(f, "unknown playout policy '{p}' (expected random or biased)"),
            ConfigError::UnknownSelect(s) => write!(f, "unknown selection '{s}' (expected ucb or puct)"),
            ConfigError::OutOfRange { key, got, range } => write!(f, "{key} must be {range} (got {got})"),
            ConfigError::UnknownInFlight(p) => write!(f, "unknown in-flight rule '{p}' (expected loss or wu-uct)"),
            ConfigError::UnknownChance(p) => write!(f, "unknown chance selection '{p}' (expected sample or walk)"),
            ConfigError::BadLanes { got, max } => write!(f, "lanes must be 1 to {max} (got {got})"),
            ConfigError::BadRave(k) => write!(f, "RAVE k must be finite and >= 0 (got {k})"),
            ConfigError::BadEvalWeight(l) => write!(f, "eval-weight must be 0 to 1 (got {l})"),
            ConfigError::BadImplicit(a) => write!(f, "implicit must be 0 to 1 (got {a})"),
            ConfigError::BadEvalDepth { got, max } => write!(f, "eval-depth must be 0 to {max} (got {got})"),
            ConfigError::Conflict { first, second, why } => write!(f, "{first} conflicts with {second}: {why}"),
            ConfigError::NotForGame { setting, game, why } => write!(f, "{setting} does not apply to {game}: {why}"),
        }
    }
}

impl std::error::Error for ConfigError {}

impl From<CapacityError> for ConfigError {
    /// The one place an arena's own refusal becomes the user's error (the configuration
    /// already rejects both cases; this keeps the mapping honest if it ever does not).
    fn from(e: CapacityError) -> ConfigError {
        if e.requested < MIN_ARENA_NODES {
            ConfigError::ArenaTooSmall { nodes: e.requested, needed: MIN_ARENA_NODES }
        } else {
            ConfigError::ArenaTooLarge { nodes: e.requested, max: MAX_ARENA_NODES }
        }
    }
}

impl ConfigError {
    /// Two settings that cannot go together: `k1=v1` with `k2=v2`, and why.
    pub(crate) fn conflict(
        k1: &str,
        v1: impl fmt::Display,
        k2: &str,
        v2: impl fmt::Display,
        why: &'static str,
    ) -> ConfigError {
        ConfigError::Conflict { first: format!("{k1}={v1}"), second: format!("{k2}={v2}"), why }
    }

    /// The key of the setting at fault ([`crate::search::SETTINGS`]), where one is.
    pub fn key(&self) -> Option<&'static str> {
        Some(match self {
            ConfigError::ZeroPlayouts | ConfigError::TooManyPlayouts { .. } => "playouts",
            ConfigError::ZeroTime => "time-ms",
            ConfigError::BadExploration(_) => "c",
            ConfigError::ZeroThreads | ConfigError::TooManyThreads { .. } => "threads",
            ConfigError::UnknownMode(_) | ConfigError::DistUnavailable => "mode",
            ConfigError::ZeroDistPeriod => "dist-period",
            ConfigError::ZeroDistEvery => "dist-every",
            ConfigError::UnknownDistScheme(_) => "dist-scheme",
            ConfigError::BadDistBatch { .. } => "dist-batch",
            ConfigError::BadDistShare(_) => "dist-share",
            ConfigError::ZeroExpandThreshold => "expand",
            ConfigError::UnknownFinalMove(_) => "final",
            ConfigError::BadBias(_) => "bias",
            ConfigError::BadBiasK(_) => "bias-k",
            ConfigError::UnknownPlayout(_) => "playout",
            ConfigError::UnknownSelect(_) => "select",
            ConfigError::OutOfRange { key, .. } => key,
            ConfigError::UnknownInFlight(_) => "in-flight",
            ConfigError::UnknownChance(_) => "chance",
            ConfigError::BadLanes { .. } => "lanes",
            ConfigError::BadRave(_) => "rave",
            ConfigError::BadEvalWeight(_) => "eval-weight",
            ConfigError::BadImplicit(_) => "implicit",
            ConfigError::BadEvalDepth { .. } => "eval-depth",
            ConfigError::ZeroSyncEvery => "sync-every",
            ConfigError::NotForGame { setting, .. } => setting.split('=').next().unwrap_or(setting),
            ConfigError::NoBudget
            | ConfigError::ArenaTooSmall { .. }
            | ConfigError::ArenaTooLarge { .. }
            | ConfigError::ArenaOverMemory { .. }
            | ConfigError::Conflict { .. } => return None,
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_arena_refusal_maps_to_the_config_error_it_means() {
        let too_small = crate::tree::Arena::new(1).unwrap_err();
        assert_eq!(ConfigError::from(too_small), ConfigError::ArenaTooSmall { nodes: 1, needed: MIN_ARENA_NODES });
        let too_large = crate::tree::Arena::new(1 << 33).unwrap_err();
        assert_eq!(ConfigError::from(too_large), ConfigError::ArenaTooLarge { nodes: 1 << 33, max: MAX_ARENA_NODES });
    }
}

/// Why a search's leaf evaluation does not fit the game searched (a
/// [`super::SearchError::Evaluation`]).
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum EvaluationError {
    /// The network does not fit this game (one for another game), or the game ships
    /// none ([`NetworkError::NoShippedNetwork`]).
    Network(NetworkError),
    /// The evaluator set with [`Search::set_evaluator`](super::Search::set_evaluator) is
    /// for another game.
    OtherGame {
        /// The game it is for.
        set_for: &'static str,
        /// The game searched.
        searched: &'static str,
    },
    /// A setting that works on an evaluator's values, in a game that has none by default
    /// and with no `eval=` given.
    NoEvaluator {
        /// The setting, as given (`eval-priors=on`, `implicit`).
        setting: &'static str,
        /// The game.
        game: &'static str,
    },
}

impl fmt::Display for EvaluationError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EvaluationError::Network(e) => e.fmt(f),
            EvaluationError::OtherGame { set_for, searched } => {
                write!(f, "the evaluator set is for {set_for}, and the search is of {searched}")
            }
            EvaluationError::NoEvaluator { setting, game } => {
                write!(f, "{setting} needs an evaluator, and {game} has none by default (give eval=)")
            }
        }
    }
}

impl std::error::Error for EvaluationError {}

/// Why a search could not run.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum SearchError {
    /// The configuration is invalid, or does not fit the position searched (an arena too
    /// small for the root's children: [`ConfigError::ArenaTooSmall`]).
    Config(ConfigError),
    /// The root position is already over.
    GameOver,
    /// The configured move weights are not for this game.
    Weights(WeightsError),
    /// The configured leaf evaluator does not fit this game, or a setting that needs
    /// one has none.
    Evaluation(EvaluationError),
    /// A distributed search (`mode=dist`) cannot run here: MPI is not running, this is
    /// not the thread that initialised it, or the ranks search different positions.
    Cluster(ClusterError),
    /// `until-stopped=on` (no budget) with [`Search::run`](super::Search::run), which
    /// would never return: start the search ([`Search::start`](super::Search::start))
    /// and stop it through its handle.
    Unbounded,
    /// [`Search::start`](super::Search::start) in a mode no handle can drive (`dist`:
    /// its ranks stop together at a share).
    NoHandle(Mode),
    /// The search's thread could not start (the operating system's reason).
    Thread(String),
    /// The evaluator failed or gave a value outside `[0, 1]`: the search stopped, its
    /// tree kept every walk backed up before (the failed walks are taken back).
    Evaluator(EvalError),
}

impl fmt::Display for SearchError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SearchError::Config(e) => e.fmt(f),
            SearchError::GameOver => write!(f, "the position is already over: nothing to search"),
            SearchError::Weights(e) => e.fmt(f),
            SearchError::Evaluation(e) => write!(f, "eval: {e}"),
            SearchError::Cluster(e) => write!(f, "mode dist: {e}"),
            SearchError::Unbounded => {
                write!(f, "until-stopped=on gives the search no budget: start it and stop it through its handle")
            }
            SearchError::NoHandle(mode) => write!(f, "mode {mode}: a search handle cannot stop or watch it"),
            SearchError::Thread(why) => write!(f, "the search's thread could not start: {why}"),
            SearchError::Evaluator(e) => write!(f, "the search stopped: {e}"),
        }
    }
}

impl std::error::Error for SearchError {}

impl From<ConfigError> for SearchError {
    fn from(e: ConfigError) -> Self {
        SearchError::Config(e)
    }
}
