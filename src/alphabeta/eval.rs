//! Heuristic evaluations for the depth cut-off of [`super::minimax`] and
//! [`super::AlphaBeta`].
//!
//! An evaluation scores a *non-terminal* position for the side to move, in "centipawn"
//! units far below [`WIN`]: finished games are scored exactly by the searches themselves
//! (`WIN - ply` for a win, `-WIN + ply` for a loss, `0` for a draw, `ply` counted from
//! the search root), so a proven result always outranks any heuristic.

use crate::games::othello::Othello;
use crate::games::{ConnectFour, Game, Player, TicTacToe};
use crate::solver::connect4::{playable_cells, winning_cells, CENTRE, EVEN_ROWS, ODD_ROWS};

/// The score of a win at the root; a win `ply` plies from the root scores `WIN - ply`.
pub const WIN: i32 = 1_000_000;

/// Every evaluation stays within `±EVAL_LIMIT`, far from the win scores.
pub const EVAL_LIMIT: i32 = WIN / 2;

/// A game with a heuristic evaluation for depth-limited search.
pub trait Evaluate: Game {
    /// Heuristic value of this non-terminal position for the side to move (positive:
    /// good for it), within `±EVAL_LIMIT`. Called only at the depth cut-off.
    fn evaluate(&self) -> i32;
}

/// Tic-tac-toe: the line-count heuristic. The search usually reaches the end of the game
/// (9 plies at most), so this only matters for shallow depths.
///
/// For each of the 8 lines that holds marks of only one player, that player gains `10`
/// for one mark and `100` for two (the side to move's gains count positive, the
/// opponent's negative; empty and blocked lines count 0). Two marks in an open line for the side to move mean a win next move,
/// hence the large weight.
impl Evaluate for TicTacToe {
    fn evaluate(&self) -> i32 {
        const LINES: [[usize; 3]; 8] =
            [[0, 1, 2], [3, 4, 5], [6, 7, 8], [0, 3, 6], [1, 4, 7], [2, 5, 8], [0, 4, 8], [2, 4, 6]];
        const WEIGHT: [i32; 3] = [0, 10, 100];
        let me = self.side_to_move();
        let mut score = 0;
        for line in LINES {
            let mine = line.iter().filter(|&&c| self.cell(c) == Some(me)).count();
            let theirs = line.iter().filter(|&&c| self.cell(c) == Some(me.other())).count();
            match (mine, theirs) {
                (0, 0) => {}
                (m, 0) if m < 3 => score += WEIGHT[m],
                (0, t) if t < 3 => score -= WEIGHT[t],
                _ => {}
            }
        }
        score
    }
}

/// Connect Four: threat cells, weighted by row parity, plus centre control.
///
/// * **Immediate win.** If the side to move has a *playable* threat cell it wins next
///   move: `EVAL_LIMIT / 2`.
/// * **Threats.** A threat cell is an empty cell that would complete four for its owner.
///   Each scores `4` for its owner when it lies on the owner's good parity (rows 1, 3, 5
///   counted from the bottom for the first player, rows 2, 4, 6 for the second: in
///   zugzwang endings each player gets to fill the cells of its own parity), else `2`.
/// * **Centre.** Each disc in the centre column (it takes part in the most lines): `1`.
///
/// The value is the side to move's total minus the opponent's.
impl Evaluate for ConnectFour {
    fn evaluate(&self) -> i32 {
        let mask = self.all_stones();
        let me = self.current_stones();
        let opp = me ^ mask;
        let my_threats = winning_cells(me, mask);
        if my_threats & playable_cells(mask) != 0 {
            return EVAL_LIMIT / 2;
        }
        let (my_rows, their_rows) =
            if self.side_to_move() == Player::One { (ODD_ROWS, EVEN_ROWS) } else { (EVEN_ROWS, ODD_ROWS) };
        let weigh = |threats: u64, good_rows: u64| {
            4 * (threats & good_rows).count_ones() as i32 + 2 * (threats & !good_rows).count_ones() as i32
        };
        let threats = weigh(my_threats, my_rows) - weigh(winning_cells(opp, mask), their_rows);
        let centre = (me & CENTRE).count_ones() as i32 - (opp & CENTRE).count_ones() as i32;
        threats + centre
    }
}

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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn evaluations_are_symmetric_at_the_start() {
        assert_eq!(TicTacToe::new().evaluate(), 0);
        assert_eq!(ConnectFour::new().evaluate(), 0);
        assert_eq!(Othello::new().evaluate(), 0);
    }

    #[test]
    fn evaluations_see_obvious_advantages() {
        // X has two in the top row, O to move: bad for O.
        assert!(TicTacToe::parse_position("142").unwrap().evaluate() < 0);
        // The side to move has a playable threat (three in the bottom row, open end).
        assert_eq!(ConnectFour::parse_position("112233").unwrap().evaluate(), EVAL_LIMIT / 2);
        // White to move after Black took a corner-adjacent swing: just bounded.
        let o = Othello::parse_position("f5d6c3d3c4").unwrap();
        assert!(o.evaluate().abs() < EVAL_LIMIT);
    }
}
