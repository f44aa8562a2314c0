//! The classes of a move on a variable board (win, block, gift, spoil, plain), the
//! win-first / block-first pruning over them and the roulette wheel of their action
//! values.

use rand_core::RngCore;

use crate::games::Move;

/// Win-first / block-first from the move classes, without playing anything: reorders
/// `moves` and their `classes` alike and returns how many come first. A winning move
/// alone; else the blocks; else the moves that do not give the opponent a winning cell;
/// else all.
#[inline]
pub(super) fn prune_classified(moves: &mut [Move], classes: &mut [MoveClass]) -> usize {
    let n = moves.len();
    if let Some(i) = classes.iter().position(|&c| c == MoveClass::Win) {
        moves.swap(0, i);
        classes.swap(0, i);
        return 1;
    }
    let any_block = classes.contains(&MoveClass::Block);
    let keep = |class: MoveClass| -> bool {
        if any_block {
            class == MoveClass::Block
        } else {
            class != MoveClass::Gift
        }
    };
    let mut kept = 0;
    for i in 0..n {
        if keep(classes[i]) {
            moves.swap(kept, i);
            classes.swap(kept, i);
            kept += 1;
        }
    }
    if kept == 0 {
        n
    } else {
        kept
    }
}

/// [`roulette_of_classes`] over `n` (1 to 12) plain moves, in closed form: the total is
/// `n` exactly, and taking 1 from the draw `x < n` again and again is exact (integers off
/// a float below 16), so the first move that takes it below 0 is the `floor(x)`th (the
/// last if rounding made `x` equal `n`).
#[inline(always)]
pub(super) fn plain_roulette<R: RngCore>(n: usize, rng: &mut R) -> usize {
    let x = (rng.next_u32() as f32 / 4_294_967_296.0) * n as f32;
    (x as usize).min(n - 1)
}

/// The index drawn by the trait's roulette wheel
/// ([`roulette_by`](crate::games::roulette_by)) over the action values
/// of `classes` (not empty), the same `f32` sums in the same order from one 32-bit draw:
/// the same move from the same generator state (tested), without a closure per move.
#[inline]
pub(super) fn roulette_of_classes<R: RngCore>(classes: &[MoveClass], rng: &mut R) -> usize {
    // Every value is positive and finite, so the total is too.
    let total = classes.iter().fold(0.0f32, |total, class| total + class.action_value());
    let mut x = (rng.next_u32() as f32 / 4_294_967_296.0) * total;
    for (i, class) in classes.iter().enumerate() {
        x -= class.action_value();
        if x < 0.0 {
            return i;
        }
    }
    // Rounding left a sliver past the last move: the last (every value is positive).
    classes.len() - 1
}

/// The classes of moves behind the action values and the pruning, strongest first.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord)]
pub(super) enum MoveClass {
    Win,
    Block,
    Gift,
    Spoil,
    Plain,
}

impl MoveClass {
    /// 20 x the action value (the weights of `games/connect4/` without its make-a-three class).
    pub(super) const fn weight(self) -> u32 {
        match self {
            MoveClass::Win => 20_000,
            MoveClass::Block => 2_000,
            MoveClass::Gift | MoveClass::Spoil => 1,
            MoveClass::Plain => 20,
        }
    }

    /// The action value ([`Playouts::action_value`](crate::games::Playouts::action_value)):
    /// the weight / 20.
    #[inline(always)]
    pub(super) fn action_value(self) -> f32 {
        const VALUES: [f32; 5] = {
            let classes = [MoveClass::Win, MoveClass::Block, MoveClass::Gift, MoveClass::Spoil, MoveClass::Plain];
            let mut values = [0.0; 5];
            let mut i = 0;
            while i < 5 {
                values[classes[i] as usize] = classes[i].weight() as f32 / 20.0;
                i += 1;
            }
            values
        };
        VALUES[self as usize]
    }
}
