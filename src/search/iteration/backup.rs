//! What a back-up carries up the path besides the visits and score: MCTS-Solver proofs,
//! implicit minimax values and RAVE's all-moves-as-first credits.

use crate::games::{Move, MovesPlayed, Outcome, Player};
use crate::tree::{Expansion, NodeId, Proof, Stats, TreeOps};

use super::Step;

/// The outcome a proven value stands for, given the player who moved into the node.
pub(super) fn outcome_of(proof: Proof, mover: Player) -> Outcome {
    match proof {
        Proof::Win => Outcome::Win(mover),
        Proof::Loss => Outcome::Win(mover.other()),
        _ => Outcome::Draw,
    }
}

/// MCTS-Solver backup (Winands, Björnsson & Saito 2008), from the proven end of `path`
/// upwards: a node is proven as soon as one child is proven won for the player to move
/// there, or once every child is proven (its value is then the best child's). The first
/// node that cannot be proven ends the walk: nothing above it changed.
///
/// On a shared tree, proofs only ever get added, and every thread that proves a node
/// proves its true value, so racing provers write the same bits; a prover that reads a
/// sibling's proof too early just leaves the parent unproven for a later iteration.
pub(crate) fn prove_ancestors<T: TreeOps>(tree: &mut T, path: &[Step]) {
    for pair in path.windows(2).rev() {
        let (parent, child) = (pair[0], pair[1]);
        if parent.chance || !tree.proof(child.node).is_known() {
            return;
        }
        if tree.proof(parent.node).is_known() {
            continue;
        }
        let Expansion::Expanded { first, count } = tree.expansion(parent.node) else { return };
        // The children's proofs are for the player to move at `parent` (their mover).
        let mut best = Proof::Unknown;
        let mut all_known = true;
        tree.scan_children::<true, false>(first, count, false, |_, child| {
            let proof = child.proof;
            if proof.is_known() {
                best = best.max(proof);
            } else {
                all_known = false;
            }
            if proof == Proof::Win {
                std::ops::ControlFlow::Break(())
            } else {
                std::ops::ControlFlow::Continue(())
            }
        });
        if best != Proof::Win && !all_known {
            return;
        }
        let value = if parent.mover == child.mover { best } else { best.flip() };
        tree.prove(parent.node, value);
    }
}

/// A finished game's value for `player` as a win probability: 1, 0.5 or 0.
pub(super) fn result_value(outcome: Outcome, player: Player) -> f32 {
    outcome.half_points(player) as f32 * 0.5
}

/// The value of a node for its mover from the best of its children's values for theirs:
/// the same when one player moves twice in a row, else its complement.
fn minimax_value(best_child: f32, child_mover: Player, mover: Player) -> f32 {
    if child_mover == mover {
        best_child
    } else {
        1.0 - best_child
    }
}

/// Implicit minimax backup (Lanctot et al. 2014), from the leaf's parent upwards: each
/// node's value becomes the best of its children's, seen from its mover. The first node
/// whose value does not change ends the walk: nothing above it changes either. Chance
/// nodes end it too (their value would be an expectation, not a maximum).
///
/// On a shared tree two backups through a node may race: each stores a maximum over the
/// children it read, and the later store wins; a value left stale by the race is put
/// right by the next backup through the node (`docs/CONCURRENCY.md`).
pub(in crate::search) fn back_up_values<T: TreeOps>(tree: &mut T, path: &[Step]) {
    for pair in path.windows(2).rev() {
        let (parent, child) = (pair[0], pair[1]);
        if parent.chance {
            return;
        }
        let Expansion::Expanded { first, count } = tree.expansion(parent.node) else { return };
        let mut best = f32::NEG_INFINITY;
        tree.scan_children::<false, true>(first, count, false, |_, view| {
            best = best.max(view.value);
            std::ops::ControlFlow::Continue(())
        });
        let value = minimax_value(best, child.mover, parent.mover);
        if value == tree.value(parent.node) {
            return;
        }
        tree.set_value(parent.node, value);
    }
}

/// RAVE's all-moves-as-first backup (Gelly & Silver 2011): at each node of the path,
/// every child whose move the player to move there made at any later point of the
/// iteration (further down the path or in the playout) is credited with the result, as
/// if it had been played first. `played` holds the playout's moves on entry. On a shared
/// tree whose root is batched, the root's children's credits go to `root_pending` (see
/// [`super::Worker::flush`]).
pub(super) fn update_amaf<T: TreeOps>(
    tree: &mut T,
    path: &[Step],
    outcome: Outcome,
    played: &mut MovesPlayed,
    root_pending: &mut Vec<u64>,
) {
    for pair in path.windows(2).rev() {
        let (parent, child) = (pair[0], pair[1]);
        let mover = child.mover;
        played.insert(mover, Move(tree.mv(child.node)));
        if parent.chance {
            continue;
        }
        let Expansion::Expanded { first, count } = tree.expansion(parent.node) else { continue };
        let one = Stats::one_playout(outcome.half_points(mover));
        let played = &*played;
        let credit = |_, mv| one * played.bit(mover, Move(mv));
        if T::SHARED && parent.batched && parent.node == NodeId::ROOT {
            root_pending.resize(count as usize, 0);
            for (i, pending) in root_pending.iter_mut().enumerate() {
                *pending += credit(i, tree.mv(NodeId(first.0 + i as u32)));
            }
        } else {
            tree.add_amaf(first, count, credit);
        }
    }
}

#[cfg(test)]
mod implicit_minimax_tests {
    use super::*;
    use crate::evaluator::{afterstate_value, NTupleNetwork};
    use crate::games::random_below;
    use crate::games::{Game, Othello};
    use crate::search::iteration::worker_rng;
    use crate::search::{Evaluation, Mode, Search, SearchConfig};
    use crate::tree::Arena;

    /// Walks the tree under `node` (position `state`, entered by `mover`) and checks each
    /// node's implicit minimax value: a child never visited keeps the evaluator's value of
    /// its position (or the exact result), an expanded node the best of its children's.
    fn check_values(arena: &mut Arena, node: NodeId, state: &Othello, mover: Player, network: &NTupleNetwork) -> f32 {
        let value = arena.value_plain(node);
        let mut tree = crate::tree::ExclusiveTree::<false>(arena);
        match tree.expansion(node) {
            Expansion::Expanded { first, count } if count > 0 => {
                let mut best = f32::NEG_INFINITY;
                for i in 0..count {
                    let child = NodeId(first.0 + i);
                    let mut after = *state;
                    after.play_unchecked(Move(tree.mv(child)));
                    best = best.max(check_values(tree.0, child, &after, state.side_to_move(), network));
                    tree = crate::tree::ExclusiveTree::<false>(arena);
                }
                // Othello alternates: a pass is the passing player's move.
                assert_eq!(
                    value,
                    1.0 - best,
                    "node {} is not the minimax of its children ({count}, first {})",
                    node.0,
                    first.0
                );
            }
            _ => {
                let expected = afterstate_value(state, mover, |g| network.value(g));
                assert!((value - expected).abs() < 1e-6, "leaf {}: {value}, expected {expected}", node.0);
            }
        }
        value
    }

    #[test]
    fn a_sequential_search_leaves_every_value_the_minimax_of_the_evaluator_below_it() {
        let network = NTupleNetwork::shipped::<Othello>().expect("Othello ships a network").unwrap();
        // Late in a game, so that some iterations reach finished games.
        let mut root = Othello::new();
        let mut rng = worker_rng(3, 0);
        for _ in 0..44 {
            let moves = root.legal_moves();
            root.play_unchecked(moves[random_below(&mut rng, moves.len() as u32) as usize]);
        }
        assert!(root.outcome().is_none());
        let config = SearchConfig::builder()
            .playouts(3000)
            .mode(Mode::Sequential)
            .eval(Evaluation::Shipped)
            .implicit(0.5)
            .build()
            .unwrap();
        let mut search = Search::new(config).unwrap();
        let result = search.run(&root).unwrap();
        assert_eq!(result.playouts, 3000);
        search.check_invariants().unwrap();
        let mover = root.side_to_move().other();
        let root_value = check_values(&mut search.arenas[0], NodeId::ROOT, &root, mover, &network);
        assert!(root_value > 0.0 && root_value < 1.0, "the root's value {root_value}");
    }
}
