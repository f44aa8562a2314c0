//! Move ordering of the solver's deep nodes: fastest-first keys after Edax, with the
//! shipped network's value added where many squares are empty.

use super::{final_score, play, CORNERS, EVAL_ORDER_WEIGHT, EVAL_SEARCH_EMPTIES};
use crate::evaluator::NTupleNetwork;
use crate::games::Othello;

/// The ordering key of the move `sq` that leads to the child `(child_me, child_opp)`
/// (the opponent to move), smaller first: fastest-first after Edax's
/// `move_evaluate_fast` (Richard Delorme): above all the opponent's mobility after the
/// move (corners counted twice; playing a corner earns half a move), then the mover's
/// stable discs around the corners, then the opponent's potential mobility (empty
/// squares next to the mover's discs).
#[inline]
pub(super) fn order_key(child_me: u64, child_opp: u64, sq: u32) -> i32 {
    let replies = Othello::legal_squares_of(child_me, child_opp);
    let corner_bonus = i32::from(CORNERS >> sq & 1 != 0);
    let mobility = 2 * (replies.count_ones() + (replies & CORNERS).count_ones()) as i32 - corner_bonus;
    let potential = potential_mobility(child_opp, !(child_me | child_opp)) as i32;
    (mobility << 12) - ((corner_stability(child_opp) as i32) << 7) + potential
}

/// The network's logit of a child (for the owner of `me`, the opponent of the node's
/// mover); when the node has [`EVAL_SEARCH_EMPTIES`] or more, the best of the child's
/// replies by one ply more (a finished game: its disc difference, far beyond any logit).
#[inline]
fn child_value(network: &NTupleNetwork, me: u64, opp: u64) -> f32 {
    let logit = |me, opp| network.logit(&Othello::from_sides(me, opp));
    if (!(me | opp)).count_ones() + 1 < EVAL_SEARCH_EMPTIES {
        return logit(me, opp);
    }
    let mut replies = Othello::legal_squares_of(me, opp);
    if replies == 0 {
        return if Othello::legal_squares_of(opp, me) == 0 { final_score(me, opp) as f32 } else { -logit(opp, me) };
    }
    let mut best = f32::NEG_INFINITY;
    while replies != 0 {
        let sq = replies.trailing_zeros();
        replies &= replies - 1;
        let (reply_me, reply_opp) = play(me, opp, sq, Othello::flips_of(me, opp, sq));
        best = best.max(-logit(reply_me, reply_opp));
    }
    best
}

/// The mover's discs that are stable by a simple corner rule: corners, and the edge
/// squares next to an own corner (Edax's `get_corner_stability`).
#[inline]
fn corner_stability(me: u64) -> u32 {
    let next_to_corners = (me & 0x0100_0000_0000_0001) << 1
        | (me & 0x8000_0000_0000_0080) >> 1
        | (me & 0x0000_0000_0000_0081) << 8
        | (me & 0x8100_0000_0000_0000) >> 8;
    ((next_to_corners | CORNERS) & me).count_ones()
}

/// The empty squares next to a disc of `discs` (the squares a side could one day play
/// against them): a cheap proxy for the future mobility of the side facing `discs`.
#[inline]
fn potential_mobility(discs: u64, empty: u64) -> u32 {
    const NOT_A: u64 = 0xFEFE_FEFE_FEFE_FEFE;
    const NOT_H: u64 = 0x7F7F_7F7F_7F7F_7F7F;
    let west = (discs >> 1) & NOT_H;
    let east = (discs << 1) & NOT_A;
    let row = discs | west | east;
    let around = west | east | row << 8 | row >> 8;
    (around & empty).count_ones()
}

/// The legal moves of a deep node with their flips and ordering keys (smaller first),
/// on the stack.
pub(super) struct MoveOrder {
    squares: [u32; 64],
    flips: [u64; 64],
    keys: [i32; 64],
    len: usize,
}

impl MoveOrder {
    #[inline]
    pub(super) fn new() -> MoveOrder {
        MoveOrder { squares: [0; 64], flips: [0; 64], keys: [0; 64], len: 0 }
    }

    /// Adds the legal square `sq` of the owner of `me`; the table's move `tt_best` comes
    /// first, the others by [`order_key`].
    #[inline]
    pub(super) fn push(&mut self, me: u64, opp: u64, sq: u32, tt_best: u32, network: Option<&NTupleNetwork>) {
        let flipped = Othello::flips_of(me, opp, sq);
        let key = if sq == tt_best {
            i32::MIN
        } else {
            let (child_me, child_opp) = play(me, opp, sq, flipped);
            let key = order_key(child_me, child_opp, sq);
            match network {
                Some(network) => key + (child_value(network, child_me, child_opp) * EVAL_ORDER_WEIGHT) as i32,
                None => key,
            }
        };
        let i = self.len;
        self.squares[i] = sq;
        self.flips[i] = flipped;
        self.keys[i] = key;
        self.len += 1;
    }

    /// Removes and returns the move with the smallest key (a selection sort done lazily:
    /// a cutoff after the first moves leaves the rest unsorted).
    #[inline]
    pub(super) fn pop_best(&mut self) -> Option<(u32, u64)> {
        if self.len == 0 {
            return None;
        }
        let mut best = 0;
        for i in 1..self.len {
            if self.keys[i] < self.keys[best] {
                best = i;
            }
        }
        let out = (self.squares[best], self.flips[best]);
        self.len -= 1;
        let last = self.len;
        self.squares[best] = self.squares[last];
        self.flips[best] = self.flips[last];
        self.keys[best] = self.keys[last];
        Some(out)
    }
}
