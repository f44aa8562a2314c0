//! What an unset setting means for a game: its [`Tuning`] (and its shipped network)
//! fills it. The `*_for` accessors are the one place where per-game defaults are read.

use super::config::{Evaluation, FinalMove, Mode, Playout, SearchConfig};
use crate::games::{NTupleBoard, Tuning};

impl SearchConfig {
    /// The exploration constant for `G`: `c` if set, else the game's
    /// [`Tuning::EXPLORATION`]. With [`SearchConfig::leaves_for`] and
    /// [`SearchConfig::prune_for`], the one place where per-game defaults are read.
    pub fn c_for<G: Tuning + NTupleBoard>(&self) -> f32 {
        let default = if self.evaluates::<G>() { G::EVAL_EXPLORATION } else { G::EXPLORATION };
        self.c.unwrap_or(default as f32)
    }

    /// Whether a search of `G` values its leaves with an evaluator: `eval` if set to a
    /// network, else the game's [`Tuning::LEAF_EVALUATION`]
    /// where it ships a network.
    pub fn evaluates<G: Tuning + NTupleBoard>(&self) -> bool {
        match self.eval {
            Evaluation::Default => G::LEAF_EVALUATION && G::SHIPPED_NETWORK.is_some(),
            Evaluation::None => false,
            Evaluation::Shipped | Evaluation::Network(_) => true,
        }
    }

    /// Playouts each worker keeps in flight for `G`: `leaves` if set, else the game's
    /// [`Tuning::PLAYOUT_LANES`].
    pub fn leaves_for<G: Tuning>(&self) -> usize {
        self.leaves.map_or(G::PLAYOUT_LANES, |n| n as usize)
    }

    /// The RAVE constant k of a search of `G`: `rave` if set, else the game's
    /// [`Tuning::RAVE`] (0: no RAVE).
    pub fn rave_for<G: Tuning>(&self) -> f32 {
        self.rave.unwrap_or(G::RAVE)
    }

    /// The final-move rule of a search of `G`: [`SearchConfig::final_move`] if set, else
    /// secure with halving and most visits without.
    pub fn final_move_rule<G: Tuning>(&self) -> FinalMove {
        self.final_move.unwrap_or(if self.halving_for::<G>() { FinalMove::Secure } else { FinalMove::Visits })
    }

    /// Whether a search of `G` shares its root's budget by sequential halving: `halving`
    /// if set, else the game's [`Tuning::HALVING`] (off in
    /// a distributed search, whose ranks' root visits are no one tree's budget).
    pub fn halving_for<G: Tuning>(&self) -> bool {
        self.halving.unwrap_or(G::HALVING && self.mode != Mode::Dist)
    }

    /// The progressive bias weight C_BT of a search of `G`: `bias` if set, else the
    /// game's [`Tuning::PROGRESSIVE_BIAS`] (0: off).
    pub fn bias_for<G: Tuning>(&self) -> f32 {
        self.bias.unwrap_or(G::PROGRESSIVE_BIAS)
    }

    /// The playout policy of a search of `G`: `playout` if set, else the game's
    /// [`Tuning::BIASED_PLAYOUTS_BY_DEFAULT`].
    pub fn playout_for<G: Tuning>(&self) -> Playout {
        self.playout.unwrap_or(if G::BIASED_PLAYOUTS_BY_DEFAULT { Playout::Biased } else { Playout::Random })
    }

    /// Whether a search of `G` prunes: `prune` if set, else the game's
    /// [`Tuning::PRUNE_BY_DEFAULT`].
    pub fn prune_for<G: Tuning>(&self) -> bool {
        self.prune.unwrap_or(G::PRUNE_BY_DEFAULT)
    }

    /// The implicit minimax weight α for `G`: 0 where the search does not evaluate its
    /// leaves, else `implicit` if set, else the game's
    /// [`Tuning::IMPLICIT_MINIMAX`].
    pub fn implicit_for<G: Tuning + NTupleBoard>(&self) -> f32 {
        if !self.evaluates::<G>() {
            return 0.0;
        }
        self.implicit.unwrap_or(G::IMPLICIT_MINIMAX)
    }

    /// Whether a search may keep implicit minimax values, for any game: `implicit` not
    /// set to 0 and an evaluator not ruled out (`eval` not `none`). The arenas get their
    /// values array when the search is built, before the game is known.
    pub fn may_keep_values(&self) -> bool {
        self.implicit != Some(0.0) && self.eval != Evaluation::None
    }

    /// The node budget of the game's exact solver on the position to move, for `G`:
    /// `endgame` if set, else the game's [`Tuning::ENDGAME_NODES`].
    pub fn endgame_for<G: Tuning>(&self) -> u64 {
        self.endgame.unwrap_or(G::ENDGAME_NODES)
    }

    /// The exact solver's node budget at each expansion for `G` (with the solver on):
    /// `endgame-leaf` if set, else the game's
    /// [`Tuning::ENDGAME_LEAF_NODES`].
    pub fn endgame_leaf_for<G: Tuning>(&self) -> u64 {
        self.endgame_leaf.unwrap_or(G::ENDGAME_LEAF_NODES)
    }
}
