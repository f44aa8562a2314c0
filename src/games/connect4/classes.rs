//! The playable cells of a Connect Four position sorted into the classes its biased
//! playouts weigh and its pruning keeps (win, block, gift, spoil, three, plain), all at
//! once from bitboards, and the roulette wheel that draws among them.

use rand_core::RngCore;

use super::{winning_cells, ConnectFour, BOARD, H1};
use crate::games::playout::integer_class_weights;
use crate::games::random_below;

/// The playable cells of a position sorted into the classes of
/// [`Playouts::action_value`](crate::games::Playouts::action_value), all at once from
/// bitboards. Disjoint; their union is the playable cells.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct CellClasses {
    /// Cells that win at once.
    wins: u64,
    /// Cells that block the opponent's immediate win.
    blocks: u64,
    /// Cells right below one of the opponent's winning cells (playing there lets the
    /// opponent win).
    gifts: u64,
    /// Cells right below one of the mover's own winning cells (playing there lets the
    /// opponent block it).
    spoils: u64,
    /// Cells that make a new three (a new cell that would complete four).
    threes: u64,
    /// The rest.
    plain: u64,
}

impl CellClasses {
    /// 20 x the action values, win to plain: integers, so the roulette wheel is exact.
    pub(super) const HAND_SET: ClassWheel = ClassWheel([20_000, 2_000, 1, 1, 40, 20]);

    pub(super) fn masks(&self) -> [u64; 6] {
        [self.wins, self.blocks, self.gifts, self.spoils, self.threes, self.plain]
    }

    /// 20 x the action value of `cell` (playable).
    pub(super) fn weight(&self, cell: u64) -> u32 {
        let class = self.masks().iter().position(|&mask| mask & cell != 0);
        class.map_or(0, |class| Self::HAND_SET.0[class])
    }

    /// The cells win-first / block-first pruning keeps: the lowest win; else the blocks
    /// (every other move loses at once); else the cells that do not make an opponent's
    /// winning cell playable; else all.
    #[inline]
    pub(super) fn pruned(&self) -> u64 {
        let safe = self.spoils | self.threes | self.plain;
        if self.wins != 0 {
            self.wins & self.wins.wrapping_neg()
        } else if self.blocks != 0 {
            self.blocks
        } else if safe != 0 {
            safe
        } else {
            self.gifts
        }
    }

    /// Draws one of the cells in `kept` (non-empty) with probability proportional to its
    /// class's weight: one number, a class by running totals of weight x count, then a
    /// uniform cell of that class.
    #[inline]
    pub(super) fn draw<W: ClassWeights, R: RngCore>(&self, kept: u64, wheel: &W, rng: &mut R) -> u64 {
        let masks = self.masks().map(|mask| mask & kept);
        let weights = wheel.weights();
        let total: u32 = masks.iter().zip(weights).map(|(m, w)| m.count_ones() * w).sum();
        let mut x = random_below(rng, total);
        for (mask, weight) in masks.into_iter().zip(weights) {
            let class_total = mask.count_ones() * weight;
            if x < class_total {
                return nth_cell(mask, x / weight);
            }
            x -= class_total;
        }
        unreachable!("the draw is below the total")
    }
}

/// The hand-set gammas in [`Playouts::move_features`](crate::games::Playouts::move_features)
/// order: the action values (the baseline a weights file is measured against).
pub fn hand_set_gammas() -> Vec<f32> {
    CellClasses::HAND_SET.0.iter().map(|&w| w as f32 / 20.0).collect()
}

/// The names of the cell classes ([`CellClasses::masks`]' order), the features of a
/// learned weights file.
pub(super) const CLASS_NAMES: [&str; 6] = ["win", "block", "gift", "spoil", "three", "plain"];

/// Integer weights of the cell classes ([`CellClasses::masks`]' order), so the roulette
/// wheel is exact.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) struct ClassWheel(pub(super) [u32; 6]);

impl ClassWheel {
    /// The wheel of learned gammas, one per class ([`integer_class_weights`]).
    pub(super) fn learned(gammas: &[f32]) -> ClassWheel {
        ClassWheel(integer_class_weights(gammas))
    }
}

/// The weights [`CellClasses::draw`] spins with: a [`ClassWheel`], or [`HandSet`], whose
/// weights are constants in the playout loop (its divisions by them become
/// multiplications: 2.5 % fewer instructions in a search than a wheel read from memory).
pub(super) trait ClassWeights {
    fn weights(&self) -> [u32; 6];
}

/// The hand-set weights ([`CellClasses::HAND_SET`]) as a type.
pub(super) struct HandSet;

impl ClassWeights for HandSet {
    #[inline(always)]
    fn weights(&self) -> [u32; 6] {
        CellClasses::HAND_SET.0
    }
}

impl ClassWeights for ClassWheel {
    #[inline(always)]
    fn weights(&self) -> [u32; 6] {
        self.0
    }
}

/// The `n`th set bit of `cells` (from the bottom), as a one-bit mask.
#[inline]
pub(super) fn nth_cell(mut cells: u64, n: u32) -> u64 {
    for _ in 0..n {
        cells &= cells - 1;
    }
    cells & cells.wrapping_neg()
}

/// The `open` cells that would make a new three for `stones`: every cell that shares a
/// line of four with two of `stones` and one other `open` cell, so that playing it makes
/// that other cell a winning one. With `open` the empty cells that are not winning cells
/// already, it is exactly the cells whose stone adds a winning cell. Bit-sliced over every
/// line of four at once: each direction aligns the four cells of every line on its lowest
/// bit and counts the stones with two half-adders.
#[inline]
pub(super) fn three_makers(stones: u64, open: u64) -> u64 {
    let mut makers = 0;
    for dir in [1, H1, H1 - 1, H1 + 1] {
        let s = [stones, stones >> dir, stones >> (2 * dir), stones >> (3 * dir)];
        let o = [open, open >> dir, open >> (2 * dir), open >> (3 * dir)];
        // Lines with no opponent stone, no sentinel and no cell off the board.
        let clear = (s[0] | o[0]) & (s[1] | o[1]) & (s[2] | o[2]) & (s[3] | o[3]);
        let (odd_low, both_low) = (s[0] ^ s[1], s[0] & s[1]);
        let (odd_high, both_high) = (s[2] ^ s[3], s[2] & s[3]);
        let two = (odd_low & odd_high & !(both_low | both_high)) | ((both_low ^ both_high) & !(odd_low | odd_high));
        let lines = clear & two;
        makers |=
            (lines & o[0]) | ((lines & o[1]) << dir) | ((lines & o[2]) << (2 * dir)) | ((lines & o[3]) << (3 * dir));
    }
    makers
}

impl ConnectFour {
    /// The playable cells by class (see [`CellClasses`]).
    #[inline]
    pub(super) fn cell_classes(&self) -> CellClasses {
        let my_cells = winning_cells(self.current, self.mask);
        let mut classes = self.threat_classes(my_cells);
        let open = (BOARD ^ self.mask) & !my_cells;
        classes.threes = classes.plain & three_makers(self.current, open);
        classes.plain &= !classes.threes;
        classes
    }

    /// The playable cells by the classes that come from winning cells alone (`my_cells`:
    /// the side to move's); no cell is counted a three-maker yet.
    #[inline]
    pub(super) fn threat_classes(&self, my_cells: u64) -> CellClasses {
        let playable = self.playable();
        let their_cells = winning_cells(self.current ^ self.mask, self.mask);
        let wins = playable & my_cells;
        let blocks = playable & their_cells & !wins;
        // The opponent's winning cells do not depend on the cell below being filled.
        let gifts = playable & (their_cells >> 1) & !(wins | blocks);
        let spoils = playable & (my_cells >> 1) & !(wins | blocks | gifts);
        let plain = playable & !(wins | blocks | gifts | spoils);
        CellClasses { wins, blocks, gifts, spoils, threes: 0, plain }
    }

    /// [`Playouts::prune_moves`](crate::games::Playouts::prune_moves)'s rule on the
    /// playable cells ([`CellClasses::pruned`]), without the three-makers it does not need.
    #[inline]
    pub(super) fn pruned_cells(&self) -> u64 {
        self.threat_classes(winning_cells(self.current, self.mask)).pruned()
    }
}
