//! The square classes of the biased playouts (corner, C-square, A-square, ...) and the roulette wheels over their gammas.

use super::playout::ClassRoulette;
use crate::games::playout::integer_class_weights;
use crate::games::PlayoutPolicy;

/// The square classes as `(near, far)` edge distances (0 = on the edge), in
/// [`Playouts::move_features`](crate::games::Playouts::move_features) order: corner, C-square, A-square, B-square, X-square, then
/// the inner squares.
pub(super) const CLASSES: [(usize, usize); 10] =
    [(0, 0), (0, 1), (0, 2), (0, 3), (1, 1), (1, 2), (1, 3), (2, 2), (2, 3), (3, 3)];

/// Hand-set gammas of the classes, in [`CLASSES`] order.
pub(super) const HAND_SET_GAMMAS: [f32; 10] = [20.0, 0.6, 3.0, 2.5, 0.25, 1.0, 1.2, 2.0, 1.8, 1.0];

/// The class (index into [`CLASSES`]) of every square.
pub(super) const SQUARE_CLASS: [u8; 64] = {
    let mut table = [0u8; 64];
    let mut sq = 0;
    while sq < 64 {
        let (near, far) = edge_distances(sq);
        let mut class = 0;
        while !(CLASSES[class].0 == near && CLASSES[class].1 == far) {
            class += 1;
        }
        table[sq] = class as u8;
        sq += 1;
    }
    table
};

/// `(near, far)`: the square's distances to its nearest file edge and rank edge, sorted.
const fn edge_distances(sq: usize) -> (usize, usize) {
    let (file, rank) = (sq % 8, sq / 8);
    let f = if file < 4 { file } else { 7 - file };
    let r = if rank < 4 { rank } else { 7 - rank };
    if f < r {
        (f, r)
    } else {
        (r, f)
    }
}

/// The hand-set gammas in [`Playouts::move_features`](crate::games::Playouts::move_features) order (the baseline a weights file is
/// measured against).
pub fn hand_set_gammas() -> Vec<f32> {
    HAND_SET_GAMMAS.to_vec()
}

/// Gammas are multiples of 1/20: as integers the roulette wheel is exact.
pub(super) const WEIGHT_SCALE: u32 = 20;

/// The roulette wheel over the hand-set gammas, as integers (20 × each class's gamma).
pub(super) const HAND_SET_WHEEL: ClassRoulette = {
    let mut weights = [0u32; 10];
    let mut class = 0;
    while class < 10 {
        weights[class] = (HAND_SET_GAMMAS[class] * WEIGHT_SCALE as f32 + 0.5) as u32;
        class += 1;
    }
    ClassRoulette(weights)
};

/// The roulette wheel over per-class gammas, built once per playout (10 entries).
pub(super) fn learned_roulette(gammas: &[f32]) -> ClassRoulette {
    ClassRoulette(integer_class_weights(gammas))
}

/// The wheel of a biased policy: its learned gammas, else the hand-set ones; `None` for
/// uniform playouts.
pub(super) fn class_wheel(policy: &PlayoutPolicy) -> Option<ClassRoulette> {
    policy.biased.then(|| policy.gammas.map_or(HAND_SET_WHEEL, learned_roulette))
}

/// The squares of each class (index into [`CLASSES`]).
pub(super) static CLASS_SQUARES: [u64; 10] = {
    let mut masks = [0u64; 10];
    let mut sq = 0;
    while sq < 64 {
        masks[SQUARE_CLASS[sq] as usize] |= 1 << sq;
        sq += 1;
    }
    masks
};
