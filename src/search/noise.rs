//! Self-play's randomness: Dirichlet noise mixed into the root's priors before a search
//! (`noise`, `noise-frac`; Silver et al. 2017, AlphaGo Zero), and a move drawn by its
//! visits at a temperature after it (`temperature`).

use rand_core::SeedableRng;
use rand_distr::{Dirichlet, Distribution};
use rand_xoshiro::Xoshiro256PlusPlus;

use super::result::RootChild;
use crate::games::Move;
use crate::tree::{Arena, Expansion, NodeId, SharedTree, TreeOps};

/// Mixes Dirichlet(`alpha`) noise into each tree's root priors, `(1 - frac) P + frac η`
/// (the tree's draw from `seed` and its index), before any worker starts.
pub(crate) fn add_root_noise(arenas: &[Arena], alpha: f32, frac: f32, seed: u64) {
    for (index, arena) in arenas.iter().enumerate() {
        let Expansion::Expanded { first, count } = SharedTree(arena).expansion(NodeId::ROOT) else { continue };
        let Ok(dirichlet) = Dirichlet::new(&vec![f64::from(alpha); count as usize]) else { continue };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ (0xD1B5_4A32_D192_ED03 ^ index as u64));
        let noise: Vec<f64> = dirichlet.sample(&mut rng);
        for (i, eta) in noise.into_iter().enumerate() {
            let node = arena.node(NodeId(first.0 + i as u32));
            let prior = f64::from(node.prior()) / 65535.0;
            let mixed = (1.0 - f64::from(frac)) * prior + f64::from(frac) * eta;
            node.set_prior((mixed * 65535.0).round().clamp(0.0, 65535.0) as u16);
        }
    }
}

/// A root move drawn with probability ∝ visits^(1/`temperature`) (`seed` the search's),
/// or `None` when no move was visited.
pub(crate) fn draw_by_visits(children: &[RootChild], temperature: f32, seed: u64) -> Option<Move> {
    let most = children.iter().map(|c| c.visits).max().filter(|&v| v > 0)? as f64;
    // Relative to the most visited, so that a low temperature cannot overflow.
    let weights: Vec<f64> = children
        .iter()
        .map(|c| if c.visits == 0 { 0.0 } else { (c.visits as f64 / most).powf(1.0 / f64::from(temperature)) })
        .collect();
    let total: f64 = weights.iter().sum();
    let mut rng = Xoshiro256PlusPlus::seed_from_u64(seed ^ 0x7E3A_11F0_5EED_0001);
    let mut x = rand_core::RngCore::next_u64(&mut rng) as f64 / u64::MAX as f64 * total;
    for (child, w) in children.iter().zip(&weights) {
        if x < *w {
            return Some(child.mv);
        }
        x -= w;
    }
    children.iter().zip(&weights).rev().find(|(_, &w)| w > 0.0).map(|(c, _)| c.mv)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::tree::Proof;

    fn child(mv: u16, visits: u64) -> RootChild {
        RootChild { mv: Move(mv), visits, half_points: visits, proof: Proof::Unknown }
    }

    #[test]
    fn draws_follow_the_visits_at_the_temperature() {
        let children = [child(0, 900), child(1, 100), child(2, 0)];
        let count = |t: f32| (0..2000u64).filter(|&s| draw_by_visits(&children, t, s) == Some(Move(0))).count();
        // T = 1: 90 % the first move; a low temperature all but always; never the unvisited.
        let at_one = count(1.0);
        assert!((1700..1900).contains(&at_one), "{at_one}");
        assert!(count(0.1) > 1990);
        assert!((0..2000u64).all(|s| draw_by_visits(&children, 1.0, s) != Some(Move(2))));
        assert_eq!(draw_by_visits(&[child(0, 0)], 1.0, 1), None);
    }
}
