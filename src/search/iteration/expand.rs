//! Expansion: a claimed node's children built and published, with their priors and,
//! for implicit minimax, their evaluator values.

use rand_core::RngCore;

use crate::evaluator::{afterstate_value, Evaluator};
use crate::games::{random_below, Move, PlayoutPolicy, SearchGame, Turn};
use crate::tree::{NodeId, TreeOps};

use crate::search::params::{ChildLayout, Priors};

/// The most moves a node's priors are computed for (more: no priors for that node): a
/// 19x19 board's points and the pass.
const MAX_PRIOR_MOVES: usize = 19 * 19 + 1;

/// What [`expand`] did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Expanded {
    /// The children are published.
    Children,
    /// The position is over: published as a leaf with no children.
    Leaf,
    /// No room in the arena: published as a leaf with no children.
    ArenaFull,
}

/// Builds and publishes the children of a node this thread has claimed.
///
/// With `shuffle`, the children are laid out in a random order: selection then takes the
/// first unvisited child and breaks exact UCB ties by position, which is the same as a
/// uniformly random choice but stops scanning early and needs no generator call per
/// selection (measured on Connect Four: half the branch misses of a reservoir draw). Root
/// children stay in move-generation order, so the trees of a root-parallel search line up
/// (with progressive widening, one fixed shuffle breaks ties among equal priors there).
///
/// With `layout.prune`, only the moves [`Playouts::prune_moves`](crate::games::Playouts::prune_moves) keeps get children. With `priors`,
/// each child stores its move's share of the summed strengths, `P(m) = f(m) / Σ f`, for
/// progressive bias: `f` is [`Playouts::action_value`](crate::games::Playouts::action_value), or the learned gamma of the move's
/// feature when `priors` holds gammas. With `layout.by_prior` too, the children are laid
/// out strongest first (ties in the order above), for progressive widening.
///
/// With `implicit` (implicit minimax backups), each child gets the evaluator's value of
/// its position for its mover; `node`'s own value follows at the iteration's backup
/// ([`super::backup::back_up_values`], which stops where a value does not change: set here, it would
/// stop there before the ancestors see it).
pub(crate) fn expand<G: SearchGame, T: TreeOps, R: RngCore>(
    tree: &mut T,
    node: NodeId,
    state: &G,
    shuffle: Option<&mut R>,
    priors: Option<Priors<'_, G>>,
    implicit: Option<&dyn Evaluator<G>>,
    layout: ChildLayout,
) -> Expanded {
    let mut moves = state.legal_moves();
    let moves = moves.as_mut();
    // Pruned moves get no child at all (win-first / block-first).
    let moves = if layout.prune && !moves.is_empty() {
        let kept = state.prune_moves(moves);
        &mut moves[..kept]
    } else {
        moves
    };
    if let Some(rng) = shuffle {
        for i in (1..moves.len()).rev() {
            moves.swap(i, random_below(rng, i as u32 + 1) as usize);
        }
    }
    let count = moves.len() as u32;
    if count == 0 {
        tree.publish(node, NodeId(0), 0);
        return Expanded::Leaf;
    }
    match tree.alloc(count) {
        Some(first) => {
            if let (Some(evaluator), Turn::Player(to_move)) = (implicit, state.turn()) {
                for (i, &mv) in moves.iter().enumerate() {
                    let mut after = state.clone();
                    after.play_unchecked(mv);
                    tree.set_value(
                        NodeId(first.0 + i as u32),
                        afterstate_value(&after, to_move, |g| evaluator.value(g)),
                    );
                }
            }
            let Some(priors) = priors.filter(|_| moves.len() <= MAX_PRIOR_MOVES) else {
                for (i, &mv) in moves.iter().enumerate() {
                    tree.init_child(NodeId(first.0 + i as u32), mv.0, 0);
                }
                tree.publish(node, first, count);
                return Expanded::Children;
            };
            // Unnormalised priors, on the stack (no allocation on the search's path).
            let mut weights = [0.0f32; MAX_PRIOR_MOVES];
            let weights = &mut weights[..moves.len()];
            prior_weights(state, moves, priors, weights);
            init_children_with_priors(tree, first, moves, weights, layout.by_prior);
            tree.publish(node, first, count);
            Expanded::Children
        }
        None => {
            // This node stays a leaf; the search goes on from the leaves.
            tree.publish(node, NodeId(0), 0);
            Expanded::ArenaFull
        }
    }
}

/// Initialises the children from `first` with `moves` and their shares of the summed
/// `weights` (in units of 1/65535; none where the sum is not a positive number): in
/// `moves`' order, or with `by_prior` strongest first.
fn init_children_with_priors<T: TreeOps>(tree: &mut T, first: NodeId, moves: &[Move], weights: &[f32], by_prior: bool) {
    let total: f32 = weights.iter().sum();
    let share = |w: f32| if total > 0.0 && total.is_finite() { (w / total * 65535.0).round() as u16 } else { 0 };
    // Strongest first when asked; unstable (no allocation) with the index breaking ties,
    // so stable in effect.
    let mut order = [0u16; MAX_PRIOR_MOVES];
    let order = &mut order[..moves.len()];
    for (i, slot) in order.iter_mut().enumerate() {
        *slot = i as u16;
    }
    if by_prior {
        order.sort_unstable_by(|&a, &b| weights[usize::from(b)].total_cmp(&weights[usize::from(a)]).then(a.cmp(&b)));
    }
    for (i, &k) in order.iter().enumerate() {
        let k = usize::from(k);
        tree.init_child(NodeId(first.0 + i as u32), moves[k].0, share(weights[k]));
    }
}

/// The unnormalised priors of `moves` (legal in `state`) from `priors`, into `weights`
/// (one per move; all zero: none).
fn prior_weights<G: SearchGame>(state: &G, moves: &[Move], priors: Priors<'_, G>, weights: &mut [f32]) {
    match priors {
        Priors::Strengths { gammas, critical } => {
            let strengths = PlayoutPolicy { gammas, ..PlayoutPolicy::default() };
            for (w, &m) in weights.iter_mut().zip(moves.iter()) {
                *w = strengths.strength(state, m).max(0.0);
            }
            if let Some((excesses, k)) = critical.and_then(|(table, k)| Some((table.excesses()?, k))) {
                for (w, &m) in weights.iter_mut().zip(moves.iter()) {
                    *w *= 1.0 + k * excesses.of(usize::from(m.0));
                }
            }
        }
        Priors::Evaluator(evaluator) => {
            if !evaluator.priors(state, moves, weights) {
                weights.fill(0.0);
            }
        }
        // The batch's moves are the legal moves in generation order; these may be pruned
        // and shuffled (a move it has no prior for gets none).
        Priors::Given { moves: given, priors } => {
            for (w, m) in weights.iter_mut().zip(moves.iter()) {
                *w = given.iter().position(|g| g == m).map_or(0.0, |k| priors[k]);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use rand_core::SeedableRng;
    use rand_xoshiro::Xoshiro256PlusPlus;

    use super::*;
    use crate::games::{Criticality, CriticalityTally, Game, Go9, Playouts};

    /// With criticality, each move's strength is multiplied by `1 + K·excess`: more for
    /// the capture's liberty than anywhere, not at all below the board's mean.
    #[test]
    fn criticality_weighs_the_strengths_by_the_excess_over_the_mean() {
        let mut game = Go9::new();
        game.play_sequence("C3 C2 D3 D2 E3 E2 pass B3 pass F3 pass C4 pass D4").unwrap();
        let table = Criticality::new(81);
        let mut tally = CriticalityTally::default();
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(5);
        for _ in 0..2048 {
            let mut playout = game.clone();
            let outcome = playout.biased_playout(&mut rng);
            tally.count(&playout, outcome, &table);
        }
        let moves = game.legal_moves();
        let moves = moves.as_ref();
        let weights = |critical| {
            let mut weights = vec![0.0; moves.len()];
            prior_weights(&game, moves, Priors::Strengths { gammas: None, critical }, &mut weights);
            weights
        };
        let (plain, weighed) = (weights(None), weights(Some((&table, 10.0))));
        let mean = (0..81).map(|point| table.of(point)).sum::<f32>() / 81.0;
        let (mut raised, mut kept) = (0, 0);
        for ((&m, &p), &w) in moves.iter().zip(&plain).zip(&weighed) {
            let expected = p * (1.0 + 10.0 * (table.of(usize::from(m.0)) - mean).max(0.0));
            assert!(
                (w - expected).abs() <= 1e-5 * expected.max(1.0),
                "{}: {w} against {expected}",
                game.format_move(m)
            );
            if w > p {
                raised += 1;
            } else {
                kept += 1;
            }
        }
        let e4 = moves.iter().position(|&m| game.format_move(m) == "E4").unwrap();
        let ratio = |i: usize| weighed[i] / plain[i];
        assert!((0..moves.len()).all(|i| ratio(i) <= ratio(e4)) && ratio(e4) > 1.3, "E4 times {}", ratio(e4));
        assert!(raised > 0 && kept > 0, "{raised} raised, {kept} kept");
    }
}
