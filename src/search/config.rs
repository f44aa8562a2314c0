//! Search configuration: every setting declared once (`search_settings!` below), a
//! builder validated once into a [`SearchConfig`] that cannot be invalid, and the
//! [`SETTINGS`] table through which text (CLI flags, `mcts:key=value` player specs)
//! reaches the builder.
//!
//! Each setting's declaration gives its field, type and default, its builder setter, its
//! text key (`--key` in `parmcts search` and `key=` in a player spec are the same name),
//! its help line and the default shown in `--help`. From it come the config's field and
//! getter, the builder's setter, and its entry of [`SETTINGS`]. Adding a setting means
//! one declaration and its use. How a value is read from text is `search::setting`'s.

use std::fmt;
use std::time::Duration;

pub use super::error::ConfigError;
pub use super::iteration::MAX_LEAVES;
pub use super::options::{
    ChanceSelection, DistScheme, Evaluation, FinalMove, InFlight, Mode, Playout, Weights, DEFAULT_BIAS_K, SECURE_A,
};
use super::setting::parse_setting;
pub use super::setting::{Setting, SettingError};
use crate::evaluator::NTupleBoard;
use crate::games::Tuning;
use crate::tree::NODE_BYTES;

/// The most playouts one search may run: node visit counters are 32-bit, with the score
/// (up to twice the visits) in the other half of the same word.
pub const MAX_PLAYOUTS: u64 = (1 << 31) - 1;
/// The most worker threads a search may use: far above any core count a search scales
/// to, low enough that a mistyped count fails at once instead of spawning threads until
/// memory runs out.
pub const MAX_THREADS: usize = 1024;

/// Leaves rank 0 of a farm (`dist-scheme=farm`) sends another rank at a time, unless
/// told (`dist-batch`): with two batches in flight, 32 walks per other rank, where the
/// shared tree loses nothing measurable per playout (docs/SCALING.md, virtual threads).
pub const DEFAULT_DIST_BATCH: u32 = 16;
/// The most leaves in one batch of a farm (each walk in flight keeps its own path).
pub const MAX_DIST_BATCH: u32 = 256;

/// The deepest negamax at the leaves (`eval-depth`): each ply multiplies a leaf's
/// evaluations by the number of moves.
pub const MAX_EVAL_DEPTH: u32 = 4;
/// The smallest arena accepted up front (a root plus a block of children); the exact
/// requirement depends on the root position and is checked when the search starts.
pub const MIN_ARENA_NODES: u64 = 2;
/// The largest arena: node indices are 32-bit.
pub const MAX_ARENA_NODES: u64 = u32::MAX as u64;
/// Default expansion threshold: a leaf gets its children on its 8th visit. Measured on
/// Connect Four (1,000,000 playouts from the empty board, `perf stat -r 5`): 1.24 G cycles
/// against 1.63 G at threshold 1, with 366,836 nodes against 2,110,504; strength at
/// 10,000 playouts per move: +1.7 Elo [-45, +49] over 200 games (no difference), and
/// tic-tac-toe at 2,000 playouts still draws every game against perfect play.
pub const DEFAULT_EXPAND_THRESHOLD: u32 = 8;
/// Default arena size: 2^24 nodes (384 MiB of address space, touched only as used).
pub const DEFAULT_ARENA_NODES: u64 = 1 << 24;

/// Declares the search settings. Each entry:
///
/// ```text
/// /// Help line (the CLI's help); further doc lines document the setter and getter.
/// name("key", "VALUE", "default shown in --help"): StoredType = default_value;
///     set(argument: ArgType) => stored_value_expression; text TextType;
/// ```
///
/// `text TextType` is what a text value is read as before it goes to the setter.
macro_rules! search_settings {
    ($(
        #[doc = $help:literal]
        $(#[doc = $doc:literal])*
        $field:ident($key:literal, $value_name:literal, $shown:literal): $ty:ty = $default:expr;
            set($arg:ident: $arg_ty:ty) => $conv:expr; text $text_ty:ty;
    )*) => {
        /// A validated search configuration. Build one with [`SearchConfig::builder`].
        #[derive(Clone, Debug, PartialEq)]
        pub struct SearchConfig {
            $( pub(crate) $field: $ty, )*
            /// Arena capacity in nodes, resolved by `build` from `nodes` or `memory-mb`.
            pub(crate) arena_capacity: u64,
        }

        impl SearchConfig {
            /// The settings' defaults, before validation (no budget: not yet valid).
            fn defaults() -> SearchConfig {
                SearchConfig { $( $field: $default, )* arena_capacity: DEFAULT_ARENA_NODES }
            }
            $(
                #[doc = $help]
                $(#[doc = $doc])*
                pub fn $field(&self) -> $ty {
                    self.$field.clone()
                }
            )*
        }

        impl SearchConfigBuilder {
            $(
                #[doc = $help]
                $(#[doc = $doc])*
                pub fn $field(mut self, $arg: $arg_ty) -> Self {
                    self.config.$field = $conv;
                    self
                }
            )*
        }

        /// Every search setting, in `--help` order: the one table behind the `search`
        /// command's flags, the `mcts:` player-spec keys and the benchmark's settings.
        pub const SETTINGS: &[Setting] = &[$(
            Setting {
                key: $key,
                value_name: $value_name,
                help: $help,
                default: $shown,
                apply: |builder, text| Ok(builder.$field(parse_setting::<$text_ty>($key, text)?)),
            },
        )*];
    };
}

search_settings! {
    /// Stop after this many playouts (at most 2^31 - 1).
    playouts("playouts", "N", "100000 in `search`, 10000 in an mcts player spec"): Option<u64> = None;
        set(playouts: u64) => Some(playouts); text u64;
    /// Stop after this much wall time, in milliseconds (not before the root has a visit per move).
    /// (A search that got no CPU before its deadline still looks at each move.)
    time("time-ms", "MS", "none"): Option<Duration> = None;
        set(time: Duration) => Some(time); text Duration;
    /// UCB1 exploration constant C (stored as a 32-bit float).
    ///
    /// Unset: the game's default ([`Tuning::EXPLORATION`]).
    c("c", "C", "per game (Tuning::EXPLORATION)"): Option<f32> = None;
        set(c: f64) => Some(c as f32); text f64;
    /// Random seed; worker i seeds its generator from (seed, i).
    seed("seed", "S", "0"): u64 = 0;
        set(seed: u64) => seed; text u64;
    /// Threading mode: auto (seq at one thread, else the mode measured strongest per second: tree), seq (one thread, no atomics), tree (one shared tree), root (a tree per thread), sync (a tree per thread, shallow statistics shared), virtual (simulated threads) or dist (one tree per MPI rank, run under mpirun; needs the `mpi` feature).
    ///
    /// `virtual` runs `threads` logical workers in one OS thread on one tree, each
    /// back-up delayed as if its playout were still running ([`Mode::Virtual`]).
    mode("mode", "auto|seq|tree|root|sync|virtual|dist", "auto: seq at 1 thread, else tree"): Mode = Mode::Auto;
        set(mode: Mode) => mode; text Mode;
    /// Worker threads (1 in seq mode; in virtual mode the logical workers; at most 1024).
    threads("threads", "K", "1"): usize = 1;
        set(threads: usize) => threads; text usize;
    /// Virtual loss added per in-flight playout (shared trees and lanes; 0 disables).
    virtual_loss("virtual-loss", "V", "1"): u32 = 1;
        set(virtual_loss: u32) => virtual_loss; text u32;
    /// How selection reads in-flight playouts: loss (virtual loss) or wu-uct.
    in_flight("in-flight", "loss|wu-uct", "loss"): InFlight = InFlight::Loss;
        set(in_flight: InFlight) => in_flight; text InFlight;
    /// How the walk picks a chance node's outcome (games with dice): sample (drawn by its weight) or walk (each outcome in proportion to its weight).
    ///
    /// See [`ChanceSelection`]; games without chance turns never read it.
    chance("chance", "sample|walk", "sample"): ChanceSelection = ChanceSelection::Sample;
        set(chance: ChanceSelection) => chance; text ChanceSelection;
    /// Playouts each worker keeps in flight, 1-4.
    ///
    /// A worker descends to `n` leaves, virtual loss spreading them, then runs their `n`
    /// playouts at once through [`Playouts::playouts`](crate::games::Playouts::playouts), which a game whose
    /// playout is one long dependency chain interleaves (Othello: 1.62x the playouts per
    /// second for 2). With `n > 1` the exclusive trees of the sequential and
    /// root-parallel modes keep virtual loss too (plain adds, still no atomic
    /// instruction). Unset: the game's [`Tuning::PLAYOUT_LANES`].
    leaves("leaves", "L", "per game (Tuning::PLAYOUT_LANES)"): Option<u32> = None;
        set(leaves: u32) => Some(leaves); text u32;
    /// Synced mode: iterations each worker runs between two exchanges of statistics.
    sync_every("sync-every", "N", "256"): u32 = 256;
        set(iterations: u32) => iterations; text u32;
    /// Synced mode: the trees share the statistics of nodes up to this many plies below the root.
    sync_depth("sync-depth", "D", "2"): u32 = 2;
        set(plies: u32) => plies; text u32;
    /// Dist mode: milliseconds between two shares of the statistics between the ranks.
    dist_period("dist-period", "MS", "50"): u32 = 50;
        set(ms: u32) => ms; text u32;
    /// Dist mode: how the ranks divide the work: share (a tree per rank, shallow statistics shared), farm (one tree on rank 0, the other ranks evaluate its leaves) or split (one tree, its subtrees below dist-depth owned by one rank each); farm and split run one thread a rank.
    ///
    /// See [`DistScheme`]. The `dist-period`, `dist-every`, `dist-depth` and `dist-share`
    /// settings are the share scheme's, and the split's (its shared top is `dist-depth`
    /// plies); `dist-batch` is the farm's and the split's, `dist-local` the farm's.
    dist_scheme("dist-scheme", "share|farm|split", "share"): DistScheme = DistScheme::Share;
        set(scheme: DistScheme) => scheme; text DistScheme;
    /// Dist mode, farm: leaves rank 0 sends another rank at a time (two such batches in flight to each).
    dist_batch("dist-batch", "B", "16"): u32 = DEFAULT_DIST_BATCH;
        set(leaves: u32) => leaves; text u32;
    /// Dist mode, farm: leaves rank 0 evaluates itself between two rounds of batches, so that the search is reproducible (unset: as many as fit while it waits).
    dist_local("dist-local", "L", "off: while waiting"): Option<u32> = None;
        set(leaves: u32) => Some(leaves); text u32;
    /// Dist mode: share after every P playouts of each rank instead of by time (the workers wait at each share, so one thread per rank searches reproducibly).
    dist_every("dist-every", "P", "off: every dist-period ms"): Option<u32> = None;
        set(playouts: u32) => Some(playouts); text u32;
    /// Dist mode: the ranks share the statistics of nodes up to this many plies below the root.
    dist_depth("dist-depth", "D", "3"): u32 = 3;
        set(plies: u32) => plies; text u32;
    /// Dist mode: below the root's children, only nodes with at least this percentage of the root's visits are shared.
    dist_share("dist-share", "P", "1"): f32 = 1.0;
        set(percent: f64) => percent as f32; text f64;
    /// Arena capacity in nodes (24 bytes each; a mode with a tree per thread shares it between the trees).
    arena_nodes("nodes", "N", "16777216 (384 MiB)"): Option<u64> = None;
        set(nodes: u64) => Some(nodes); text u64;
    /// Arena capacity in MiB (an alternative to nodes).
    memory_mb("memory-mb", "MB", "384"): Option<u64> = None;
        set(mb: u64) => Some(mb); text u64;
    /// Visits a leaf needs before it is expanded (at least 1).
    expand_threshold("expand", "E", "8"): u32 = DEFAULT_EXPAND_THRESHOLD;
        set(visits: u32) => visits; text u32;
    /// Final move: visits (most visited), value (best mean) or secure (best lower bound).
    ///
    /// Unset: visits, or secure with halving (its last two survivors have about equal
    /// visits). Read through [`SearchConfig::final_move_rule`].
    final_move("final", "visits|value|secure", "visits (secure with halving)"): Option<FinalMove> = None;
        set(rule: FinalMove) => Some(rule); text FinalMove;
    /// Sequential halving at the root, UCB1 below it.
    ///
    /// Hybrid MCTS (Pepels, Cazenave, Winands & Lanctot 2014): the root's budget goes to
    /// its rivals in rounds, halving the candidates by their means, instead of as UCB1's
    /// `ln N`. A timed search's rounds are shares of its time.
    ///
    /// Unset: the game's [`Tuning::HALVING`], except in a
    /// distributed search.
    halving("halving", "on|off", "per game (Tuning::HALVING)"): Option<bool> = None;
        set(on: bool) => Some(on); text bool;
    /// Tree reuse: keep the subtree of the position reached between a player's moves.
    ///
    /// Measured: +37 Elo [+4, +69] in Connect Four, -3 [-37, +30] in Othello at 20 ms per
    /// move (docs/RESULTS.md).
    reuse("reuse", "on|off", "on"): bool = true;
        set(on: bool) => on; text bool;
    /// Progressive bias weight C_BT (0: off; Chaslot et al. 2008).
    ///
    /// Unset: the game's [`Tuning::PROGRESSIVE_BIAS`].
    bias("bias", "C_BT", "per game (Tuning::PROGRESSIVE_BIAS)"): Option<f32> = None;
        set(c_bt: f64) => Some(c_bt as f32); text f64;
    /// Progressive bias constant K (the visits over which the bias halves, squared).
    bias_k("bias-k", "K", "5000"): f32 = DEFAULT_BIAS_K as f32;
        set(k: f64) => k as f32; text f64;
    /// Playout policy: random (uniform) or biased (roulette wheel; Go: heavy playouts).
    ///
    /// Unset: the game's [`Tuning::BIASED_PLAYOUTS_BY_DEFAULT`].
    /// Biased measured best in both games with action values (docs/RESULTS.md): Othello
    /// +430 Elo at equal time, Connect Four +71; Go's heavy playouts lose at equal time.
    playout("playout", "random|biased", "per game (Tuning::BIASED_PLAYOUTS_BY_DEFAULT)"): Option<Playout> = None;
        set(playout: Playout) => Some(playout); text Playout;
    /// Win-first / block-first pruning in tree and playouts: on or off.
    ///
    /// Unset: the game's [`Tuning::PRUNE_BY_DEFAULT`] (on in Connect Four,
    /// where the rule is a few bitboard operations and measured +300 Elo on top of biased
    /// playouts; off where it plays every move and reply: Othello's iteration is 80x).
    prune("prune", "on|off", "per game (Tuning::PRUNE_BY_DEFAULT)"): Option<bool> = None;
        set(on: bool) => Some(on); text bool;
    /// MCTS-Solver: prove wins, losses and draws; stop once the root is proven.
    ///
    /// Winands, Björnsson & Saito 2008.
    solver("solver", "on|off", "off"): bool = false;
        set(on: bool) => on; text bool;
    /// Node budget of the game's exact solver on the position to move, before searching (0: off).
    ///
    /// The MCTS player tries the solver first ([`crate::solver::Endgame`]) and plays its
    /// move when it proves a win or a draw. Unset: the game's
    /// [`Tuning::ENDGAME_NODES`].
    endgame("endgame", "NODES", "per game (Tuning::ENDGAME_NODES)"): Option<u64> = None;
        set(nodes: u64) => Some(nodes); text u64;
    /// With solver=on: node budget of the game's exact solver at each node expanded (0: off).
    ///
    /// A position the solver settles becomes a proven leaf, so the MCTS-Solver's proofs
    /// reach down to the exact solver's. Unset: the game's
    /// [`Tuning::ENDGAME_LEAF_NODES`].
    endgame_leaf("endgame-leaf", "NODES", "per game (Tuning::ENDGAME_LEAF_NODES)"): Option<u64> = None;
        set(nodes: u64) => Some(nodes); text u64;
    /// RAVE constant k in beta = sqrt(k / (3N + k)) (0: off; Gelly & Silver 2011).
    ///
    /// Unset: the game's [`Tuning::RAVE`].
    rave("rave", "K", "per game (Tuning::RAVE)"): Option<f32> = None;
        set(k: f64) => Some(k as f32); text f64;
    /// Move strengths: default (the game's shipped set, else its action values), hand-set, or a train-weights FILE.
    ///
    /// A learned set is checked against the game when a search runs. Connect Four's and
    /// Othello's playouts spin an exact integer wheel of the gammas, the largest at 2^24:
    /// a gamma below 2^-24 of the largest weighs 2^-24 of it.
    weights("weights", "default|hand-set|FILE", "default"): Weights = Weights::Shipped;
        set(weights: impl Into<Weights>) => weights.into(); text Weights;
    /// Leaf evaluation: default (per game), none (playouts alone), network (the game's shipped n-tuple network) or a train-network FILE.
    ///
    /// A network file is checked against the game when a search runs.
    eval("eval", "default|none|network|FILE", "default: per game (Tuning::LEAF_EVALUATION)"): Evaluation = Evaluation::Default;
        set(eval: Evaluation) => eval; text Evaluation;
    /// With eval: the evaluator's share λ of a leaf's value, the playout's being 1 − λ (1: no playout).
    ///
    /// AlphaGo's mixing (Silver et al. 2016): `V = (1 − λ)·v + λ·z` in their notation,
    /// here λ weighs the evaluator. The mix is backed up as half points, rounded
    /// stochastically so that its expectation is exact.
    eval_weight("eval-weight", "λ", "1"): f32 = 1.0;
        set(lambda: f64) => lambda as f32; text f64;
    /// With eval: plies of negamax on the evaluator's values at each leaf (0: the leaf's own value; at most 4).
    ///
    /// A shallow search at the leaves in place of the static value (Baier & Winands
    /// 2015, "MCTS-minimax hybrids", with an evaluation function at its horizon): each
    /// ply multiplies the evaluations per leaf by the number of moves.
    eval_depth("eval-depth", "PLIES", "0"): u32 = 0;
        set(plies: u32) => plies; text u32;
    /// With eval and bias: progressive bias priors P(m) from the evaluator (on) or from the move strengths (off).
    ///
    /// The evaluator's priors are a softmax over the moves' afterstate values
    /// ([`crate::evaluator::Evaluator::priors`]), computed once per node, at its expansion.
    eval_priors("eval-priors", "on|off", "off"): bool = false;
        set(on: bool) => on; text bool;
    /// With eval: weight α of the implicit minimax value in selection, `(1 − α)·mean + α·v` (0: off).
    ///
    /// Implicit minimax backups (Lanctot, Winands, Pepels & Sturtevant 2014): each node
    /// also keeps the minimax value of the evaluator's values of the positions below it
    /// (every child valued at its parent's expansion, maxima backed up along each
    /// iteration's path), and selection mixes it with the mean result.
    /// Unset: the game's [`Tuning::IMPLICIT_MINIMAX`]
    /// where the search evaluates its leaves.
    implicit("implicit", "α", "per game (Tuning::IMPLICIT_MINIMAX)"): Option<f32> = None;
        set(alpha: f64) => Some(alpha as f32); text f64;
}

impl SearchConfig {
    /// A builder with the defaults of [`SETTINGS`] and no budget (one must be set).
    pub fn builder() -> SearchConfigBuilder {
        SearchConfigBuilder { config: SearchConfig::defaults() }
    }

    /// Arena capacity in nodes, from [`SearchConfig::arena_nodes`] or
    /// [`SearchConfig::memory_mb`] (for root-parallel: shared out between the trees).
    pub fn arena_capacity(&self) -> u64 {
        self.arena_capacity
    }

    /// The trees (arenas) the mode searches with the configured threads.
    pub(crate) fn trees(&self) -> usize {
        super::drivers::with_driver!(self.mode, |driver| super::drivers::Driver::trees(&driver, self.threads))
    }

    /// The parts of the playout budget one tree's root sees played ([`Driver::root_shares`]).
    ///
    /// [`Driver::root_shares`]: super::drivers::Driver::root_shares
    pub(crate) fn root_shares(&self) -> usize {
        super::drivers::with_driver!(self.mode, |driver| super::drivers::Driver::root_shares(&driver, self.threads))
    }

    /// Each tree's share of the arena capacity.
    pub(crate) fn nodes_per_tree(&self) -> u64 {
        self.arena_capacity / self.trees() as u64
    }

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

    /// A copy with another seed (used by players that search once per move).
    pub fn with_seed(&self, seed: u64) -> SearchConfig {
        SearchConfig { seed, ..self.clone() }
    }

    /// A copy in another mode and thread count (the benchmark's rows), validated again.
    ///
    /// # Errors
    /// As [`SearchConfigBuilder::build`].
    pub fn with_mode(&self, mode: Mode, threads: usize) -> Result<SearchConfig, ConfigError> {
        SearchConfigBuilder { config: SearchConfig { mode, threads, ..self.clone() } }.build()
    }

    /// A copy with a time budget alone (no playout budget), validated again.
    ///
    /// # Errors
    /// As [`SearchConfigBuilder::build`].
    pub fn with_time(&self, time: Duration) -> Result<SearchConfig, ConfigError> {
        SearchConfigBuilder { config: SearchConfig { playouts: None, time: Some(time), ..self.clone() } }.build()
    }

    /// A copy with another budget: a playout budget, a time budget or both (a search stops
    /// at the first spent), validated again.
    ///
    /// # Errors
    /// As [`SearchConfigBuilder::build`] ([`ConfigError::NoBudget`] when both are `None`).
    pub fn with_budget(&self, playouts: Option<u64>, time: Option<Duration>) -> Result<SearchConfig, ConfigError> {
        SearchConfigBuilder { config: SearchConfig { playouts, time, ..self.clone() } }.build()
    }

    /// A copy with another playout budget (and no time budget), validated again.
    ///
    /// # Errors
    /// As [`SearchConfigBuilder::build`].
    pub fn with_playouts(&self, playouts: u64) -> Result<SearchConfig, ConfigError> {
        SearchConfigBuilder { config: SearchConfig { playouts: Some(playouts), time: None, ..self.clone() } }.build()
    }
}

/// Builder for [`SearchConfig`]; [`SearchConfigBuilder::build`] validates everything.
#[derive(Clone, Debug)]
pub struct SearchConfigBuilder {
    config: SearchConfig,
}

impl SearchConfigBuilder {
    /// A playout budget of `playouts` unless a playout or time budget is already set (the
    /// default budget of the `search` command and of an `mcts` player spec).
    pub fn default_playouts(self, playouts: u64) -> Self {
        match (self.config.playouts, self.config.time) {
            (None, None) => self.playouts(playouts),
            _ => self,
        }
    }

    /// Validates the configuration. Values are checked in the type they are stored in
    /// (C = 1e100 overflows a 32-bit float and is rejected).
    ///
    /// # Errors
    /// A [`ConfigError`] naming the first bad value, or the two settings that conflict.
    pub fn build(self) -> Result<SearchConfig, ConfigError> {
        let mut cfg = self.config;
        match (cfg.playouts, cfg.time) {
            (None, None) => return Err(ConfigError::NoBudget),
            (Some(0), _) => return Err(ConfigError::ZeroPlayouts),
            (Some(n), _) if n > MAX_PLAYOUTS => return Err(ConfigError::TooManyPlayouts { got: n, max: MAX_PLAYOUTS }),
            (_, Some(t)) if t.is_zero() => return Err(ConfigError::ZeroTime),
            _ => {}
        }
        let bad = |x: f32| !x.is_finite() || x < 0.0;
        if let Some(x) = cfg.c.filter(|&x| bad(x)) {
            return Err(ConfigError::BadExploration(x.into()));
        }
        if cfg.halving == Some(true) && cfg.mode == Mode::Dist {
            return Err(conflict(
                "halving",
                "on",
                "mode",
                "dist",
                "the ranks' shared root visits are not one tree's budget",
            ));
        }
        if cfg.threads == 0 {
            return Err(ConfigError::ZeroThreads);
        }
        if cfg.threads > MAX_THREADS {
            return Err(ConfigError::TooManyThreads { got: cfg.threads, max: MAX_THREADS });
        }
        cfg.mode = cfg.mode.resolve(cfg.threads);
        if cfg.mode == Mode::Sequential && cfg.threads > 1 {
            return Err(conflict(
                "mode",
                Mode::Sequential,
                "threads",
                cfg.threads,
                "the sequential search runs one thread",
            ));
        }
        if let Some(c_bt) = cfg.bias.filter(|&c| bad(c)) {
            return Err(ConfigError::BadBias(c_bt.into()));
        }
        if bad(cfg.bias_k) || cfg.bias_k == 0.0 {
            return Err(ConfigError::BadBiasK(cfg.bias_k.into()));
        }
        if let Some(rave) = cfg.rave.filter(|&k| bad(k)) {
            return Err(ConfigError::BadRave(rave.into()));
        }
        if !(0.0..=1.0).contains(&cfg.eval_weight) {
            return Err(ConfigError::BadEvalWeight(cfg.eval_weight.into()));
        }
        if cfg.eval_depth > MAX_EVAL_DEPTH {
            return Err(ConfigError::BadEvalDepth { got: cfg.eval_depth, max: MAX_EVAL_DEPTH });
        }
        if cfg.eval_priors && cfg.eval == Evaluation::None {
            return Err(conflict("eval-priors", "on", "eval", "none", "the priors come from the evaluator"));
        }
        if let Some(alpha) = cfg.implicit {
            if !(0.0..=1.0).contains(&alpha) {
                return Err(ConfigError::BadImplicit(alpha.into()));
            }
            if alpha > 0.0 && cfg.eval == Evaluation::None {
                return Err(conflict("implicit", alpha, "eval", "none", "the minimax values come from the evaluator"));
            }
        }
        if cfg.expand_threshold == 0 {
            return Err(ConfigError::ZeroExpandThreshold);
        }
        if cfg.sync_every == 0 {
            return Err(ConfigError::ZeroSyncEvery);
        }
        if cfg.mode == Mode::Dist && !super::distributed::AVAILABLE {
            return Err(ConfigError::DistUnavailable);
        }
        if cfg.dist_period == 0 {
            return Err(ConfigError::ZeroDistPeriod);
        }
        if cfg.dist_every == Some(0) {
            return Err(ConfigError::ZeroDistEvery);
        }
        if cfg.dist_batch == 0 || cfg.dist_batch > MAX_DIST_BATCH {
            return Err(ConfigError::BadDistBatch { got: cfg.dist_batch, max: MAX_DIST_BATCH });
        }
        if cfg.dist_scheme != DistScheme::Share && cfg.threads > 1 {
            let scheme = cfg.dist_scheme.to_string();
            return Err(conflict("dist-scheme", scheme, "threads", cfg.threads, "this scheme runs one thread a rank"));
        }
        if cfg.dist_scheme == DistScheme::Split && cfg.dist_depth == 0 {
            return Err(conflict(
                "dist-scheme",
                "split",
                "dist-depth",
                0,
                "the split needs a shared top of 1 ply or more",
            ));
        }
        if !(0.0..=100.0).contains(&cfg.dist_share) {
            return Err(ConfigError::BadDistShare(cfg.dist_share.into()));
        }
        if let Some(n) = cfg.leaves.filter(|&n| n == 0 || n as usize > MAX_LEAVES) {
            return Err(ConfigError::BadLeaves { got: n, max: MAX_LEAVES });
        }
        cfg.arena_capacity = match (cfg.arena_nodes, cfg.memory_mb) {
            (Some(nodes), Some(mb)) => {
                return Err(conflict("nodes", nodes, "memory-mb", mb, "both size the arena; give one"));
            }
            (Some(nodes), None) => nodes,
            (None, Some(mb)) => mb.saturating_mul(1 << 20) / NODE_BYTES as u64,
            (None, None) => DEFAULT_ARENA_NODES,
        };
        if cfg.arena_capacity > MAX_ARENA_NODES {
            return Err(ConfigError::ArenaTooLarge { nodes: cfg.arena_capacity, max: MAX_ARENA_NODES });
        }
        let per_tree = cfg.nodes_per_tree();
        if per_tree < MIN_ARENA_NODES {
            return Err(ConfigError::ArenaTooSmall { nodes: per_tree, needed: MIN_ARENA_NODES });
        }
        Ok(cfg)
    }
}

fn conflict(k1: &str, v1: impl fmt::Display, k2: &str, v2: impl fmt::Display, why: &'static str) -> ConfigError {
    ConfigError::Conflict { first: format!("{k1}={v1}"), second: format!("{k2}={v2}"), why }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bad_configs_are_rejected() {
        let b = || SearchConfig::builder().playouts(100);
        assert_eq!(SearchConfig::builder().build(), Err(ConfigError::NoBudget));
        assert_eq!(SearchConfig::builder().playouts(0).build(), Err(ConfigError::ZeroPlayouts));
        assert_eq!(SearchConfig::builder().time(Duration::ZERO).build(), Err(ConfigError::ZeroTime));
        assert_eq!(b().threads(0).build(), Err(ConfigError::ZeroThreads));
        assert_eq!(b().c(-1.0).build(), Err(ConfigError::BadExploration(-1.0)));
        assert!(matches!(b().c(f64::NAN).build(), Err(ConfigError::BadExploration(_))));
        assert_eq!(b().arena_nodes(1).build(), Err(ConfigError::ArenaTooSmall { nodes: 1, needed: MIN_ARENA_NODES }));
        assert_eq!(
            b().mode(Mode::RootParallel).threads(4).arena_nodes(7).build(),
            Err(ConfigError::ArenaTooSmall { nodes: 1, needed: MIN_ARENA_NODES })
        );
        assert_eq!("fast".parse::<Mode>(), Err(ConfigError::UnknownMode("fast".into())));
        assert_eq!("wu-uct".parse::<InFlight>(), Ok(InFlight::WuUct));
        assert_eq!("loss".parse::<InFlight>(), Ok(InFlight::Loss));
        assert!("wu".parse::<InFlight>().unwrap_err().to_string().contains("'wu'"));
        assert_eq!(b().rave(-1.0).build(), Err(ConfigError::BadRave(-1.0)));
        assert_eq!(b().implicit(1.5).build(), Err(ConfigError::BadImplicit(1.5)));
        assert!(b().implicit(0.0).eval(Evaluation::None).build().is_ok());
        assert!(matches!(b().implicit(0.5).eval(Evaluation::None).build(), Err(ConfigError::Conflict { .. })));
        assert!(b().build().is_ok());
        assert_eq!(b().memory_mb(24).build().unwrap().arena_capacity(), (24 << 20) / 24);
    }

    /// Values are checked as stored (32-bit floats), sizes and thread counts are capped,
    /// and settings that exclude each other are rejected naming both.
    #[test]
    fn bounds_and_conflicts_are_rejected() {
        let b = || SearchConfig::builder().playouts(100);
        assert!(matches!(b().c(1e100).build(), Err(ConfigError::BadExploration(c)) if c.is_infinite()));
        assert!(matches!(b().bias(1e300).build(), Err(ConfigError::BadBias(_))));
        let too_many = b().mode(Mode::TreeParallel).threads(MAX_THREADS + 1).build();
        assert_eq!(too_many, Err(ConfigError::TooManyThreads { got: MAX_THREADS + 1, max: MAX_THREADS }));
        assert!(b().mode(Mode::TreeParallel).threads(MAX_THREADS).arena_nodes(1 << 20).build().is_ok());
        let huge = b().memory_mb(99_999_999).build();
        assert!(matches!(huge, Err(ConfigError::ArenaTooLarge { .. })), "{huge:?}");
        assert!(
            matches!(b().arena_nodes(1 << 32).build(), Err(ConfigError::ArenaTooLarge { nodes, .. }) if nodes == 1 << 32)
        );
        let both = b().memory_mb(10).arena_nodes(100).build().unwrap_err().to_string();
        assert!(both.contains("nodes=100") && both.contains("memory-mb=10"), "{both}");
        let seq = b().mode(Mode::Sequential).threads(4).build().unwrap_err().to_string();
        assert!(seq.contains("mode=seq") && seq.contains("threads=4"), "{seq}");
        assert!(b().mode(Mode::Sequential).threads(1).build().is_ok());
    }

    #[test]
    fn auto_is_the_default_and_resolves_by_thread_count() {
        let b = || SearchConfig::builder().playouts(10);
        assert_eq!(b().build().unwrap().mode(), Mode::Sequential);
        assert_eq!(b().threads(4).build().unwrap().mode(), Mode::TreeParallel);
        assert_eq!(b().mode(Mode::Auto).threads(1).build().unwrap().mode(), Mode::Sequential);
        // Resolved once: a copy with a new thread count is resolved from its resolved mode.
        assert_eq!(b().build().unwrap().with_mode(Mode::Auto, 2).unwrap().mode(), Mode::TreeParallel);
        assert_eq!("auto".parse::<Mode>(), Ok(Mode::Auto));
    }

    #[test]
    fn settings_are_applied_by_key_once() {
        let builder = SearchConfig::builder();
        let config =
            builder.apply_settings([("playouts", "500"), ("c", "0.7"), ("reuse", "off"), ("time-ms", "20")]).unwrap();
        let config = config.build().unwrap();
        assert_eq!(config.playouts(), Some(500));
        assert_eq!(config.c(), Some(0.7));
        assert!(!config.reuse());
        assert_eq!(config.time(), Some(Duration::from_millis(20)));
        let repeated = SearchConfig::builder().apply_settings([("playouts", "10"), ("playouts", "20")]);
        assert_eq!(repeated.unwrap_err(), SettingError::Repeated("playouts"));
        let unknown = SearchConfig::builder().apply_settings([("speed", "9")]).unwrap_err();
        assert_eq!(unknown, SettingError::UnknownKey("speed".into()));
        let bad = SearchConfig::builder().apply_settings([("reuse", "maybe")]).unwrap_err().to_string();
        assert!(bad.contains("'maybe'") && bad.contains("on or off"), "{bad}");
        // Every key is unique, and every key's default text is shown.
        for (i, s) in SETTINGS.iter().enumerate() {
            assert!(SETTINGS[..i].iter().all(|t| t.key != s.key), "{} twice", s.key);
            assert!(!s.help.trim().is_empty() && !s.default.is_empty(), "{}", s.key);
        }
    }
}
