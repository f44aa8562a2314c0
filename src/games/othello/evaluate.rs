//! Othello's heuristic evaluation for alpha-beta ([`Evaluate`]).

use super::Othello;
use crate::games::evaluate::Evaluate;
use crate::games::{Game, Player};

/// Square weights for Othello (a1 first, rank by rank), the classic table of
/// Rosenbloom's IAGO lineage as popularised in Norvig's PAIP: corners high, the
/// X-squares and C-squares next to empty corners negative, edges mildly positive.
const SQUARE_WEIGHTS: [i32; 64] = [
    100, -20, 10, 5, 5, 10, -20, 100, //
    -20, -50, -2, -2, -2, -2, -50, -20, //
    10, -2, -1, -1, -1, -1, -2, 10, //
    5, -2, -1, -1, -1, -1, -2, 5, //
    5, -2, -1, -1, -1, -1, -2, 5, //
    10, -2, -1, -1, -1, -1, -2, 10, //
    -20, -50, -2, -2, -2, -2, -50, -20, //
    100, -20, 10, 5, 5, 10, -20, 100, //
];

/// The four corners a1, h1, a8, h8.
const CORNERS: u64 = 1 | 1 << 7 | 1 << 56 | 1 << 63;

/// Othello: mobility, corners and a square-weight table, each as (side to move) minus
/// (opponent).
///
/// * **Mobility** `10 × (my legal squares − the opponent's legal squares)`: the
///   opponent's count is that of the same discs with the other side to move. Having
///   more choices (and leaving the opponent fewer) is the strongest midgame signal.
/// * **Corners** `50 × (my corners − the opponent's corners)`: a corner disc can never
///   be flipped and anchors stable edges.
/// * **Squares** `Σ SQUARE_WEIGHTS` over my discs minus over the opponent's (the table
///   above; corners count there too).
impl Evaluate for Othello {
    fn evaluate(&self) -> i32 {
        let mover = self.side_to_move();
        let (me, opp) = match mover {
            Player::One => (self.black(), self.white()),
            Player::Two => (self.white(), self.black()),
        };
        let my_moves = self.legal_mask().count_ones() as i32;
        let their_moves = match mover {
            Player::One => Othello::from_bitboards(me, opp, Player::Two),
            Player::Two => Othello::from_bitboards(opp, me, Player::One),
        }
        .map_or(0, |o| o.legal_mask().count_ones() as i32);
        let mobility = 10 * (my_moves - their_moves);
        let corners = 50 * ((me & CORNERS).count_ones() as i32 - (opp & CORNERS).count_ones() as i32);
        let squares = square_sum(me) - square_sum(opp);
        mobility + corners + squares
    }
}

/// The sum of [`SQUARE_WEIGHTS`] over the discs of `discs`.
fn square_sum(mut discs: u64) -> i32 {
    let mut sum = 0;
    while discs != 0 {
        sum += SQUARE_WEIGHTS[discs.trailing_zeros() as usize];
        discs &= discs - 1;
    }
    sum
}
