//! Quiescent invariants: what must hold of a tree once every worker has stopped.
//!
//! 1. No node is left EXPANDING, and no WU-UCT unobserved playout is left anywhere.
//!    (Virtual loss left in a node's visits, by a walk whose backup did not take it
//!    back, would break rule 2 or 3: the walk's nodes up to the root keep it.)
//! 2. The root's visits equal the completed playouts, and equal the sum of its
//!    children's visits (the root is expanded before its first playout), plus, once the
//!    solver proved the root, the iterations that stopped at it. A root reused from the
//!    previous move's tree starts with the visits it had there (`prior_*`).
//! 3. An expanded non-root node with children has `visits = Σ children's visits + leaf`,
//!    where `leaf` counts the playouts that stopped at it before its children were
//!    published: exactly `expand_threshold` in a sequential search, at least that in a
//!    parallel one (workers that found it EXPANDING play out from it) or on a node the
//!    solver proved (iterations stop at a proven node). With several walks in flight
//!    the expected threshold is lowered by the walks beside the one that expands: their
//!    virtual loss is in the node's visits and counts towards it, and they may yet go
//!    below the node once it has children.
//! 4. Child blocks lie inside the used part of the arena and no index belongs to two
//!    blocks; the nodes reachable from the root are exactly the nodes allocated.
//! 5. With RAVE, every child's AMAF visits are at least its visits: an iteration through
//!    a child played its move, so it credits it (games without chance turns, where RAVE
//!    skips the credit).
//! 6. No node scores more than it was visited: half points at most 2 × visits.
//! 7. Every proof the solver left is supported by the game or by the children's proofs
//!    ([`check_proofs`]).

use std::fmt;

use super::{Arena, Expansion, NodeId};

/// A broken invariant: its number in the list above, the node, and what was found.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub struct InvariantViolation {
    /// The invariant's number (1 to 7, as listed in `src/tree/invariants.rs` and `docs/CONCURRENCY.md`).
    pub rule: u8,
    /// The arena index of the node at fault (`None` for a fault of the whole tree).
    pub node: Option<u32>,
    /// What was found, with the numbers.
    pub message: String,
}

impl InvariantViolation {
    fn at(rule: u8, node: u32, message: String) -> Self {
        InvariantViolation { rule, node: Some(node), message }
    }
}

impl fmt::Display for InvariantViolation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "invariant violated (rule {}): {}", self.rule, self.message)
    }
}

impl std::error::Error for InvariantViolation {}

/// What the check expects.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Expectations {
    /// Completed playouts on this tree.
    pub playouts: u64,
    /// The configured expansion threshold.
    pub expand_threshold: u32,
    /// Whether rule 3 holds with equality (sequential search).
    pub exact_leaf_visits: bool,
    /// Visits the root had before this search (0 unless the tree was reused).
    pub prior_root_visits: u64,
    /// Of those, the playouts that stopped at the root before it had children.
    pub prior_root_leaf: u64,
    /// Whether rule 5 applies (RAVE on, no chance turns).
    pub amaf_covers_visits: bool,
}

/// Checks every quiescent invariant of `arena`; returns the number of reachable nodes.
///
/// # Errors
/// The first [`InvariantViolation`] found.
pub(crate) fn check(arena: &Arena, expect: Expectations) -> Result<u64, InvariantViolation> {
    let fail = |rule, node, msg| Err(InvariantViolation::at(rule, node, msg));
    let used = arena.len();
    let mut owned = vec![false; used as usize];
    owned[0] = true;
    let mut reachable = 1u64;
    let mut stack = vec![NodeId::ROOT];
    let root = arena.node(NodeId::ROOT).stats_relaxed();
    if root.visits as u64 != expect.playouts + expect.prior_root_visits {
        return fail(
            2,
            0,
            format!(
                "root visits {} != completed playouts {} + visits before the search {}",
                root.visits, expect.playouts, expect.prior_root_visits
            ),
        );
    }
    while let Some(id) = stack.pop() {
        let node = arena.node(id);
        let unobserved = node.unobserved_relaxed();
        if unobserved != 0 {
            return fail(1, id.0, format!("node {} keeps {unobserved} unobserved playouts", id.0));
        }
        let stats = node.stats_relaxed();
        if stats.half_points > 2 * stats.visits {
            return fail(
                6,
                id.0,
                format!("node {} score {} exceeds 2 x visits {}", id.0, stats.half_points, stats.visits),
            );
        }
        match node.expansion() {
            Expansion::Unexpanded => {}
            Expansion::Expanding => return fail(1, id.0, format!("node {} left EXPANDING", id.0)),
            Expansion::Expanded { count: 0, .. } => {}
            Expansion::Expanded { first, count } => {
                check_block(arena, &expect, id, first, count, &mut owned, &mut stack)?;
                reachable += count as u64;
            }
        }
    }
    if reachable != used as u64 {
        return Err(InvariantViolation {
            rule: 4,
            node: None,
            message: format!("{reachable} nodes reachable from the root but {used} allocated"),
        });
    }
    Ok(reachable)
}

/// Checks one expanded node `id` and its child block (rules 2 to 5), marks the block's
/// nodes owned and pushes them on `stack`.
fn check_block(
    arena: &Arena,
    expect: &Expectations,
    id: NodeId,
    first: NodeId,
    count: u32,
    owned: &mut [bool],
    stack: &mut Vec<NodeId>,
) -> Result<(), InvariantViolation> {
    let fail = |rule, node, msg| Err(InvariantViolation::at(rule, node, msg));
    let used = arena.len();
    let end = first.0 as u64 + count as u64;
    if first.0 == 0 || end > used as u64 {
        return fail(4, id.0, format!("node {} has block {}..{end} outside 1..{used}", id.0, first.0));
    }
    let mut child_visits = 0u64;
    for c in first.0..first.0 + count {
        if std::mem::replace(&mut owned[c as usize], true) {
            return fail(4, c, format!("node {c} belongs to two child blocks (parent {})", id.0));
        }
        let visits = arena.node(NodeId(c)).stats_relaxed().visits;
        child_visits += visits as u64;
        let amaf = arena.amaf(NodeId(c)).visits;
        if expect.amaf_covers_visits && amaf < visits {
            return fail(5, c, format!("node {c} has {visits} visits but only {amaf} AMAF visits"));
        }
        stack.push(NodeId(c));
    }
    let node = arena.node(id);
    let visits = node.stats_relaxed().visits as u64;
    let leaf = visits.checked_sub(child_visits);
    let ok = match (id == NodeId::ROOT, leaf) {
        (_, None) => false,
        (true, Some(leaf)) => {
            leaf == expect.prior_root_leaf || (node.proof().is_known() && leaf > expect.prior_root_leaf)
        }
        (false, Some(leaf)) if expect.exact_leaf_visits && !node.proof().is_known() => {
            leaf == expect.expand_threshold as u64
        }
        (false, Some(leaf)) => leaf >= expect.expand_threshold as u64,
    };
    if !ok {
        let rule = if id == NodeId::ROOT { 2 } else { 3 };
        let msg = format!(
            "node {} has {visits} visits but its children have {child_visits} (threshold {})",
            id.0, expect.expand_threshold
        );
        return fail(rule, id.0, msg);
    }
    Ok(())
}

/// Checks every proof the solver left in `arena` (searched from `root`) against the game:
/// a finished position is proven with its result; any other proven node is a player's
/// turn whose children's proofs imply its value (one child won for the player to move,
/// or every child proven and the best one giving the value), or a leaf the game's exact
/// solver settled (`endgame-leaf`), which an unbounded solve must confirm. Returns the
/// proven nodes.
///
/// # Errors
/// The first proof that the game or the children do not support.
pub(crate) fn check_proofs<G: crate::games::Game + crate::games::Endgame>(
    arena: &Arena,
    root: &G,
) -> Result<u64, InvariantViolation> {
    use super::Proof;
    use crate::games::{Move, Turn};
    let fail = |node: NodeId, msg| Err(InvariantViolation::at(7, node.0, msg));
    let mut proven = 0;
    let mut stack = vec![(NodeId::ROOT, root.clone(), root.side_to_move().other())];
    while let Some((id, state, mover)) = stack.pop() {
        let node = arena.node(id);
        let proof = node.proof();
        let expansion = node.expansion();
        if let Expansion::Expanded { first, count } = expansion {
            for c in first.0..first.0 + count {
                let mut child = state.clone();
                child.play_unchecked(Move(arena.node(NodeId(c)).mv()));
                stack.push((NodeId(c), child, state.side_to_move()));
            }
        }
        if !proof.is_known() {
            continue;
        }
        proven += 1;
        if let Some(outcome) = state.outcome() {
            if proof != Proof::from_half_points(outcome.half_points(mover)) {
                return fail(id, format!("node {} proven {proof:?} but the game ended {outcome:?}", id.0));
            }
            continue;
        }
        if expansion == (Expansion::Expanded { first: NodeId(0), count: 0 }) {
            // A leaf for good that is not over: only the exact solver proves one.
            let exact = state.solve_endgame(u64::MAX).map(|s| Proof::from_half_points(s.outcome.half_points(mover)));
            if exact != Some(proof) {
                return fail(
                    id,
                    format!("node {} proven {proof:?} as a leaf, but the exact solver says {exact:?}", id.0),
                );
            }
            continue;
        }
        let (Turn::Player(to_move), Expansion::Expanded { first, count }) = (state.turn(), expansion) else {
            return fail(id, format!("node {} proven {proof:?} without children to prove it", id.0));
        };
        let proofs: Vec<Proof> = (first.0..first.0 + count).map(|c| arena.node(NodeId(c)).proof()).collect();
        let best = proofs.iter().copied().max().unwrap_or_default();
        if count == 0 || (best != Proof::Win && proofs.contains(&Proof::Unknown)) {
            return fail(id, format!("node {} proven {proof:?} but its children prove nothing", id.0));
        }
        let implied = if to_move == mover { best } else { best.flip() };
        if proof != implied {
            return fail(id, format!("node {} proven {proof:?} but its children imply {implied:?}", id.0));
        }
    }
    Ok(proven)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn expect(playouts: u64) -> Expectations {
        Expectations {
            playouts,
            expand_threshold: 1,
            exact_leaf_visits: true,
            prior_root_visits: 0,
            prior_root_leaf: 0,
            amaf_covers_visits: false,
        }
    }

    #[test]
    fn a_violation_names_its_rule_and_node() {
        let arena = Arena::new(4).unwrap();
        assert_eq!(check(&arena, expect(0)), Ok(1));
        let e = check(&arena, expect(1)).unwrap_err();
        assert_eq!((e.rule, e.node), (2, Some(0)), "{e}");
        assert!(e.to_string().contains("rule 2"), "{e}");
        // Two nodes handed out but never published: unreachable, a fault of the whole tree.
        arena.alloc(2).unwrap();
        let e = check(&arena, expect(0)).unwrap_err();
        assert_eq!((e.rule, e.node), (4, None), "{e}");
    }
}
