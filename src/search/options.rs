//! The named choices of a search configuration: threading [`Mode`], [`FinalMove`] rule,
//! [`Playout`] policy, [`InFlight`] rule, [`DistScheme`], [`ChanceSelection`], move [`Weights`] and leaf
//! [`Evaluation`].

use std::fmt;
use std::sync::Arc;

use crate::evaluator::NTupleNetwork;
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
    /// Each thread searches its own tree, and the trees share their shallow statistics
    /// every few iterations (MoGo's cluster scheme in one process).
    Synced,
    /// The virtual-thread simulator (Segal 2010, "On the scalability of parallel UCT"):
    /// `threads` logical workers take turns in one OS thread on the tree-parallel
    /// search's shared tree, each walk's back-up delayed until its worker's next turn, so
    /// the tree sees as many walks in flight as that many real threads would keep. Models
    /// the search a tree-parallel run would make, not its speed.
    Virtual,
    /// Distributed over MPI (`mpirun -np N`, the `mpi` feature): one process (rank) per
    /// machine, each running the tree-parallel search with `threads` workers, while its
    /// calling thread shares the shallow statistics that changed with the other ranks
    /// every `dist-period` ms (MoGo's cluster mode; `src/search/drivers/distributed/`). Without the
    /// feature a configuration with this mode is refused ([`ConfigError::DistUnavailable`](crate::search::ConfigError::DistUnavailable)).
    Dist,
    /// The default: the sequential search at one thread; with more, the parallel mode
    /// that measured strongest per second. That is tree-parallel in Connect Four and
    /// Othello, the games measured (its strength speedups at 2 threads, 1.19 and 1.38,
    /// are the best point estimates of `parmcts scale`, docs/SCALING.md), so `auto`
    /// resolves to `tree` for every game. [`SearchConfigBuilder::build`] resolves it:
    /// a built configuration never holds `Auto`.
    ///
    /// [`SearchConfigBuilder::build`]: super::SearchConfigBuilder::build
    Auto,
}

impl Mode {
    /// Every mode, in the order the CLI lists them.
    pub const ALL: [Mode; 7] =
        [Mode::Auto, Mode::Sequential, Mode::TreeParallel, Mode::RootParallel, Mode::Synced, Mode::Virtual, Mode::Dist];

    /// What `self` means with `threads` threads: [`Mode::Auto`] resolved, any other mode
    /// itself.
    pub fn resolve(self, threads: usize) -> Mode {
        match self {
            Mode::Auto if threads <= 1 => Mode::Sequential,
            Mode::Auto => Mode::TreeParallel,
            mode => mode,
        }
    }

    /// The CLI name: `auto`, `seq`, `tree`, `root`, `sync`, `virtual` or `dist`.
    pub fn name(self) -> &'static str {
        match self {
            Mode::Sequential => "seq",
            Mode::TreeParallel => "tree",
            Mode::RootParallel => "root",
            Mode::Synced => "sync",
            Mode::Virtual => "virtual",
            Mode::Dist => "dist",
            Mode::Auto => "auto",
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
    /// Uniformly random legal moves ([`crate::Playouts::random_playout`]).
    Random,
    /// Roulette-wheel selection by the game's action values,
    /// `p(a) = f(a) / Σ f(a')` ([`crate::Playouts::biased_playout`]).
    Biased,
}

impl fmt::Display for Playout {
    /// The name [`Playout::from_str`](std::str::FromStr::from_str) reads: `random` or `biased`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Playout::Random => "random",
            Playout::Biased => "biased",
        })
    }
}

/// How selection scores a node's children.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Select {
    /// UCB1 (Kocsis & Szepesvári 2006), `q + C sqrt(ln N / n)`, with progressive bias
    /// and RAVE where they are on.
    Ucb,
    /// PUCT (Silver et al. 2017, AlphaGo Zero; Rosin 2011), `q + c_puct P sqrt(N) / (1 + n)`:
    /// the prior `P` (the evaluator's, or the move strengths') leads the exploration; an
    /// unvisited child is valued at the parent's mean less `fpu` (first-play urgency).
    Puct,
}

impl fmt::Display for Select {
    /// The name [`Select::from_str`](std::str::FromStr::from_str) reads: `ucb` or `puct`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Select::Ucb => "ucb",
            Select::Puct => "puct",
        })
    }
}

/// Default `K` of the progressive bias term (the literature's Othello setting).
pub const DEFAULT_BIAS_K: f64 = 5000.0;

/// Leaves rank 0 of a farm (`dist-scheme=farm`) sends another rank at a time, unless
/// told (`dist-batch`): with two batches in flight, 32 walks per other rank, where the
/// shared tree loses nothing measurable per playout (docs/SCALING.md, virtual threads).
pub const DEFAULT_DIST_BATCH: u32 = 16;

/// Default expansion threshold: a leaf gets its children on its 8th visit. Measured on
/// Connect Four (1,000,000 playouts from the empty board, `perf stat -r 5`): 1.24 G cycles
/// against 1.63 G at threshold 1, with 366,836 nodes against 2,110,504; strength at
/// 10,000 playouts per move: +1.7 Elo [-45, +49] over 200 games (no difference), and
/// tic-tac-toe at 2,000 playouts still draws every game against perfect play.
pub const DEFAULT_EXPAND_THRESHOLD: u32 = 8;
/// Default arena size: 2^24 nodes (384 MiB of address space, touched only as used).
pub const DEFAULT_ARENA_NODES: u64 = 1 << 24;

/// The constant `A` of the secure child's bound `q - A / sqrt(n)`.
pub const SECURE_A: f64 = 1.0;

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

/// How the ranks of a distributed search (`mode=dist`) divide the work.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum DistScheme {
    /// MoGo's cluster mode (Gelly et al. 2008): a tree per rank, the shallow statistics
    /// shared every `dist-period` ms (or `dist-every` playouts).
    #[default]
    Share,
    /// One tree on rank 0, whose leaves the other ranks evaluate (playout or evaluator):
    /// Cazenave & Jouandeau's "at-the-leaves" MPI parallelisation (2007), Kato & Takeuchi's
    /// simulation servers (2008). Rank 0 sends `dist-batch` leaves at a time to each other
    /// rank, two batches in flight, virtual loss spreading the walks.
    Farm,
    /// One tree split between the ranks: every rank keeps the top `dist-depth` plies
    /// (shared as in `Share`), and each node at that depth belongs, with its subtree, to
    /// one rank by a hash of its moves; a walk that reaches another rank's node goes on
    /// there. Schaefers & Platzner's UCT-Treesplit (2014), with one hop a walk. One thread
    /// a rank. Shares come every `dist-period` ms or every `dist-every` walks a rank
    /// starts, and the ranks walk on while they share, so a split search does not repeat
    /// exactly (its counts are exact).
    Split,
    /// One tree spread over the ranks node by node: transposition-driven scheduling
    /// with the depth-first reformulation (Yoshizoe et al. 2011, TDS-df-UCT). Every node
    /// has a home rank chosen by a hash of its moves, and a walk travels as a message
    /// from home to home; `dist-batch` jobs per rank are in flight. One thread a rank.
    Tds,
}

impl fmt::Display for DistScheme {
    /// The name [`DistScheme::from_str`](std::str::FromStr::from_str) reads: `share`, `farm` or `split`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            DistScheme::Share => "share",
            DistScheme::Farm => "farm",
            DistScheme::Split => "split",
            DistScheme::Tds => "tds",
        })
    }
}

/// How the walk down the tree picks the outcome at a chance node (a die roll).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub enum ChanceSelection {
    /// Draw the outcome by its weight ([`crate::Game::chance_weight`]), as the game would.
    #[default]
    Sample,
    /// Walk the outcomes in proportion to their weights: take the one furthest below its
    /// share of the node's walks, `p_i · (N + 1) − n_i` largest (ties: the first), with
    /// the walks in flight (virtual loss) counted, so that concurrent walks spread. Each
    /// outcome's share of the walks then stays within one walk of `p_i · N` (sequential
    /// search), and no variance comes from the draw.
    Walk,
}

impl fmt::Display for ChanceSelection {
    /// The name [`ChanceSelection::from_str`](std::str::FromStr::from_str) reads: `sample` or `walk`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            ChanceSelection::Sample => "sample",
            ChanceSelection::Walk => "walk",
        })
    }
}

/// The move strengths behind progressive bias and biased playouts.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Weights {
    /// The game's shipped learned set ([`crate::Tuning::SHIPPED_WEIGHTS`]) where it has one, else
    /// its hand-set [`crate::Playouts::action_value`]s. The default (`weights=default`).
    #[default]
    Shipped,
    /// The game's hand-set [`crate::Playouts::action_value`]s (`weights=hand-set`).
    HandSet,
    /// A learned set, such as a `parmcts train-weights` file (`weights=FILE`).
    Learned(Arc<MoveWeights>),
}

impl From<MoveWeights> for Weights {
    fn from(weights: MoveWeights) -> Weights {
        Weights::Learned(Arc::new(weights))
    }
}

/// What values a leaf besides its playout: nothing, or an n-tuple network's win
/// probability ([`crate::evaluator`]), mixed with the playout's result by `eval-weight`.
#[derive(Clone, Debug, Default, PartialEq)]
pub enum Evaluation {
    /// The game's default (`eval=default`): its shipped network where
    /// [`Tuning::LEAF_EVALUATION`](crate::games::Tuning::LEAF_EVALUATION) says it measured
    /// stronger, else playouts alone.
    #[default]
    Default,
    /// Playouts alone (`eval=none`).
    None,
    /// The game's shipped network ([`crate::games::NTupleBoard::SHIPPED_NETWORK`];
    /// `eval=network`). A search of a game without one is rejected.
    Shipped,
    /// A network file, such as a `parmcts train-network` file (`eval=FILE`).
    Network(Arc<NTupleNetwork>),
}
