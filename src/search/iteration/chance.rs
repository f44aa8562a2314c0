//! Selection at a chance node: an outcome sampled by the game's weights, or walked in
//! proportion to them ([`ChanceSelection`](crate::search::ChanceSelection)).

use rand_core::RngCore;

use crate::games::{sample_weighted, Move, SearchGame};
use crate::tree::{NodeId, TreeOps};

use super::WalkMark;

/// At a chance node the child is drawn by the game's chance weights, not by UCB.
pub(super) fn sample_chance_child<G: SearchGame, T: TreeOps, R: RngCore>(
    tree: &mut T,
    state: &G,
    first: NodeId,
    count: u32,
    rng: &mut R,
) -> NodeId {
    let moves = state.legal_moves();
    let mv = sample_weighted(state, moves.as_ref(), rng);
    (0..count).map(|i| NodeId(first.0 + i)).find(|&c| tree.mv(c) == mv.0).unwrap_or(first)
}

/// At a chance node, walking the outcomes in proportion ([`crate::search::ChanceSelection::Walk`]): the
/// child furthest below its share of the walks, counting the walks in flight through it
/// (in its visits, the weight each, as virtual loss; WU-UCT's unobserved count over the
/// weight per walk; none on a tree without virtual loss). Two passes over the children
/// (totals, then deficits), so any number of outcomes is weighed; on a
/// shared tree a count may move between the passes, which only shifts one choice.
pub(super) fn walk_chance_child<G: SearchGame, T: TreeOps>(
    tree: &mut T,
    state: &G,
    first: NodeId,
    count: u32,
    in_flight: WalkMark,
) -> NodeId {
    let children = (0..count).map(|i| NodeId(first.0 + i));
    let walks_and_weight = |tree: &mut T, child: NodeId| {
        let walks = f64::from(tree.stats(child).visits) + f64::from(in_flight.apart(tree, child));
        (walks, f64::from(state.chance_weight(Move(tree.mv(child))).max(0.0)))
    };
    let (mut total_walks, mut total_weight) = (1.0, 0.0);
    for child in children.clone() {
        let (walks, weight) = walks_and_weight(tree, child);
        total_walks += walks;
        total_weight += weight;
    }
    if total_weight <= 0.0 || !total_weight.is_finite() {
        return first;
    }
    let mut best = (first, f64::NEG_INFINITY);
    for child in children {
        let (walks, weight) = walks_and_weight(tree, child);
        let deficit = weight / total_weight * total_walks - walks;
        if deficit > best.1 {
            best = (child, deficit);
        }
    }
    best.0
}

#[cfg(test)]
mod chance_walk_tests {
    use super::*;
    use crate::games::{Einstein, Game, Outcome, Player, Turn};
    use crate::search::{ChanceSelection, Mode, Search, SearchConfig};
    use crate::tree::{Arena, ExclusiveTree, Expansion};

    /// Walks the tree under `node` (position `state`) and checks every expanded chance
    /// node's children: each outcome's walks are within one of its share (EinStein's die
    /// is fair). Returns the chance nodes checked.
    fn check_shares(arena: &mut Arena, node: NodeId, state: &Einstein) -> u32 {
        let mut tree = ExclusiveTree::<false>(arena);
        let Expansion::Expanded { first, count } = tree.expansion(node) else { return 0 };
        let children: Vec<(NodeId, Move, u32)> =
            (0..count).map(|i| NodeId(first.0 + i)).map(|c| (c, Move(tree.mv(c)), tree.stats(c).visits)).collect();
        let mut checked = 0;
        if state.turn() == Turn::Chance && count > 0 {
            let walks: u32 = children.iter().map(|c| c.2).sum();
            let share = f64::from(walks) / f64::from(count);
            for &(_, mv, visits) in &children {
                let off = (f64::from(visits) - share).abs();
                assert!(off < 1.0, "outcome {} walked {visits} times of {walks}", state.format_move(mv));
            }
            checked += 1;
        }
        for (child, mv, _) in children {
            let mut after = *state;
            after.play_unchecked(mv);
            checked += check_shares(arena, child, &after);
        }
        checked
    }

    #[test]
    fn walked_chance_nodes_share_their_walks_by_the_weights() {
        let root = Einstein::new();
        let config = SearchConfig::builder()
            .playouts(20_000)
            .mode(Mode::Sequential)
            .expand_threshold(1)
            .chance(ChanceSelection::Walk)
            .build()
            .unwrap();
        let mut search = Search::new(config).unwrap();
        search.run(&root).unwrap();
        search.check_invariants().unwrap();
        let checked = check_shares(&mut search.arenas[0], NodeId::ROOT, &root);
        assert!(checked > 1000, "only {checked} chance nodes expanded");
    }

    /// The rule itself with unequal weights: after every walk, each outcome's count is
    /// within one of `p_i · N`.
    #[test]
    fn the_walk_follows_unequal_weights() {
        #[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
        struct Loaded;
        const WEIGHTS: [f32; 4] = [1.0, 2.0, 3.0, 6.0];
        impl Game for Loaded {
            const NAME: &'static str = "loaded";
            const HAS_CHANCE: bool = true;
            type Moves = crate::games::MoveList<4>;
            fn new() -> Self {
                Loaded
            }
            fn side_to_move(&self) -> Player {
                Player::One
            }
            fn turn(&self) -> Turn {
                Turn::Chance
            }
            fn outcome(&self) -> Option<Outcome> {
                None
            }
            fn legal_moves(&self) -> Self::Moves {
                (0..4).map(Move).collect()
            }
            fn chance_weight(&self, mv: Move) -> f32 {
                WEIGHTS[usize::from(mv.0)]
            }
            fn play_unchecked(&mut self, _mv: Move) {}
            fn hash(&self) -> u64 {
                0
            }
            fn parse_move(&self, text: &str) -> Result<Move, crate::games::GameError> {
                Err(crate::games::GameError::BadMove(text.to_string()))
            }
            fn format_move(&self, mv: Move) -> String {
                mv.0.to_string()
            }
        }
        impl crate::games::Playouts for Loaded {}
        impl crate::games::Tuning for Loaded {}
        impl crate::games::Endgame for Loaded {}
        impl crate::games::NTupleBoard for Loaded {}

        let mut arena = Arena::new(8).unwrap();
        let mut tree = ExclusiveTree::<false>(&mut arena);
        assert!(tree.try_claim(NodeId::ROOT));
        let first = tree.alloc(4).unwrap();
        for i in 0..4 {
            tree.init_child(NodeId(first.0 + i), i as u16, 0);
        }
        tree.publish(NodeId::ROOT, first, 4);
        let total: f32 = WEIGHTS.iter().sum();
        for n in 1..=1200u32 {
            let child = walk_chance_child(&mut tree, &Loaded, first, 4, WalkMark { weight: 0, unobserved: false });
            tree.record(child, 2, 0);
            for i in 0..4 {
                let visits = tree.stats(NodeId(first.0 + i)).visits;
                let share = f64::from(WEIGHTS[i as usize] / total) * f64::from(n);
                assert!((f64::from(visits) - share).abs() < 1.0, "walk {n}: outcome {i} has {visits}, share {share}");
            }
        }
    }
}
