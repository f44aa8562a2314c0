//! What a search returns.

use std::time::Duration;

use crate::games::{Game, Move, Playouts};
use crate::tree::{Expansion, NodeId, Proof, TreeOps};

use super::config::{FinalMove, Mode, SECURE_A};
use super::drivers::distributed::RankStats;

/// One root child's statistics.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct ChildResult {
    /// The move.
    pub mv: Move,
    /// Playouts through it.
    pub visits: u64,
    /// Its mean result for the side to move at the root, in [0, 1] (draw = 0.5).
    pub value: f64,
    /// Its value for the side to move at the root, if the solver proved it.
    pub proof: Proof,
}

/// The result of one search.
#[derive(Clone, Debug, PartialEq)]
pub struct SearchResult {
    /// The most visited root move (`None` only if the root has no legal move).
    pub best_move: Option<Move>,
    /// Every root child, in move order.
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
    /// Wall time of the search, counted from the start of the [`Search::reuse`](super::Search::reuse)
    /// just before it, if any (the move's time: its budget counts from there too).
    pub elapsed: Duration,
    /// Whether an expansion was refused because the arena was full.
    pub arena_full: bool,
    /// Nodes kept from the previous move's tree (0 without tree reuse).
    pub reused_nodes: u64,
    /// The root's value for its side to move, if the solver proved it (the search then
    /// stopped early).
    pub proof: Proof,
    /// Threading mode.
    pub mode: Mode,
    /// Worker threads.
    pub threads: usize,
    /// Playouts each worker kept in flight (`lanes`, resolved for the game).
    pub lanes: usize,
    /// A distributed search (`mode=dist`): what this process's rank did (its shares, its
    /// walks or leaves), for measurements; `None` for any other mode.
    pub distributed: Option<RankStats>,
    /// With `eval-batch`: the batches the evaluator ran, by size (entry `i`: batches of
    /// `i + 1` leaves); empty otherwise.
    pub batch_sizes: Vec<u64>,
}

impl SearchResult {
    /// The best root move among `allowed` (a game's closing moves,
    /// [`crate::games::Playouts::closing_moves`]): a proven win first, then the most
    /// visits, then the higher value; `None` when none of them is a root child.
    pub fn best_of(&self, allowed: &[Move]) -> Option<Move> {
        let key = |c: &&ChildResult| (c.proof == Proof::Win, c.visits, c.value);
        let best = self
            .children
            .iter()
            .filter(|c| allowed.contains(&c.mv))
            .max_by(|a, b| key(a).partial_cmp(&key(b)).unwrap_or(std::cmp::Ordering::Equal));
        best.map(|c| c.mv)
    }

    /// The move to play after this search of `position`: the best of the game's closing
    /// moves where it has them (the first of them if the search saw none), else
    /// [`SearchResult::best_move`].
    pub fn move_to_play<G: Playouts>(&self, position: &G) -> Option<Move> {
        self.move_within(position.closing_moves().as_deref())
    }

    /// [`SearchResult::move_to_play`] with the closing moves already found (`None`: no
    /// closing rule applies).
    pub fn move_within(&self, closing: Option<&[Move]>) -> Option<Move> {
        match closing {
            Some(allowed) => self.best_of(allowed).or(allowed.first().copied()),
            None => self.best_move,
        }
    }

    /// Playouts per second of wall time.
    pub fn playouts_per_sec(&self) -> f64 {
        self.playouts as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }
}

/// A root child's statistics as read from one tree, or summed exactly over trees by
/// [`super::merge_root_children`]: integers, so trees merge without rounding.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct RootChild {
    /// The move.
    pub mv: Move,
    /// Playouts through it.
    pub visits: u64,
    /// Their results in half points (win 2, draw 1, loss 0) for the side to move at the
    /// root.
    pub half_points: u64,
    /// Its value for the side to move at the root (the child's mover), if proven.
    pub proof: Proof,
}

/// Sums the root children of several trees of one position by move: visits and half
/// points add exactly; a move missing from some trees keeps what the others have; a
/// proof from any tree is a fact about the game, so the strongest one is kept. Returns
/// the children in move order. Trees are matched by move, not by index: a tree kept by
/// [`crate::search::Search::reuse`] has its root children in another order.
///
/// # Examples
/// ```
/// use parmcts::search::{merge_root_children, RootChild};
/// use parmcts::{Move, Proof};
///
/// let child = |mv, visits, half_points| RootChild { mv: Move(mv), visits, half_points, proof: Proof::Unknown };
/// let merged = merge_root_children(&[vec![child(3, 10, 12)], vec![child(3, 5, 4), child(1, 2, 2)]]);
/// assert_eq!(merged, [child(1, 2, 2), child(3, 15, 16)]);
/// ```
pub fn merge_root_children(trees: &[Vec<RootChild>]) -> Vec<RootChild> {
    let mut merged: Vec<RootChild> = Vec::new();
    for &child in trees.iter().flatten() {
        match merged.binary_search_by_key(&child.mv, |c| c.mv) {
            Ok(i) => {
                merged[i].visits += child.visits;
                merged[i].half_points += child.half_points;
                merged[i].proof = merged[i].proof.max(child.proof);
            }
            Err(i) => merged.insert(i, child),
        }
    }
    merged
}

/// The root's children read from a tree.
pub(crate) fn root_children<T: TreeOps>(tree: &mut T) -> Vec<RootChild> {
    match tree.expansion(NodeId::ROOT) {
        Expansion::Expanded { first, count } => (0..count)
            .map(|i| {
                let id = NodeId(first.0 + i);
                let stats = tree.stats(id);
                RootChild {
                    mv: Move(tree.mv(id)),
                    visits: stats.visits as u64,
                    half_points: stats.half_points as u64,
                    proof: tree.proof(id),
                }
            })
            .collect(),
        _ => Vec::new(),
    }
}

/// The principal variation: `first` (a root move), then the most visited child at each
/// level below it (ties: the first child). Just `[first]` if this tree lacks it.
pub(crate) fn principal_variation<T: TreeOps>(tree: &mut T, first_move: Move, max_len: usize) -> Vec<Move> {
    let mut pv = vec![first_move];
    let Expansion::Expanded { first, count } = tree.expansion(NodeId::ROOT) else { return pv };
    let Some(mut node) = (0..count).map(|i| NodeId(first.0 + i)).find(|&c| tree.mv(c) == first_move.0) else {
        return pv;
    };
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

/// Builds the per-child list and picks the final move by `rule` from merged root
/// statistics (ties: the earlier child). Proofs come first: a move proven to win is
/// played, and a move proven to lose only when every move is.
pub(crate) fn summarise_children(children: &[RootChild], rule: FinalMove) -> (Option<Move>, Vec<ChildResult>) {
    let list: Vec<ChildResult> = children
        .iter()
        .map(|c| ChildResult {
            mv: c.mv,
            visits: c.visits,
            value: if c.visits == 0 { 0.5 } else { c.half_points as f64 / (2.0 * c.visits as f64) },
            proof: c.proof,
        })
        .collect();
    if let Some(win) = list.iter().find(|c| c.proof == Proof::Win) {
        return (Some(win.mv), list);
    }
    let all_lost = list.iter().all(|c| c.proof == Proof::Loss);
    let key = |c: &ChildResult| -> (f64, f64) {
        match rule {
            FinalMove::Visits => (c.visits as f64, c.value),
            FinalMove::Value if c.visits > 0 => (c.value, c.visits as f64),
            FinalMove::Secure if c.visits > 0 => (c.value - SECURE_A / (c.visits as f64).sqrt(), c.visits as f64),
            _ => (f64::NEG_INFINITY, 0.0),
        }
    };
    let best = list
        .iter()
        .enumerate()
        .filter(|(_, c)| all_lost || c.proof != Proof::Loss)
        .max_by(|(ia, a), (ib, b)| {
            let (ka, kb) = (key(a), key(b));
            ka.0.total_cmp(&kb.0).then(ka.1.total_cmp(&kb.1)).then(ib.cmp(ia))
        })
        .map(|(_, c)| c.mv);
    (best, list)
}

/// Formats a move list with the game's notation.
pub fn format_moves<G: Game>(root: &G, moves: &[Move]) -> Vec<String> {
    let mut state = root.clone();
    moves
        .iter()
        .map(|&mv| {
            let text = state.format_move(mv);
            state.play_unchecked(mv);
            text
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn final_move_rules() {
        // A: robust (100 visits, 0.6); B: secure (10 visits, 0.9: 0.9 - 1/sqrt(10) = 0.58
        // beats 0.6 - 0.1 = 0.5); C: max (1 visit, 1.0, but a bound of 0); D: unvisited.
        let child = |mv, visits, half_points| RootChild { mv: Move(mv), visits, half_points, proof: Proof::Unknown };
        let mut children = [child(0, 100, 120), child(1, 10, 18), child(2, 1, 2), child(3, 0, 0)];
        assert_eq!(summarise_children(&children, FinalMove::Visits).0, Some(Move(0)));
        assert_eq!(summarise_children(&children, FinalMove::Value).0, Some(Move(2)));
        assert_eq!(summarise_children(&children, FinalMove::Secure).0, Some(Move(1)));
        let (_, list) = summarise_children(&children, FinalMove::Visits);
        assert_eq!(list[3].value, 0.5);
        assert!((list[1].value - 0.9).abs() < 1e-12);
        // Proofs override the statistics: never a proven loss while another move is left,
        // always a proven win.
        children[0].proof = Proof::Loss;
        assert_eq!(summarise_children(&children, FinalMove::Visits).0, Some(Move(1)));
        children[3].proof = Proof::Win;
        assert_eq!(summarise_children(&children, FinalMove::Visits).0, Some(Move(3)));
        for c in &mut children {
            c.proof = Proof::Loss;
        }
        assert_eq!(summarise_children(&children, FinalMove::Visits).0, Some(Move(0)));
    }
}
