//! The bounds of the settings: what the tree's counters and indices hold, and what a
//! configuration may ask for before validation rejects it.

/// The most playouts one search may run: node visit counters are 32-bit, with the score
/// (up to twice the visits) in the other half of the same word.
pub const MAX_PLAYOUTS: u64 = (1 << 31) - 1;
/// The most worker threads a search may use: far above any core count a search scales
/// to, low enough that a mistyped count fails at once instead of spawning threads until
/// memory runs out.
pub const MAX_THREADS: usize = 1024;

/// The deepest negamax at the leaves (`eval-depth`): each ply multiplies a leaf's
/// evaluations by the number of moves.
pub const MAX_EVAL_DEPTH: u32 = 4;
/// The smallest arena accepted up front (a root plus a block of children); the exact
/// requirement depends on the root position and is checked when the search starts.
pub const MIN_ARENA_NODES: u64 = 2;
/// The largest arena: node indices are 32-bit.
pub const MAX_ARENA_NODES: u64 = u32::MAX as u64;
/// The most playouts one worker keeps in flight (`lanes`).
pub const MAX_LANES: usize = 4;
/// The most leaves in one batch of a farm (each walk in flight keeps its own path).
pub const MAX_DIST_BATCH: u32 = 256;
/// The largest batch of leaves handed to an evaluator at once (`eval-batch`).
pub(crate) const MAX_EVAL_BATCH: u32 = 1024;
/// The most walks in flight waiting for the evaluator, in all (`eval-in-flight`).
pub(crate) const MAX_EVAL_IN_FLIGHT: u32 = 4096;
/// The most threads running the evaluator (`eval-threads`).
pub(crate) const MAX_EVAL_THREADS: u32 = 64;
/// The longest a batch may wait to fill (`eval-wait-us`): one second.
pub(crate) const MAX_EVAL_WAIT_US: u32 = 1_000_000;
