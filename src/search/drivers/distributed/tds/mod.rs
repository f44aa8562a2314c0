//! Transposition-driven scheduling (`dist-scheme=tds`): one logical tree spread over the
//! ranks node by node. Yoshizoe, Kishimoto, Kaneko, Yoshimoto & Ishikawa, "Scalable
//! Distributed Monte-Carlo Tree Search" (SoCS 2011), TDS-df-UCT; after Romein et al.'s
//! transposition-driven work scheduling (1999).
//!
//! Every node has a *home*, the rank chosen by a hash of the moves from the root to it
//! ([`home`]): the home keeps the node's own record and its children's records (the
//! statistics that selection at the node reads), so a selection never waits for another
//! rank. A walk is a *job* that travels as a message: it goes down from home to home, is
//! valued (playout or evaluator) where it stops, and its result goes back up the same way,
//! each home recording it on the nodes it keeps. Consecutive nodes with the same home lie
//! in one subtree of that rank's arena, as in a one-process tree; a node whose home is
//! another rank stays a leaf record in its parent's arena (its statistics for the
//! selection there), and its home keeps a *fragment* for it: a node of its own with the
//! same statistics and the node's children below it.
//!
//! The depth-first reformulation (df-UCT): a job does not go back up after each playout.
//! The home that sends a job down to a child gives it an *allowance*: the playouts the
//! child can take (each counted at the child's current mean) before another child would
//! be selected instead ([`allowance::keeps_best`]); the child's home runs that many walks from
//! the child before it reports their sum in one message. So most walks start deep, and a
//! message up carries many playouts. The root's home starts the jobs, with the budget's
//! playouts as their allowances, and keeps `dist-batch` times the ranks of them in flight.
//! With `dist-top-everywhere=on` every rank keeps a copy of the root's block instead
//! ([`copy::TopCopy`]), starts `dist-batch` jobs of its share of the budget from it, and
//! sends each job that reaches the block's end to that node's home (its own too); the
//! copies tell each other what they gained.
//!
//! A walk down (the ranks are A, B, C; `*` a node whose home is that rank):
//!
//! ```text
//!  A: root* ─ select ─ a1* ─ select ─ a2   (home B: DOWN to B, allowance 3)
//!  B:                             a2* ─ select ─ b1* ─ select ─ b2   (home C: DOWN to C)
//!  C:                                                       b2* valued: UP (1 playout) to B
//!  B: records it on a2*, b1*, b2; walks again from a2* ... after 3 playouts: UP (3) to A
//!  A: records the 3 on root*, a1*, a2; the job walks again from the root, or ends
//! ```
//!
//! Messages (words of `u64`, several per MPI message: each rank batches what it has for a
//! destination until it has nothing else to do): `DOWN` (the job's key, the node's hash,
//! the allowance, the moves from the root: the receiver replays them) and `UP` (the key,
//! the playouts and the first player's half points, the node's implicit minimax value),
//! and with copies of the root's block `SYNC` (`copy.rs`).
//! A rank's part is [`rank::TdsRank`], which moves no message itself: the MPI driver
//! (`mpi.rs`) and the simulator of ranks ([`sim`]) carry them.
//!
//! Tree reuse keeps, on every rank, the nodes under the new root (`reuse.rs`): a node's
//! hash and home are of its path from the first position of the kept tree, so a kept node
//! stays where it is. What it leaves out: the MCTS-Solver, RAVE, WU-UCT, batched
//! evaluation and several threads a rank (the configuration refuses them); chance turns
//! (refused at the start).

pub(crate) mod allowance;
pub(crate) mod check;
pub(crate) mod copy;
pub(crate) mod rank;
#[cfg(feature = "mpi")]
mod reuse;
pub(crate) mod sim;
#[cfg(feature = "mpi")]
pub(super) mod transport;
#[cfg(feature = "mpi")]
mod watchdog;

#[cfg(feature = "mpi")]
pub(crate) use reuse::reuse_ranks;
#[cfg(feature = "mpi")]
pub(crate) use transport::check_ranks;

use rustc_hash::FxHashMap;

use crate::games::{SearchGame, Tuning};
use crate::search::error::ConfigError;
use crate::search::{InFlight, SearchConfig};
use crate::tree::NodeId;

/// What a TDS search keeps between its runs: this rank's fragments (the tree kept for
/// reuse, [`crate::Search::reuse`]), where the root is, and what the check of its
/// invariants needs ([`crate::Search::check_invariants`]).
#[derive(Debug, Default)]
#[cfg_attr(not(feature = "mpi"), allow(dead_code))]
pub(crate) struct Kept {
    /// This rank's fragments by path hash (the root is not one: it sits at the front of
    /// its home's arena).
    pub fragments: FxHashMap<u64, NodeId>,
    /// The moves from the first position of the kept tree to the root: the nodes' hashes
    /// and homes are of their paths from there, so that a kept node keeps its home.
    pub path: Vec<u16>,
    /// Whether the tree was kept for the next run ([`crate::Search::reuse`] found its new
    /// root on its home); otherwise the next run starts afresh.
    pub reused: bool,
    /// The leaves the last run valued here, and its playouts.
    pub valued: u64,
    pub playouts: u64,
    /// The root's visits before the last run (a kept tree's).
    pub prior_root_visits: u64,
    /// The expansion threshold and the plies per home block searched with.
    pub expand_threshold: u32,
    pub block: u32,
    /// Whether the last run kept a copy of the root's block on every rank (such a tree is
    /// not kept for the next run).
    pub everywhere: bool,
}

/// Where a search's root is: its path hash, its depth below the first position of the
/// kept tree, and its home (its block's: a root inside a block is its block start's).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Root {
    pub hash: u64,
    pub depth: u32,
    pub home: u32,
    /// Every rank keeps its own copy of the root's block and starts jobs from it
    /// (`dist-top-everywhere=on`); otherwise the root's home alone does.
    pub everywhere: bool,
}

impl Root {
    /// The root reached by `path`, with blocks of `block` plies over `ranks`.
    pub(crate) fn of(path: &[u16], block: u32, ranks: u32) -> Root {
        let block = block.max(1) as usize;
        let start = path.len() - path.len() % block;
        let start_hash = path_hash(&path[..start]);
        let hash = path[start..].iter().fold(start_hash, |hash, &mv| child_hash(hash, mv));
        Root { hash, depth: path.len() as u32, home: home(start_hash, ranks), everywhere: false }
    }

    /// The same root, its block kept on every rank if `everywhere`.
    pub(crate) fn everywhere(self, everywhere: bool) -> Root {
        Root { everywhere, ..self }
    }

    /// Whether rank `rank` keeps the root (and its block) and starts jobs from it.
    #[inline]
    pub(crate) fn kept_on(self, rank: u32) -> bool {
        self.everywhere || self.home == rank
    }

    /// Whether a node `below` plies under the root starts a home block.
    #[inline]
    pub(crate) fn starts_block(self, below: u32, block: u32) -> bool {
        (self.depth + below).is_multiple_of(block.max(1))
    }
}

/// The hash of the path `moves` from the first position.
pub(crate) fn path_hash(moves: &[u16]) -> u64 {
    moves.iter().fold(ROOT_HASH, |hash, &mv| child_hash(hash, mv))
}

/// The settings TDS cannot honour, refused when the configuration is built.
pub(crate) fn check(cfg: &SearchConfig) -> Result<(), ConfigError> {
    let refuse = |key: &str, value: &dyn std::fmt::Display, why| {
        Err(ConfigError::conflict("dist-scheme", "tds", key, value, why))
    };
    if cfg.solver {
        return refuse("solver", &"on", "proofs are not carried between the ranks");
    }
    if cfg.rave.is_some_and(|k| k > 0.0) {
        return refuse(
            "rave",
            &cfg.rave.unwrap_or(0.0),
            "AMAF statistics are not carried between the ranks (set rave=0)",
        );
    }
    if cfg.in_flight == InFlight::WuUct {
        return refuse("in-flight", &"wu-uct", "a rank keeps virtual loss only");
    }
    if cfg.eval_batch > 0 {
        return refuse("eval-batch", &cfg.eval_batch, "a rank values one leaf at a time");
    }
    Ok(())
}

/// What TDS cannot honour of the game `G`'s defaults: RAVE (Go's; `rave=0` turns it off)
/// and chance turns.
pub(crate) fn check_game<G: SearchGame>(cfg: &SearchConfig) -> Result<(), ConfigError> {
    if cfg.rave_for::<G>() > 0.0 {
        let why = "AMAF statistics are not carried between the ranks (this game's default is on: set rave=0)";
        return Err(ConfigError::conflict("dist-scheme", "tds", "rave", <G as Tuning>::RAVE, why));
    }
    if G::HAS_CHANCE {
        return Err(ConfigError::conflict("dist-scheme", "tds", "game", G::NAME, "chance turns are not distributed"));
    }
    Ok(())
}

/// The hash of the root's path (no moves).
pub(crate) const ROOT_HASH: u64 = 0xCBF2_9CE4_8422_2325;

/// The hash of the path to the child reached by `mv` from the node hashed `parent`.
#[inline]
pub(crate) fn child_hash(parent: u64, mv: u16) -> u64 {
    // FNV-1a over the move's two bytes, as the split's owner hash.
    let mut hash = parent;
    for byte in mv.to_le_bytes() {
        hash = (hash ^ u64::from(byte)).wrapping_mul(0x0000_0100_0000_01B3);
    }
    hash
}

/// The rank that is home to the node hashed `hash`, of `ranks`.
#[inline]
pub(crate) fn home(hash: u64, ranks: u32) -> u32 {
    // The high half of a multiply: sibling paths differ in their last bytes only, and
    // their homes should not be correlated.
    let mixed = (hash ^ hash >> 31).wrapping_mul(0x9E37_79B9_7F4A_7C15) >> 32;
    ((mixed * u64::from(ranks)) >> 32) as u32
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn homes_spread_evenly_over_the_ranks() {
        for ranks in [2u32, 3, 4, 16] {
            let mut counts = vec![0u32; ranks as usize];
            for a in 0..64u16 {
                for b in 0..64u16 {
                    counts[home(child_hash(child_hash(ROOT_HASH, a), b), ranks) as usize] += 1;
                }
            }
            let mean = 4096 / ranks;
            assert!(counts.iter().all(|&c| c.abs_diff(mean) < mean / 5), "{ranks} ranks: {counts:?}");
        }
    }
}
