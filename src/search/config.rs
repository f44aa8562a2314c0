//! Search configuration: every setting declared once (`search_settings!` below), a
//! builder validated once into a [`SearchConfig`] that cannot be invalid, and the
//! [`SETTINGS`] table through which text (CLI flags, `mcts:key=value` player specs)
//! reaches the builder.
//!
//! Each setting's declaration gives its field, type and default, its builder setter, its
//! text key (`--key` in `parmcts search` and `key=` in a player spec are the same name),
//! its help line and the default shown in `--help`, or, where each game fills the unset
//! value, the accessor that reads the game's [`Tuning`]. From it come the config's field
//! and getter, the builder's setter, the per-game accessor, and its entry of [`SETTINGS`].
//! Adding a setting means one declaration and its use. How a value is read from text is
//! `search::setting`'s.

use std::fmt;
use std::time::Duration;

pub use super::error::ConfigError;
pub use super::limits::{
    MAX_ARENA_NODES, MAX_DIST_BATCH, MAX_EVAL_DEPTH, MAX_LANES, MAX_PLAYOUTS, MAX_THREADS, MIN_ARENA_NODES,
};
pub use super::options::{
    ChanceSelection, DistScheme, Evaluation, FinalMove, InFlight, Mode, Playout, Select, Weights, DEFAULT_ARENA_NODES,
    DEFAULT_BIAS_K, DEFAULT_DIST_BATCH, DEFAULT_EXPAND_THRESHOLD, SECURE_A,
};
use super::setting::{SettingText, ShownText};
use crate::games::{one_line, NTupleBoard, Tuning};

/// [`Setting::default`] of a setting whose default each game fills.
const PER_GAME: &str = "per game";

/// One setting as text sees it: the key of `--key VALUE` and `mcts:key=VALUE` for a
/// search setting (the default `T`), or of another player's spec (`alphabeta:depth=D`).
#[derive(Clone, Copy)]
pub struct Setting<T = SearchConfigBuilder> {
    /// The key (`playouts`, `time-ms`, `virtual-loss`, ...).
    pub key: &'static str,
    /// An older name of the key, still accepted (`leaves` for `lanes`).
    pub alias: Option<&'static str>,
    /// What the value is, for help (`N`, `MS`, `on|off`, ...).
    pub value_name: &'static str,
    /// One line of help.
    pub help: &'static str,
    /// The default, as `--help` shows it; `per game` where each game fills it (the values
    /// follow, [`Setting::per_game`]).
    pub default: &'static str,
    /// Whether the default is the game's, shown one value per game: the values come from
    /// [`Setting::default_in`] (and each game's [`Tuning`]).
    pub per_game: bool,
    /// Reads a value into the options `T` ([`Setting::apply`]).
    pub apply: fn(T, &str) -> Result<T, SettingError>,
}

impl<T> fmt::Debug for Setting<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Setting").field("key", &self.key).finish_non_exhaustive()
    }
}

impl<T> Setting<T> {
    /// Applies `value` to `options`.
    ///
    /// # Errors
    /// [`SettingError::BadValue`] naming the key and the value when it does not parse.
    pub fn apply(&self, options: T, value: &str) -> Result<T, SettingError> {
        (self.apply)(options, value)
    }
}

impl Setting {
    /// The search setting with this key.
    pub fn find(key: &str) -> Option<&'static Setting> {
        SETTINGS.iter().find(|s| s.key == key || s.alias == Some(key))
    }
}

/// A setting given as text that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SettingError {
    /// No setting has this key.
    UnknownKey(String),
    /// The value does not parse for the key.
    BadValue {
        /// The setting's key.
        key: &'static str,
        /// The value given.
        value: String,
        /// What the key takes.
        expected: String,
    },
    /// The key was given twice.
    Repeated(&'static str),
}

impl fmt::Display for SettingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingError::UnknownKey(key) => {
                let keys: Vec<&str> = SETTINGS.iter().map(|s| s.key).collect();
                write!(f, "unknown option '{}' (expected one of: {})", one_line(key), keys.join(", "))
            }
            SettingError::BadValue { key, value, expected } => {
                write!(f, "bad value '{}' for {key} (expected {})", one_line(value), one_line(expected))
            }
            SettingError::Repeated(key) => write!(f, "{key} given twice"),
        }
    }
}

impl std::error::Error for SettingError {}

/// Reads `text` for the setting `key`.
fn parse_setting<T: SettingText>(key: &'static str, text: &str) -> Result<T, SettingError> {
    T::from_text(text).map_err(|expected| SettingError::BadValue { key, value: text.to_string(), expected })
}

/// A per-game value as text: the value type's own way ([`ShownText`]), or the entry's.
macro_rules! shown_value {
    ($value:expr) => {
        ShownText::shown(&$value)
    };
    ($value:expr, $v:ident => $render:expr) => {{
        let $v = $value;
        $render.to_string()
    }};
}

/// A setting's older key: `None`, or `Some` of the one given.
macro_rules! setting_alias {
    () => {
        None
    };
    ($alias:literal) => {
        Some($alias)
    };
}

/// [`Setting::default`]: the text declared, else [`PER_GAME`].
macro_rules! shown_default {
    () => {
        PER_GAME
    };
    ($shown:literal) => {
        $shown
    };
}

/// [`Setting::per_game`]: whether the default is shown one value per game (none declared).
macro_rules! shown_per_game {
    () => {
        true
    };
    ($shown:literal) => {
        false
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
    /// No budget: the search runs until its handle stops it ([`Search::start`](super::Search::start);
    /// [`Search::run`](super::Search::run) refuses it), for analysis and pondering.
    until_stopped("until-stopped", "on|off", "off"): bool = false;
        set(on: bool) => on; text bool;
    /// UCB1 exploration constant C (stored as a 32-bit float).
    ///
    /// Unset: the game's default ([`Tuning::EXPLORATION`]).
    c("c", "C"): Option<f32> = None;
        set(c: f64) => Some(c as f32); text f64;
        per_game:
            /// The exploration constant for `G`: `c` if set, else the game's
            /// [`Tuning::EXPLORATION`] ([`Tuning::EVAL_EXPLORATION`] where the search
            /// evaluates its leaves).
            fn c_for<G: Tuning + NTupleBoard>(config) -> f32 {
                let default = if config.evaluates::<G>() { G::EVAL_EXPLORATION } else { G::EXPLORATION };
                config.c.unwrap_or(default as f32)
            }
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
    lanes("lanes" | "leaves", "L"): Option<u32> = None;
        set(lanes: u32) => Some(lanes); text u32;
        per_game:
            /// Playouts each worker keeps in flight for `G`: `lanes` if set, else the game's
            /// [`Tuning::PLAYOUT_LANES`].
            fn lanes_for<G: Tuning>(config) -> usize {
                config.lanes.map_or(G::PLAYOUT_LANES, |n| n as usize)
            }
    /// Synced mode: iterations each worker runs between two exchanges of statistics.
    sync_every("sync-every", "N", "256"): u32 = 256;
        set(iterations: u32) => iterations; text u32;
    /// Synced mode: the trees share the statistics of nodes up to this many plies below the root.
    sync_depth("sync-depth", "D", "2"): u32 = 2;
        set(plies: u32) => plies; text u32;
    /// Dist mode: milliseconds between two shares of the statistics between the ranks.
    dist_period("dist-period", "MS", "50"): u32 = 50;
        set(ms: u32) => ms; text u32;
    /// Dist mode: how the ranks divide the work: share (a tree per rank, shallow statistics shared), farm (one tree on rank 0, the other ranks evaluate its leaves) split (one tree, its subtrees below dist-depth owned by one rank each) or tds (one tree, each node on a rank chosen by its hash, walks travelling as messages); farm, split and tds run one thread a rank.
    ///
    /// See [`DistScheme`]. The `dist-period`, `dist-every`, `dist-depth` and `dist-share`
    /// settings are the share scheme's, and the split's (its shared top is `dist-depth`
    /// plies); `dist-batch` is the farm's, the split's and TDS's (its jobs in flight per rank),
    /// `dist-local` the farm's.
    dist_scheme("dist-scheme", "share|farm|split|tds", "share"): DistScheme = DistScheme::Share;
        set(scheme: DistScheme) => scheme; text DistScheme;
    /// Dist mode, farm: leaves rank 0 sends another rank at a time (two such batches in flight to each); split: walks a batch holds; tds: jobs in flight per rank.
    dist_batch("dist-batch", "B", "16"): u32 = DEFAULT_DIST_BATCH;
        set(leaves: u32) => leaves; text u32;
    /// Dist mode, farm: leaves rank 0 evaluates itself between two rounds of batches, so that the search is reproducible (unset: as many as fit while it waits).
    dist_local("dist-local", "L", "off: while waiting"): Option<u32> = None;
        set(leaves: u32) => Some(leaves); text u32;
    /// Dist mode, tds: every rank keeps its own copy of the root's block (the first `dist-depth` plies) and starts jobs from it, sending them down to the homes of the nodes at its end (on), or the root's home alone keeps the root and starts every job (off).
    ///
    /// A copy holds the statistics of the jobs its rank started (root parallelization
    /// over the top block); the nodes below it are one tree. The root's home no longer
    /// walks the top of every playout.
    dist_top_everywhere("dist-top-everywhere", "on|off", "off"): bool = false;
        set(on: bool) => on; text bool;
    /// Dist mode: share after every P playouts of each rank instead of by time (the workers wait at each share, so one thread per rank searches reproducibly); tds with copies of the top: each rank tells the others what its copy gained every P of its playouts (default 256).
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
    /// Memory for the trees in MiB, side arrays and reuse's spare arena included (an
    /// alternative to nodes).
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
        per_game:
            /// The final-move rule of a search of `G`: [`SearchConfig::final_move`] if set,
            /// else secure with halving ([`SearchConfig::halving_for`]) and most visits without.
            fn final_move_rule<G: Tuning>(config) -> FinalMove {
                config.final_move.unwrap_or(if config.halving_for::<G>() { FinalMove::Secure } else { FinalMove::Visits })
            }
    /// Sequential halving at the root, UCB1 below it.
    ///
    /// Hybrid MCTS (Pepels, Cazenave, Winands & Lanctot 2014): the root's budget goes to
    /// its rivals in rounds, halving the candidates by their means, instead of as UCB1's
    /// `ln N`. A timed search's rounds are shares of its time.
    ///
    /// Unset: the game's [`Tuning::HALVING`], except in a
    /// distributed search.
    halving("halving", "on|off"): Option<bool> = None;
        set(on: bool) => Some(on); text bool;
        per_game:
            /// Whether a search of `G` shares its root's budget by sequential halving:
            /// `halving` if set, else the game's [`Tuning::HALVING`] (off in a distributed
            /// search, whose ranks' root visits are no one tree's budget, and with PUCT,
            /// which selects at the root too).
            fn halving_for<G: Tuning>(config) -> bool {
                config.halving.unwrap_or(G::HALVING && config.mode != Mode::Dist && config.select == Select::Ucb)
            }
    /// Tree reuse: keep the subtree of the position reached between a player's moves.
    ///
    /// Measured: +37 Elo [+4, +69] in Connect Four, -3 [-37, +30] in Othello at 20 ms per
    /// move (docs/RESULTS.md).
    reuse("reuse", "on|off", "on"): bool = true;
        set(on: bool) => on; text bool;
    /// Dynamic komi for a player in a game won by points (Go): its target moves between moves to keep its win rate near one half.
    ///
    /// Baudiš and Gailly 2011 (value-based situational compensation): a player far ahead
    /// or far behind sees every move win or lose alike, so it asks for more points while
    /// its search's win rate is above 0.55 and for fewer while below 0.45, within a
    /// quarter of the empty points; `harness::players` keeps the target.
    dyn_komi("dyn-komi", "on|off", "off"): bool = false;
        set(on: bool) => on; text bool;
    /// Progressive bias weight C_BT (0: off; Chaslot et al. 2008).
    ///
    /// Unset: the game's [`Tuning::PROGRESSIVE_BIAS`].
    bias("bias", "C_BT"): Option<f32> = None;
        set(c_bt: f64) => Some(c_bt as f32); text f64;
        per_game:
            /// The progressive bias weight C_BT of a search of `G`: `bias` if set, else the
            /// game's [`Tuning::PROGRESSIVE_BIAS`] (0: off).
            fn bias_for<G: Tuning>(config) -> f32 {
                config.bias.unwrap_or(G::PROGRESSIVE_BIAS)
            }
    /// Progressive bias constant K (the visits over which the bias halves, squared).
    bias_k("bias-k", "K", "5000"): f32 = DEFAULT_BIAS_K as f32;
        set(k: f64) => k as f32; text f64;
    /// Priors as equivalent experience: visits each child starts with at a value from its prior (0: off; Gelly & Silver 2007).
    ///
    /// A prior `r` times the uniform share counts as `N` visits of mean `r / (1 + r)`; UCB1 only.
    prior_visits("prior-visits", "N"): Option<f32> = None;
        set(n: f64) => Some(n as f32); text f64;
        per_game:
            /// `prior-visits` if set, else the game's [`Tuning::PRIOR_VISITS`]; 0 with PUCT.
            fn prior_visits_for<G: Tuning>(config) -> f32 {
                if config.select == Select::Puct { 0.0 } else { config.prior_visits.unwrap_or(G::PRIOR_VISITS) }
            }
    /// Progressive widening: children ordered by their priors, the k-th (from 0) selectable from `A (1.4^k - 1)` visits (0: off; Coulom 2007).
    ///
    /// The priors are the move strengths progressive bias uses, computed for the order
    /// even where neither progressive bias nor prior visits weighs them.
    widen("widen", "A", "0"): f32 = 0.0;
        set(a: f64) => a as f32; text f64;
    /// Criticality in the priors: a move's prior times `1 + K·(crit − mean)` where its point is more critical than the board's mean (0: off; Coulom 2009).
    ///
    /// `crit` is the covariance of owning the point at a playout's end and winning, over
    /// the search's playouts ([`crate::games::Criticality`]; the table is kept from search
    /// to search, its counts halved at each); it weighs the priors of the nodes expanded
    /// once 1,024 playouts are counted. Games whose playouts own points (Go) only, and
    /// searches with the strengths' priors (`prior-visits`, `bias` or `widen`). Off:
    /// +1 Elo [-32, +34] at `K = 10` on 9x9 at equal time (docs/results/go.md).
    crit("crit", "K", "0"): f32 = 0.0;
        set(k: f64) => k as f32; text f64;
    /// Selection: ucb (UCB1, with progressive bias and RAVE where on) or puct (the priors lead: [`Select::Puct`]).
    select("select", "ucb|puct", "ucb"): Select = Select::Ucb;
        set(select: Select) => select; text Select;
    /// PUCT's exploration weight c_puct (finite, > 0).
    ///
    /// Unset: the game's [`Tuning::PUCT_EXPLORATION`].
    c_puct("c-puct", "C"): Option<f32> = None;
        set(c: f64) => Some(c as f32); text f64;
        per_game:
            /// PUCT's c_puct for `G`: `c-puct` if set, else the game's [`Tuning::PUCT_EXPLORATION`].
            fn c_puct_for<G: Tuning>(config) -> f32 {
                config.c_puct.unwrap_or(G::PUCT_EXPLORATION)
            }
    /// PUCT's first-play urgency: an unvisited child counts as the parent's mean less this (0 to 1).
    fpu("fpu", "F", "0.2"): f32 = 0.2;
        set(fpu: f64) => fpu as f32; text f64;
    /// Dirichlet noise at the root: its concentration α (0: none; AlphaZero: 0.3 in chess, 0.03 in Go).
    noise("noise", "ALPHA", "0"): f32 = 0.0;
        set(alpha: f64) => alpha as f32; text f64;
    /// The noise's share of each root prior, ε in `(1 - ε) P + ε η` (0 to 1).
    noise_frac("noise-frac", "EPS", "0.25"): f32 = 0.25;
        set(eps: f64) => eps as f32; text f64;
    /// Move temperature T: 0 plays the final-move rule's move; T > 0 draws a root move with probability ∝ visits^(1/T) (self-play).
    temperature("temperature", "T", "0"): f32 = 0.0;
        set(t: f64) => t as f32; text f64;
    /// Playout policy: random (uniform) or biased (roulette wheel; Go: heavy playouts).
    ///
    /// Unset: the game's [`Tuning::BIASED_PLAYOUTS_BY_DEFAULT`].
    /// Biased measured best in both games with action values (docs/RESULTS.md): Othello
    /// +430 Elo at equal time, Connect Four +71; Go's heavy playouts lose at equal time.
    playout("playout", "random|biased"): Option<Playout> = None;
        set(playout: Playout) => Some(playout); text Playout;
        per_game:
            /// The playout policy of a search of `G`: `playout` if set, else the game's
            /// [`Tuning::BIASED_PLAYOUTS_BY_DEFAULT`].
            fn playout_for<G: Tuning>(config) -> Playout {
                config.playout.unwrap_or(if G::BIASED_PLAYOUTS_BY_DEFAULT { Playout::Biased } else { Playout::Random })
            }
    /// Win-first / block-first pruning in tree and playouts: on or off.
    ///
    /// Unset: the game's [`Tuning::PRUNE_BY_DEFAULT`] (on in Connect Four,
    /// where the rule is a few bitboard operations and measured +300 Elo on top of biased
    /// playouts; off where it plays every move and reply: Othello's iteration is 80x).
    prune("prune", "on|off"): Option<bool> = None;
        set(on: bool) => Some(on); text bool;
        per_game:
            /// Whether a search of `G` prunes: `prune` if set, else the game's
            /// [`Tuning::PRUNE_BY_DEFAULT`].
            fn prune_for<G: Tuning>(config) -> bool {
                config.prune.unwrap_or(G::PRUNE_BY_DEFAULT)
            }
    /// Last good replies with forgetting in the playouts (LGRF-2, Baier & Drake 2010): on or off.
    ///
    /// One table per search, shared by its threads; games whose playouts learn none refuse `on`.
    replies("replies", "on|off"): Option<bool> = None;
        set(on: bool) => Some(on); text bool;
        per_game:
            /// `replies` if set, else the game's [`Tuning::LAST_GOOD_REPLIES`].
            fn replies_for<G: Tuning>(config) -> bool {
                config.replies.unwrap_or(G::LAST_GOOD_REPLIES)
            }
    /// MCTS-Solver: prove wins, losses and draws; stop once the root is proven.
    ///
    /// Winands, Björnsson & Saito 2008.
    solver("solver", "on|off", "off"): bool = false;
        set(on: bool) => on; text bool;
    /// Node budget of the game's exact solver on the position to move, before searching (0: off).
    ///
    /// The MCTS player tries the solver first ([`crate::games::Endgame`]) and plays its
    /// move when it proves a win or a draw. Unset: the game's
    /// [`Tuning::ENDGAME_NODES`].
    endgame("endgame", "NODES"): Option<u64> = None;
        set(nodes: u64) => Some(nodes); text u64;
        per_game:
            /// The node budget of the game's exact solver on the position to move, for `G`:
            /// `endgame` if set, else the game's [`Tuning::ENDGAME_NODES`].
            fn endgame_for<G: Tuning>(config) -> u64 {
                config.endgame.unwrap_or(G::ENDGAME_NODES)
            }
    /// With solver=on: node budget of the game's exact solver at each node expanded (0: off).
    ///
    /// A position the solver settles becomes a proven leaf, so the MCTS-Solver's proofs
    /// reach down to the exact solver's. Unset: the game's
    /// [`Tuning::ENDGAME_LEAF_NODES`].
    endgame_leaf("endgame-leaf", "NODES"): Option<u64> = None;
        set(nodes: u64) => Some(nodes); text u64;
        per_game:
            /// The exact solver's node budget at each expansion for `G` (with the solver
            /// on): `endgame-leaf` if set, else the game's [`Tuning::ENDGAME_LEAF_NODES`].
            fn endgame_leaf_for<G: Tuning>(config) -> u64 {
                config.endgame_leaf.unwrap_or(G::ENDGAME_LEAF_NODES)
            }
    /// RAVE constant k in beta = sqrt(k / (3N + k)) (0: off; Gelly & Silver 2011).
    ///
    /// Unset: the game's [`Tuning::RAVE`].
    rave("rave", "K"): Option<f32> = None;
        set(k: f64) => Some(k as f32); text f64;
        per_game:
            /// The RAVE constant k of a search of `G`: `rave` if set, else the game's
            /// [`Tuning::RAVE`] (0: no RAVE).
            fn rave_for<G: Tuning>(config) -> f32 {
                config.rave.unwrap_or(G::RAVE)
            }
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
    eval("eval", "default|none|network|FILE"): Evaluation = Evaluation::Default;
        set(eval: Evaluation) => eval; text Evaluation;
        per_game:
            /// Whether a search of `G` values its leaves with an evaluator: `eval` if set to
            /// a network, else the game's [`Tuning::LEAF_EVALUATION`] where it ships a network.
            fn evaluates<G: Tuning + NTupleBoard>(config) -> bool {
                match config.eval {
                    Evaluation::Default => G::LEAF_EVALUATION && G::SHIPPED_NETWORK.is_some(),
                    Evaluation::None => false,
                    Evaluation::Shipped | Evaluation::Network(_) => true,
                }
            }
            shown(on) => if on { "network" } else { "none" };
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
    implicit("implicit", "α"): Option<f32> = None;
        set(alpha: f64) => Some(alpha as f32); text f64;
        per_game:
            /// The implicit minimax weight α for `G`: 0 where the search does not evaluate
            /// its leaves, else `implicit` if set, else the game's [`Tuning::IMPLICIT_MINIMAX`].
            fn implicit_for<G: Tuning + NTupleBoard>(config) -> f32 {
                if !config.evaluates::<G>() {
                    return 0.0;
                }
                config.implicit.unwrap_or(G::IMPLICIT_MINIMAX)
            }
    /// With eval: leaves evaluated together in a batch, 1 to 1024 (0: one at a time, on the worker that reached it).
    ///
    /// Workers then keep `eval-in-flight` walks in flight, their leaves going to
    /// [`crate::evaluator::Evaluator::evaluate`] in batches (modes seq and tree).
    eval_batch("eval-batch", "N", "0"): u32 = 0;
        set(n: u32) => n; text u32;
    /// With eval-batch: walks in flight in all, their leaves waiting for the evaluator, 1 to 4096.
    eval_in_flight("eval-in-flight", "N", "2 x eval-batch"): Option<u32> = None;
        set(n: u32) => Some(n); text u32;
    /// With eval-batch: the longest a batch waits to fill, in microseconds, before it goes as it is.
    eval_wait_us("eval-wait-us", "US", "1000"): u32 = 1000;
        set(us: u32) => us; text u32;
    /// With eval-batch: threads that run the evaluator on the batches (0: the search's workers do).
    eval_threads("eval-threads", "N", "1"): u32 = 1;
        set(n: u32) => n; text u32;
}

/// Builder for [`SearchConfig`]; [`SearchConfigBuilder::build`] validates everything.
#[derive(Clone, Debug)]
pub struct SearchConfigBuilder {
    pub(super) config: SearchConfig,
}
