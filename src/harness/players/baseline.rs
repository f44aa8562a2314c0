//! The baseline players' keys (`minimax:`, `alphabeta:`, `expectimax:`), each declared
//! once in a table of [`Setting`]s, the search settings' machinery: key, value name,
//! help, default and how the value is read. Their bounds are declared once too
//! ([`Bound`]): one constant gives both the check and its message.

use std::str::FromStr;

use super::*;
use crate::expectimax::MAX_DEPTH as EXPECTIMAX_MAX_DEPTH;
use crate::search::Setting;

/// Default transposition table of an alpha-beta player, in MiB.
pub const DEFAULT_TT_MB: usize = 16;

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
    /// Reads an `eval=` value.
    pub(super) fn parse(value: &str) -> Result<EvalSpec, SettingError> {
        Ok(match value {
            "heuristic" => EvalSpec::Heuristic,
            "network" => EvalSpec::Network,
            "" => {
                let expected = "heuristic, network or a file".to_string();
                return Err(SettingError::BadValue { key: "eval", value: value.to_string(), expected });
            }
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

/// What a baseline player's keys set, before its bounds are checked.
#[derive(Clone, Debug, PartialEq)]
pub(super) struct Baseline {
    /// Plies (`depth=D`).
    pub(super) depth: Option<u32>,
    /// Milliseconds per move (`time-ms=T`).
    pub(super) time_ms: Option<u64>,
    /// Transposition table in MiB (`tt-mb=M`).
    pub(super) tt_mb: usize,
    /// What scores the depth cut-off (`eval=`).
    pub(super) eval: EvalSpec,
    /// Node budget of the exact solver (`endgame=N`).
    pub(super) endgame: u64,
}

impl Default for Baseline {
    fn default() -> Baseline {
        Baseline { depth: None, time_ms: None, tt_mb: DEFAULT_TT_MB, eval: EvalSpec::default(), endgame: 0 }
    }
}

/// Reads `value` for `key` as a number.
fn number<T: FromStr>(key: &'static str, value: &str) -> Result<T, SettingError> {
    value.parse().map_err(|_| SettingError::BadValue { key, value: value.to_string(), expected: "a number".into() })
}

/// `depth=D`: plies.
const DEPTH: Setting<Baseline> = Setting {
    key: "depth",
    alias: None,
    value_name: "D",
    help: "Plies searched.",
    default: "none",
    per_game: false,
    apply: |b, v| Ok(Baseline { depth: Some(number("depth", v)?), ..b }),
};
/// `time-ms=T`: the time per move.
const TIME_MS: Setting<Baseline> = Setting {
    key: "time-ms",
    alias: None,
    value_name: "T",
    help: "Milliseconds per move (iterative deepening).",
    default: "none",
    per_game: false,
    apply: |b, v| Ok(Baseline { time_ms: Some(number("time-ms", v)?), ..b }),
};
/// `tt-mb=M`: the transposition table.
const TT_MB: Setting<Baseline> = Setting {
    key: "tt-mb",
    alias: None,
    value_name: "M",
    help: "Transposition table size in MiB.",
    default: "16",
    per_game: false,
    apply: |b, v| Ok(Baseline { tt_mb: number("tt-mb", v)?, ..b }),
};
/// `eval=heuristic|network|FILE`: what scores the depth cut-off.
const EVAL: Setting<Baseline> = Setting {
    key: "eval",
    alias: None,
    value_name: "heuristic|network|FILE",
    help: "What scores the depth cut-off.",
    default: "heuristic",
    per_game: false,
    apply: |b, v| Ok(Baseline { eval: EvalSpec::parse(v)?, ..b }),
};
/// `endgame=N`: the exact solver's node budget before searching.
const ENDGAME: Setting<Baseline> = Setting {
    key: "endgame",
    alias: None,
    value_name: "NODES",
    help: "Node budget of the game's exact solver, tried before searching (0: off).",
    default: "0",
    per_game: false,
    apply: |b, v| Ok(Baseline { endgame: number("endgame", v)?, ..b }),
};

/// A bound on a baseline key's value: its check and its message from one number.
#[derive(Clone, Copy, Debug)]
pub(super) struct Bound {
    /// The key bounded.
    key: &'static str,
    /// At least (`true`) or at most (`false`) the limit.
    at_least: bool,
    /// The limit.
    limit: u64,
    /// The value given, if any.
    of: fn(&Baseline) -> Option<u64>,
}

impl Bound {
    /// Checks `baseline`'s value (unset passes), or says what is wrong.
    pub(super) fn check(&self, baseline: &Baseline) -> Result<(), String> {
        let (key, limit) = (self.key, self.limit);
        match (self.of)(baseline) {
            Some(got) if self.at_least && got < limit => Err(format!("{key} must be at least {limit} (got {got})")),
            Some(got) if !self.at_least && got > limit => Err(format!("{key} must be at most {limit}")),
            _ => Ok(()),
        }
    }
}

/// One baseline player: its keys, what it needs at least, and its bounds in the order
/// they are checked.
pub(super) struct Player {
    /// The player kind (`alphabeta`).
    pub(super) name: &'static str,
    /// Its keys.
    pub(super) keys: &'static [Setting<Baseline>],
    /// What it needs when neither a depth nor a time is given.
    pub(super) needs: &'static str,
    /// Whether a time limit (`time-ms`) may stand in for a depth.
    pub(super) timed: bool,
    /// Its bounds.
    pub(super) bounds: &'static [Bound],
}

/// The least depth of every baseline player.
const MIN_DEPTH: Bound = Bound { key: "depth", at_least: true, limit: 1, of: |b| b.depth.map(u64::from) };
/// The least time per move.
const MIN_TIME: Bound = Bound { key: "time-ms", at_least: true, limit: 1, of: |b| b.time_ms };
/// The least transposition table.
const MIN_TT: Bound = Bound { key: "tt-mb", at_least: true, limit: 1, of: |b| Some(b.tt_mb as u64) };
/// The deepest expectimax search ([`EXPECTIMAX_MAX_DEPTH`]).
const MAX_EXPECTIMAX_DEPTH: Bound =
    Bound { key: "depth", at_least: false, limit: EXPECTIMAX_MAX_DEPTH as u64, of: |b| b.depth.map(u64::from) };

/// `minimax:depth=D`.
pub(super) const MINIMAX: Player =
    Player { name: "minimax", keys: &[DEPTH], needs: "minimax needs depth=D", timed: false, bounds: &[MIN_DEPTH] };
/// `alphabeta:depth=D,time-ms=T,tt-mb=M,eval=...,endgame=N`.
pub(super) const ALPHABETA: Player = Player {
    name: "alphabeta",
    keys: &[DEPTH, TIME_MS, TT_MB, EVAL, ENDGAME],
    needs: "alphabeta needs depth=D or time-ms=T",
    timed: true,
    bounds: &[MIN_DEPTH, MIN_TIME, MIN_TT],
};
/// `expectimax:depth=D,time-ms=T`, the depth at most [`EXPECTIMAX_MAX_DEPTH`].
pub(super) const EXPECTIMAX: Player = Player {
    name: "expectimax",
    keys: &[DEPTH, TIME_MS],
    needs: "expectimax needs depth=D or time-ms=T",
    timed: true,
    bounds: &[MIN_DEPTH, MAX_EXPECTIMAX_DEPTH, MIN_TIME],
};
