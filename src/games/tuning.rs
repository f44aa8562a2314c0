//! Search tuning a game may measure and set: [`Tuning`].

use super::Game;

/// The search settings a game sets by default, each measured for the game (the numbers
/// behind the shipped games' values are in `docs/RESULTS.md`). Every item has a default:
/// an embedder writes `impl Tuning for MyGame {}`. A search's configuration overrides
/// any of them.
pub trait Tuning: Game {
    /// The learned weights file (JSON, [`crate::weights::MoveWeights`]) a search uses by
    /// default in place of the game's action values, if the game ships one: learned sets
    /// are measured against the hand-set action values before they replace them.
    const SHIPPED_WEIGHTS: Option<&'static str> = None;

    /// The UCB1 exploration constant C a search uses unless told
    /// ([`crate::search::SearchConfigBuilder::c`]): sqrt(2), unless another value measured
    /// stronger for the game.
    const EXPLORATION: f64 = std::f64::consts::SQRT_2;

    /// PUCT's exploration weight c_puct a search with `select=puct` uses unless told
    /// (`c-puct=`): 1, unless another value measured stronger for the game.
    const PUCT_EXPLORATION: f32 = 1.0;

    /// The RAVE constant k a search uses unless told (`rave=`): 0 (no RAVE), unless RAVE
    /// measured stronger at equal time.
    const RAVE: f32 = 0.0;

    /// Whether a search shares its root's budget among the root's moves by sequential
    /// halving unless told (`halving=`, [`crate::search::SearchConfigBuilder::halving`]):
    /// false, unless measured stronger.
    const HALVING: bool = false;

    /// The progressive bias weight C_BT a search uses unless told (`bias=`): 0 (none),
    /// unless the game's move strengths ([`crate::games::Playouts::action_value`]) measured
    /// stronger as priors.
    const PROGRESSIVE_BIAS: f32 = 0.0;

    /// Whether a search plays biased playouts unless told (`playout=`): true, unless
    /// uniform ones measured stronger at equal time (Go, where the biased playouts are
    /// the heavy ones).
    const BIASED_PLAYOUTS_BY_DEFAULT: bool = true;

    /// Whether a search values its leaves with the game's shipped n-tuple network by
    /// default ([`crate::search::SearchConfigBuilder::eval`], `eval=default`): false,
    /// unless measured stronger at equal time.
    const LEAF_EVALUATION: bool = false;

    /// The exploration constant C with a leaf evaluator (`eval=network`, or the default
    /// where [`Tuning::LEAF_EVALUATION`] is set): the evaluator's values are less noisy
    /// than playouts', and want another C. Default: [`Tuning::EXPLORATION`].
    const EVAL_EXPLORATION: f64 = Self::EXPLORATION;

    /// The implicit minimax weight α a search with a leaf evaluator uses unless told
    /// ([`crate::search::SearchConfigBuilder::implicit`]): 0 (off), unless measured
    /// stronger for the game.
    const IMPLICIT_MINIMAX: f32 = 0.0;

    /// Whether a search prunes by default ([`Playouts::prune_moves`](super::Playouts::prune_moves),
    /// [`crate::search::SearchConfigBuilder::prune`]): false, unless the game's rule is
    /// cheap and measured stronger at equal time.
    const PRUNE_BY_DEFAULT: bool = false;

    /// The visits a child's prior counts as by default (priors as equivalent experience,
    /// [`crate::search::SearchConfigBuilder::prior_visits`]): 0 (off), unless measured
    /// stronger for the game.
    const PRIOR_VISITS: f32 = 0.0;

    /// Whether a search plays last good replies by default
    /// ([`crate::search::SearchConfigBuilder::replies`]; games whose playouts learn
    /// them: [`Playouts::LEARNS_REPLIES`](super::Playouts::LEARNS_REPLIES)): false,
    /// unless measured stronger at equal time.
    const LAST_GOOD_REPLIES: bool = false;

    /// How many playouts a search worker keeps in flight by default
    /// ([`crate::search::SearchConfigBuilder::lanes`]): 1, unless [`Playouts::playouts`](super::Playouts::playouts)
    /// interleaves lanes and that measured stronger at equal time.
    const PLAYOUT_LANES: usize = 1;

    /// The node budget of the game's exact solver ([`crate::games::Endgame`]) on the
    /// position to move, which the MCTS player tries before it searches
    /// ([`crate::search::SearchConfigBuilder::endgame`]): 0 (off), unless measured
    /// stronger for the game.
    const ENDGAME_NODES: u64 = 0;

    /// The node budget of the game's exact solver at each node the MCTS-Solver expands
    /// ([`crate::search::SearchConfigBuilder::endgame_leaf`]): 0 (off), unless measured
    /// stronger for the game.
    const ENDGAME_LEAF_NODES: u64 = 0;
}
