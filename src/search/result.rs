//! What a search returns.

use std::time::Duration;

use crate::games::{Game, Move};
use crate::tree::{Expansion, NodeId, TreeOps};

use super::config::Mode;

/// One root child's statistics.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChildResult {
    /// The move.
    pub mv: Move,
    /// Playouts through it.
    pub visits: u64,
    /// Its mean result for the side to move at the root, in [0, 1] (draw = 0.5).
    pub value: f64,
}

/// The result of one search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The most visited root move (`None` only if the root has no legal move).
    pub best_move: Option<Move>,
    /// Every root child, in move-generation order.
    pub children: Vec<ChildResult>,
    /// Principal variation: most visited child from the root down.
    pub pv: Vec<Move>,
    /// Completed playouts.
    pub playouts: u64,
    /// Root visits (equals `playouts` for seq and tree; summed over trees for root).
    pub root_visits: u64,
    /// Nodes used in the arena(s).
    pub nodes: u64,
    /// Deepest path from the root, in plies.
    pub max_depth: u32,
    /// Wall time of the search.
    pub elapsed: Duration,
    /// Whether an expansion was refused because the arena was full.
    pub arena_full: bool,
    /// Threading mode.
    pub mode: Mode,
    /// Worker threads.
    pub threads: usize,
}

impl SearchResult {
    /// Playouts per second of wall time.
    pub fn playouts_per_sec(&self) -> f64 {
        self.playouts as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// Root children's (move, visits, half points) read from a tree.
pub(crate) fn root_children<T: TreeOps>(tree: &mut T) -> Vec<(Move, u64, u64)> {
    match tree.expansion(NodeId::ROOT) {
        Expansion::Expanded { first, count } => (0..count)
            .map(|i| {
                let id = NodeId(first.0 + i);
                let stats = tree.stats(id);
                (Move(tree.mv(id)), stats.visits as u64, stats.half_points as u64)
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The most visited path from the root (ties: the first child).
pub(crate) fn principal_variation<T: TreeOps>(tree: &mut T, max_len: usize) -> Vec<Move> {
    let mut pv = Vec::new();
    let mut node = NodeId::ROOT;
    while pv.len() < max_len {
        let Expansion::Expanded { first, count } = tree.expansion(node) else { break };
        let mut best = None;
        let mut best_visits = 0;
        for c in (0..count).map(|i| NodeId(first.0 + i)) {
            let visits = tree.stats(c).visits;
            if visits > best_visits {
                best = Some(c);
                best_visits = visits;
            }
        }
        let Some(best) = best else { break };
        pv.push(Move(tree.mv(best)));
        node = best;
    }
    pv
}

/// Builds the per-child list and best move from merged root statistics.
pub(crate) fn summarise_children(children: &[(Move, u64, u64)]) -> (Option<Move>, Vec<ChildResult>) {
    let list: Vec<ChildResult> = children
        .iter()
        .map(|&(mv, visits, half_points)| ChildResult {
            mv,
            visits,
            value: if visits == 0 { 0.5 } else { half_points as f64 / (2.0 * visits as f64) },
        })
        .collect();
    // Final move by most visits; among equals, the higher value, then the first.
    let best = list
        .iter()
        .enumerate()
        .max_by(|(ia, a), (ib, b)| a.visits.cmp(&b.visits).then(a.value.total_cmp(&b.value)).then(ib.cmp(ia)))
        .map(|(_, c)| c.mv);
    (best, list)
}

/// Formats a move list with the game's notation.
pub fn format_moves<G: Game>(root: &G, moves: &[Move]) -> Vec<String> {
    let mut state = *root;
    moves
        .iter()
        .map(|&mv| {
            let text = state.format_move(mv);
            state.play_unchecked(mv);
            text
        })
        .collect()
}
