//! What an unset setting means for a game: its [`Tuning`](crate::games::Tuning) (and
//! its shipped network) fills it. Each such setting declares its accessor with itself in
//! `search_settings!` (`search::config`: `c_for`, `lanes_for`, `prune_for`,
//! `playout_for`, `rave_for`, `bias_for`, `halving_for`, `implicit_for`, `endgame_for`,
//! `endgame_leaf_for`, `final_move_rule`, `evaluates`), the one place where per-game
//! defaults are read; here is what holds for every game at once.

use super::config::{Evaluation, SearchConfig};

impl SearchConfig {
    /// Whether a search may keep implicit minimax values, for any game: `implicit` not
    /// set to 0 and an evaluator not ruled out (`eval` not `none`). The arenas get their
    /// values array when the search is built, before the game is known.
    pub fn may_keep_values(&self) -> bool {
        self.implicit != Some(0.0) && self.eval != Evaluation::None
    }

    /// Whether a search may keep RAVE's AMAF statistics, for any game: `rave` set above 0,
    /// or left to the game (whose default may turn it on at its first run).
    pub fn may_keep_amaf(&self) -> bool {
        self.rave.is_none_or(|k| k > 0.0)
    }

    /// The arenas a search with this configuration may fill: one per tree, and tree
    /// reuse's spare arena.
    pub(crate) fn arenas(&self) -> u64 {
        crate::search::drivers::trees(self) as u64 + u64::from(self.reuse)
    }

    /// The most bytes a node may take with every side array the configuration allows.
    pub(crate) fn bytes_per_node(&self) -> u64 {
        crate::tree::Arena::bytes_per_node(self.may_keep_amaf(), self.may_keep_values())
    }
}

#[cfg(test)]
mod tests {
    use super::super::config::*;

    /// A setting that each game fills shows one value per game, read through its accessor.
    #[test]
    fn per_game_defaults_come_from_the_accessors() {
        use crate::games::{ConnectFour, Othello, TicTacToe};
        let shown = |key: &str| Setting::find(key).unwrap();
        for s in SETTINGS {
            assert_eq!(s.per_game, s.default == "per game", "{}", s.key);
            assert_eq!(s.per_game, s.default_in::<ConnectFour>().is_some() && s.key != "final", "{}", s.key);
        }
        assert_eq!(shown("c").default_in::<ConnectFour>().as_deref(), Some("0.5"));
        assert_eq!(shown("c").default_in::<TicTacToe>().as_deref(), Some("1.4142135"));
        assert_eq!(shown("prune").default_in::<ConnectFour>().as_deref(), Some("on"));
        assert_eq!(shown("eval").default_in::<Othello>().as_deref(), Some("network"));
        assert_eq!(shown("final").default_in::<ConnectFour>().as_deref(), Some("secure"));
        assert_eq!(shown("seed").default_in::<ConnectFour>(), None);
        let config = SearchConfig::builder().playouts(1).build().unwrap();
        assert_eq!(config.lanes_for::<Othello>(), 2);
        assert!(config.halving_for::<ConnectFour>() && !config.halving_for::<Othello>());
    }
}
