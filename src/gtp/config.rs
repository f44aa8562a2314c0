//! The GTP engine's settings.

use crate::search::SearchConfig;

/// An engine's settings.
#[derive(Clone, Debug, PartialEq)]
pub struct EngineConfig {
    /// The search settings; their budget is each move's when there is no clock. Under a
    /// clock the clock gives the time, and a playout budget, if set, caps it.
    pub search: SearchConfig,
    /// Resign when the best move's win rate is below this (0 never), a few moves into
    /// the game and with the search confident ([`super::session::RESIGN_MIN_PLIES`]).
    pub resign_below: f64,
    /// Ponder: after each move the engine plays (`genmove`, or the `genmove_analyze`
    /// commands), search on the opponent's time until the engine next searches, keeping
    /// the subtree of the position it then finds.
    pub ponder: bool,
}
