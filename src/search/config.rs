//! Search configuration: a builder validated once into a [`SearchConfig`] that cannot be
//! invalid.

use std::fmt;
use std::str::FromStr;
use std::sync::Arc;
use std::time::Duration;

pub use super::iteration::MAX_LEAVES;
use crate::tree::NODE_BYTES;
use crate::weights::MoveWeights;

/// How the search uses threads.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Mode {
    /// One thread, exclusive tree, no atomic instructions: the baseline.
    Sequential,
    /// All threads share one lock-free tree (virtual loss spreads them).
    TreeParallel,
    /// Each thread searches its own tree; root statistics are summed at the end.
    RootParallel,
}

impl Mode {
    /// The CLI name: `seq`, `tree` or `root`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Sequential => "seq",
            Mode::TreeParallel => "tree",
            Mode::RootParallel => "root",
        }
    }
}

impl FromStr for Mode {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Mode, ConfigError> {
        match s {
            "seq" => Ok(Mode::Sequential),
            "tree" => Ok(Mode::TreeParallel),
            "root" => Ok(Mode::RootParallel),
            _ => Err(ConfigError::UnknownMode(s.to_string())),
        }
    }
}

impl fmt::Display for Mode {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// How the move is chosen from the root's children when the search ends (Chaslot et al.
/// 2008, "Progressive Strategies for Monte-Carlo Tree Search", section 2.4).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum FinalMove {
    /// Robust child: the most visits (ties: the higher mean).
    Visits,
    /// Max child: the highest mean result among visited children.
    Value,
    /// Secure child: the highest lower confidence bound `q - A / sqrt(n)` with
    /// `A` = [`SECURE_A`].
    Secure,
}

/// How playouts choose moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Playout {
    /// Uniformly random legal moves ([`crate::Game::random_playout`]).
    Random,
    /// Roulette-wheel selection by the game's action values,
    /// `p(a) = f(a) / Σ f(a')` ([`crate::Game::biased_playout`]).
    Biased,
}

impl FromStr for Playout {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Playout, ConfigError> {
        match s {
            "random" => Ok(Playout::Random),
            "biased" => Ok(Playout::Biased),
            _ => Err(ConfigError::UnknownPlayout(s.to_string())),
        }
    }
}

/// Default `K` of the progressive bias term (the literature's Othello setting).
pub const DEFAULT_BIAS_K: f64 = 5000.0;

/// The constant `A` of the secure child's bound `q - A / sqrt(n)`.
pub const SECURE_A: f64 = 1.0;

impl FromStr for FinalMove {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<FinalMove, ConfigError> {
        match s {
            "visits" => Ok(FinalMove::Visits),
            "value" => Ok(FinalMove::Value),
            "secure" => Ok(FinalMove::Secure),
            _ => Err(ConfigError::UnknownFinalMove(s.to_string())),
        }
    }
}

/// How selection on a shared tree reads the playouts other workers have in flight
/// through a node (the node's `virtual_loss` counter).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum InFlight {
    /// Virtual loss (Chaslot, Winands & van den Herik 2008): each counts as a lost
    /// visit, lowering the node's mean and its exploration term alike.
    #[default]
    Loss,
    /// WU-UCT (Liu et al. 2020, "Watch the Unobserved"): each counts as a visit in the
    /// exploration term only, `q + C sqrt(ln(N + O) / (n + o))` with `q` over completed
    /// playouts, so the mean is not biased by playouts whose result is unknown.
    WuUct,
}

impl FromStr for InFlight {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<InFlight, ConfigError> {
        match s {
            "loss" => Ok(InFlight::Loss),
            "wu-uct" => Ok(InFlight::WuUct),
            _ => Err(ConfigError::UnknownInFlight(s.to_string())),
        }
    }
}

/// A configuration that failed validation.
#[derive(Clone, Debug, PartialEq)]
pub enum ConfigError {
    /// Neither a playout nor a time budget was given.
    NoBudget,
    /// `playouts` was 0.
    ZeroPlayouts,
    /// The playout budget exceeds what the 32-bit node counters hold.
    TooManyPlayouts(u64),
    /// The time budget was 0.
    ZeroTime,
    /// The exploration constant is negative or not finite.
    BadExploration(f64),
    /// `threads` was 0.
    ZeroThreads,
    /// The arena cannot hold a root and its children (nodes given).
    ArenaTooSmall(u64),
    /// The mode name is not `seq`, `tree` or `root`.
    UnknownMode(String),
    /// The expansion threshold was 0 (a leaf must be visited before it is expanded).
    ZeroExpandThreshold,
    /// The final-move rule is not `visits`, `value` or `secure`.
    UnknownFinalMove(String),
    /// The progressive bias weight is negative or not finite.
    BadBias(f64),
    /// The progressive bias constant K is not positive and finite.
    BadBiasK(f64),
    /// The playout policy is not `random` or `biased`.
    UnknownPlayout(String),
    /// `in-flight` was not `loss` or `wu-uct`.
    UnknownInFlight(String),
    /// `leaves` was 0 or above [`MAX_LEAVES`].
    BadLeaves(u32),
    /// RAVE k is negative or not finite.
    BadRave(f64),
}

impl fmt::Display for ConfigError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ConfigError::NoBudget => write!(f, "no budget: give a playout count, a time, or both"),
            ConfigError::ZeroPlayouts => write!(f, "playouts must be at least 1 (got 0)"),
            ConfigError::TooManyPlayouts(n) => {
                write!(f, "playouts {n} exceeds the maximum {MAX_PLAYOUTS}")
            }
            ConfigError::ZeroTime => write!(f, "time budget must be at least 1 ms (got 0)"),
            ConfigError::BadExploration(c) => {
                write!(f, "exploration constant c must be finite and >= 0 (got {c})")
            }
            ConfigError::ZeroThreads => write!(f, "threads must be at least 1 (got 0)"),
            ConfigError::ArenaTooSmall(n) => {
                write!(f, "arena of {n} nodes is too small (at least {MIN_ARENA_NODES} nodes, at most {})", u32::MAX)
            }
            ConfigError::UnknownMode(m) => {
                write!(f, "unknown mode '{m}' (expected seq, tree or root)")
            }
            ConfigError::ZeroExpandThreshold => write!(f, "expand threshold must be at least 1 (got 0)"),
            ConfigError::UnknownFinalMove(m) => {
                write!(f, "unknown final-move rule '{m}' (expected visits, value or secure)")
            }
            ConfigError::BadBias(b) => write!(f, "progressive bias must be finite and >= 0 (got {b})"),
            ConfigError::BadBiasK(k) => write!(f, "progressive bias K must be finite and > 0 (got {k})"),
            ConfigError::UnknownPlayout(p) => write!(f, "unknown playout policy '{p}' (expected random or biased)"),
            ConfigError::UnknownInFlight(p) => write!(f, "unknown in-flight rule '{p}' (expected loss or wu-uct)"),
            ConfigError::BadLeaves(n) => write!(f, "leaves must be 1 to {MAX_LEAVES} (got {n})"),
            ConfigError::BadRave(k) => write!(f, "RAVE k must be finite and >= 0 (got {k})"),
        }
    }
}

impl std::error::Error for ConfigError {}

/// The most playouts one search may run: node visit counters are 32-bit, with the score
/// (up to twice the visits) in the other half of the same word.
pub const MAX_PLAYOUTS: u64 = (1 << 31) - 1;
/// The smallest arena accepted up front (a root plus a block of children); the exact
/// requirement depends on the root position and is checked when the search starts.
pub const MIN_ARENA_NODES: u64 = 2;
/// Default expansion threshold: a leaf gets its children on its 8th visit. Measured on
/// Connect Four (1,000,000 playouts from the empty board, `perf stat -r 5`): 1.24 G cycles
/// against 1.63 G at threshold 1, with 366,836 nodes against 2,110,504; strength at
/// 10,000 playouts per move: +1.7 Elo [-45, +49] over 200 games (no difference), and
/// tic-tac-toe at 2,000 playouts still draws every game against perfect play.
pub const DEFAULT_EXPAND_THRESHOLD: u32 = 8;
/// Default arena size: 2^24 nodes (384 MiB of address space, touched only as used).
pub const DEFAULT_ARENA_NODES: u64 = 1 << 24;

/// A validated search configuration. Build one with [`SearchConfig::builder`].
#[derive(Clone, Debug, PartialEq)]
pub struct SearchConfig {
    pub(crate) playouts: Option<u64>,
    pub(crate) time: Option<Duration>,
    pub(crate) c: Option<f32>,
    pub(crate) seed: u64,
    pub(crate) mode: Mode,
    pub(crate) threads: usize,
    pub(crate) virtual_loss: u32,
    pub(crate) in_flight: InFlight,
    pub(crate) leaves: Option<u32>,
    pub(crate) arena_nodes: u64,
    pub(crate) expand_threshold: u32,
    pub(crate) final_move: FinalMove,
    pub(crate) reuse: bool,
    pub(crate) bias: f32,
    pub(crate) bias_k: f32,
    pub(crate) playout: Playout,
    pub(crate) prune: Option<bool>,
    pub(crate) solver: bool,
    pub(crate) rave: f32,
    pub(crate) weights: Weights,
}

/// The move strengths behind progressive bias and biased playouts.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Weights {
    /// The game's shipped learned set ([`crate::Game::SHIPPED_WEIGHTS`]) where it has one, else
    /// its hand-set [`crate::Game::action_value`]s. The default (`weights=default`).
    #[default]
    Shipped,
    /// The game's hand-set [`crate::Game::action_value`]s (`weights=hand-set`).
    HandSet,
    /// A learned set, such as a `parmcts train-weights` file (`weights=FILE`).
    Learned(Arc<MoveWeights>),
}

impl From<MoveWeights> for Weights {
    fn from(weights: MoveWeights) -> Weights {
        Weights::Learned(Arc::new(weights))
    }
}

impl SearchConfig {
    /// A builder with the defaults: C = sqrt(2), seed 0, sequential, 1 thread, virtual
    /// loss 1, 2^24 nodes, expansion at the 8th visit ([`DEFAULT_EXPAND_THRESHOLD`]),
    /// roulette-wheel playouts over the game's action values ([`Playout::Biased`]: the
    /// enhancement that measured best in every game, `docs/RESULTS.md`; games without
    /// action values play uniformly either way), tree reuse between a player's moves
    /// (better or neutral), the other enhancements off, and no budget (one must be set).
    pub fn builder() -> SearchConfigBuilder {
        SearchConfigBuilder::default()
    }

    /// Playout budget, if any.
    pub fn playouts(&self) -> Option<u64> {
        self.playouts
    }
    /// Time budget, if any.
    pub fn time(&self) -> Option<Duration> {
        self.time
    }
    /// UCB1 exploration constant; `None`: the game's default
    /// ([`crate::Game::EXPLORATION`]).
    pub fn c(&self) -> Option<f32> {
        self.c
    }
    /// Random seed.
    pub fn seed(&self) -> u64 {
        self.seed
    }
    /// Threading mode.
    pub fn mode(&self) -> Mode {
        self.mode
    }
    /// Worker threads (1 for sequential).
    pub fn threads(&self) -> usize {
        self.threads
    }
    /// Virtual loss added per in-flight playout (tree-parallel only; 0 disables).
    pub fn virtual_loss(&self) -> u32 {
        self.virtual_loss
    }
    /// How selection reads other workers' in-flight playouts.
    pub fn in_flight(&self) -> InFlight {
        self.in_flight
    }
    /// Playouts each worker keeps in flight at once (`None`: the game's
    /// [`crate::games::Game::PLAYOUT_LANES`]).
    pub fn leaves(&self) -> Option<u32> {
        self.leaves
    }
    /// Arena capacity in nodes (for root-parallel: shared out between the trees).
    pub fn arena_nodes(&self) -> u64 {
        self.arena_nodes
    }
    /// A leaf is expanded once it has this many visits.
    pub fn expand_threshold(&self) -> u32 {
        self.expand_threshold
    }
    /// How the final move is chosen.
    pub fn final_move(&self) -> FinalMove {
        self.final_move
    }
    /// Whether players keep the subtree of the position reached (tree reuse).
    pub fn reuse(&self) -> bool {
        self.reuse
    }
    /// Progressive bias weight C_BT (0: off).
    pub fn bias(&self) -> f32 {
        self.bias
    }
    /// Progressive bias constant K.
    pub fn bias_k(&self) -> f32 {
        self.bias_k
    }
    /// The playout policy.
    pub fn playout(&self) -> Playout {
        self.playout
    }
    /// Win-first / block-first pruning in the tree and the playouts; `None`: the game's
    /// default ([`crate::Game::PRUNE_BY_DEFAULT`]).
    pub fn prune(&self) -> Option<bool> {
        self.prune
    }
    /// MCTS-Solver: proven wins, losses and draws.
    pub fn solver(&self) -> bool {
        self.solver
    }
    /// RAVE constant k of `beta = sqrt(k / (3N + k))` (0: off).
    pub fn rave(&self) -> f32 {
        self.rave
    }
    /// The move strengths behind progressive bias and biased playouts.
    pub fn weights(&self) -> &Weights {
        &self.weights
    }
    /// A copy with another seed (used by players that search once per move).
    pub fn with_seed(&self, seed: u64) -> SearchConfig {
        SearchConfig { seed, ..self.clone() }
    }
}

/// Builder for [`SearchConfig`]; [`SearchConfigBuilder::build`] validates everything.
#[derive(Clone, Debug)]
pub struct SearchConfigBuilder {
    playouts: Option<u64>,
    time: Option<Duration>,
    c: Option<f64>,
    seed: u64,
    mode: Mode,
    threads: usize,
    virtual_loss: u32,
    in_flight: InFlight,
    leaves: Option<u32>,
    arena_nodes: u64,
    expand_threshold: u32,
    final_move: FinalMove,
    reuse: bool,
    bias: f64,
    bias_k: f64,
    playout: Playout,
    prune: Option<bool>,
    solver: bool,
    rave: f64,
    weights: Weights,
}

impl Default for SearchConfigBuilder {
    fn default() -> Self {
        SearchConfigBuilder {
            playouts: None,
            time: None,
            // Per game (`Game::EXPLORATION`): sqrt(2) unless the game measured better.
            c: None,
            seed: 0,
            mode: Mode::Sequential,
            threads: 1,
            virtual_loss: 1,
            in_flight: InFlight::Loss,
            leaves: None,
            arena_nodes: DEFAULT_ARENA_NODES,
            expand_threshold: DEFAULT_EXPAND_THRESHOLD,
            final_move: FinalMove::Visits,
            // Measured: +37 Elo [+4, +69] in Connect Four, -3 [-37, +30] in Othello at
            // 20 ms per move (docs/RESULTS.md).
            reuse: true,
            bias: 0.0,
            bias_k: DEFAULT_BIAS_K,
            // Measured best in both games with action values (docs/RESULTS.md): Othello
            // +430 Elo at equal time, Connect Four +71.
            playout: Playout::Biased,
            // Per game (`Game::PRUNE_BY_DEFAULT`): on in Connect Four, where the rule is a few
            // bitboard operations and measured +300 Elo on top of biased playouts; off
            // where it plays every move and reply (Othello: 80x the iteration).
            prune: None,
            solver: false,
            rave: 0.0,
            weights: Weights::Shipped,
        }
    }
}

impl SearchConfigBuilder {
    /// Stop after this many playouts.
    pub fn playouts(mut self, playouts: u64) -> Self {
        self.playouts = Some(playouts);
        self
    }
    /// Stop after this much wall time.
    pub fn time(mut self, time: Duration) -> Self {
        self.time = Some(time);
        self
    }
    /// UCB1 exploration constant C. Unset: the game's default ([`crate::Game::EXPLORATION`]).
    pub fn c(mut self, c: f64) -> Self {
        self.c = Some(c);
        self
    }
    /// Random seed; worker `i` seeds its generator from `(seed, i)`.
    pub fn seed(mut self, seed: u64) -> Self {
        self.seed = seed;
        self
    }
    /// Threading mode.
    pub fn mode(mut self, mode: Mode) -> Self {
        self.mode = mode;
        self
    }
    /// Worker threads.
    pub fn threads(mut self, threads: usize) -> Self {
        self.threads = threads;
        self
    }
    /// Virtual loss per in-flight playout (0 disables).
    pub fn virtual_loss(mut self, virtual_loss: u32) -> Self {
        self.virtual_loss = virtual_loss;
        self
    }

    /// How selection reads in-flight playouts ([`InFlight`]; tree mode).
    pub fn in_flight(mut self, in_flight: InFlight) -> Self {
        self.in_flight = in_flight;
        self
    }
    /// Playouts each worker keeps in flight (1 to [`MAX_LEAVES`]; default: the game's
    /// [`crate::games::Game::PLAYOUT_LANES`]): a worker descends to `n` leaves, virtual
    /// loss spreading them, then runs their `n` playouts at once through
    /// [`crate::games::Game::playouts`], which a game whose playout is one long
    /// dependency chain interleaves (Othello: 1.62x the playouts per second for 2). With
    /// `n > 1` the exclusive trees of the sequential and root-parallel modes keep virtual
    /// loss too (plain adds, still no atomic instruction).
    pub fn leaves(mut self, n: u32) -> Self {
        self.leaves = Some(n);
        self
    }
    /// Arena capacity in nodes.
    pub fn arena_nodes(mut self, nodes: u64) -> Self {
        self.arena_nodes = nodes;
        self
    }
    /// Arena capacity from a memory size in MiB ([`crate::tree::NODE_BYTES`] per node).
    pub fn memory_mb(mut self, mb: u64) -> Self {
        self.arena_nodes = mb.saturating_mul(1 << 20) / NODE_BYTES as u64;
        self
    }
    /// Visits a leaf needs before it is expanded (at least 1; 1 expands at the first revisit).
    pub fn expand_threshold(mut self, visits: u32) -> Self {
        self.expand_threshold = visits;
        self
    }

    /// How the final move is chosen (default: most visits).
    pub fn final_move(mut self, rule: FinalMove) -> Self {
        self.final_move = rule;
        self
    }

    /// Keep the subtree of the position reached between moves ([`crate::Search::reuse`]).
    pub fn reuse(mut self, on: bool) -> Self {
        self.reuse = on;
        self
    }

    /// Progressive bias weight C_BT (0 disables it).
    pub fn bias(mut self, c_bt: f64) -> Self {
        self.bias = c_bt;
        self
    }

    /// Progressive bias constant K (the visits over which the bias halves, squared).
    pub fn bias_k(mut self, k: f64) -> Self {
        self.bias_k = k;
        self
    }

    /// The playout policy.
    pub fn playout(mut self, playout: Playout) -> Self {
        self.playout = playout;
        self
    }

    /// Win-first / block-first pruning ([`crate::Game::prune_moves`]) at expansion and
    /// at every playout ply. Unset: the game's default ([`crate::Game::PRUNE_BY_DEFAULT`]).
    pub fn prune(mut self, on: bool) -> Self {
        self.prune = Some(on);
        self
    }

    /// MCTS-Solver (Winands, Björnsson & Saito 2008): prove wins, losses and draws in the
    /// tree, back them up, and stop as soon as the root is proven.
    pub fn solver(mut self, on: bool) -> Self {
        self.solver = on;
        self
    }

    /// RAVE (Gelly & Silver 2011) with `beta = sqrt(k / (3N + k))`; 0 disables it.
    pub fn rave(mut self, k: f64) -> Self {
        self.rave = k;
        self
    }

    /// The move strengths for progressive bias and biased playouts: a learned set
    /// ([`MoveWeights`], checked against the game when a search runs), the game's hand-set
    /// action values, or (the default) the game's shipped set.
    pub fn weights(mut self, weights: impl Into<Weights>) -> Self {
        self.weights = weights.into();
        self
    }

    /// Validates the configuration.
    ///
    /// # Errors
    /// A [`ConfigError`] naming the first bad value.
    pub fn build(self) -> Result<SearchConfig, ConfigError> {
        match (self.playouts, self.time) {
            (None, None) => return Err(ConfigError::NoBudget),
            (Some(0), _) => return Err(ConfigError::ZeroPlayouts),
            (Some(n), _) if n > MAX_PLAYOUTS => return Err(ConfigError::TooManyPlayouts(n)),
            (_, Some(t)) if t.is_zero() => return Err(ConfigError::ZeroTime),
            _ => {}
        }
        if let Some(c) = self.c.filter(|c| !c.is_finite() || *c < 0.0) {
            return Err(ConfigError::BadExploration(c));
        }
        if self.threads == 0 {
            return Err(ConfigError::ZeroThreads);
        }
        if !self.bias.is_finite() || self.bias < 0.0 {
            return Err(ConfigError::BadBias(self.bias));
        }
        if !self.bias_k.is_finite() || self.bias_k <= 0.0 {
            return Err(ConfigError::BadBiasK(self.bias_k));
        }
        if !self.rave.is_finite() || self.rave < 0.0 {
            return Err(ConfigError::BadRave(self.rave));
        }
        if self.expand_threshold == 0 {
            return Err(ConfigError::ZeroExpandThreshold);
        }
        if let Some(n) = self.leaves.filter(|&n| n == 0 || n as usize > MAX_LEAVES) {
            return Err(ConfigError::BadLeaves(n));
        }
        let threads = if self.mode == Mode::Sequential { 1 } else { self.threads };
        let per_tree =
            if self.mode == Mode::RootParallel { self.arena_nodes / threads as u64 } else { self.arena_nodes };
        if per_tree < MIN_ARENA_NODES || self.arena_nodes > u32::MAX as u64 {
            return Err(ConfigError::ArenaTooSmall(self.arena_nodes));
        }
        Ok(SearchConfig {
            playouts: self.playouts,
            time: self.time,
            c: self.c.map(|c| c as f32),
            seed: self.seed,
            mode: self.mode,
            threads,
            virtual_loss: self.virtual_loss,
            in_flight: self.in_flight,
            leaves: self.leaves,
            arena_nodes: self.arena_nodes,
            expand_threshold: self.expand_threshold,
            final_move: self.final_move,
            reuse: self.reuse,
            bias: self.bias as f32,
            bias_k: self.bias_k as f32,
            playout: self.playout,
            prune: self.prune,
            solver: self.solver,
            rave: self.rave as f32,
            weights: self.weights,
        })
    }
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
        assert_eq!(b().arena_nodes(1).build(), Err(ConfigError::ArenaTooSmall(1)));
        assert_eq!(b().mode(Mode::RootParallel).threads(4).arena_nodes(7).build(), Err(ConfigError::ArenaTooSmall(7)));
        assert_eq!("fast".parse::<Mode>(), Err(ConfigError::UnknownMode("fast".into())));
        assert_eq!("wu-uct".parse::<InFlight>(), Ok(InFlight::WuUct));
        assert_eq!("loss".parse::<InFlight>(), Ok(InFlight::Loss));
        assert!("wu".parse::<InFlight>().unwrap_err().to_string().contains("'wu'"));
        assert_eq!(b().rave(-1.0).build(), Err(ConfigError::BadRave(-1.0)));
        assert!(b().build().is_ok());
        assert_eq!(b().memory_mb(24).build().unwrap().arena_nodes(), (24 << 20) / 24);
    }
}
