//! Closing play: what a player may do once the opponent has passed.
//!
//! Tromp-Taylor counts the board as it stands, so a stone left for dead is counted alive
//! when the game ends, while an engine that passes with dead stones on the board (GNU Go
//! at its default) scores them off. Passing back is then right only once the opponent's
//! dead stones in one's own area are captured; and a stone thrown into the opponent's
//! area, or into one's own eye, gains nothing the opponent would concede. So after a pass
//! the player's moves are the liberties, inside its own area, of the opponent's stones
//! that are dead there; and the pass once there are none. A pass while much of the
//! board is open (an early pass) restricts nothing. Areas are judged by
//! Monte-Carlo ownership ([`Go::ownership`]) with a fixed seed, so the rule repeats: a
//! point is a player's when more playouts end with it theirs than the opponent's, as
//! [`Go::dead_stones`] judges.

use rand_core::SeedableRng;
use rand_xoshiro::Xoshiro256PlusPlus;

use super::Go;
use crate::games::{Game, Move, Player};

/// Heavy playouts behind a closing decision.
const CLOSING_PLAYOUTS: u32 = 1000;

/// The ownership (either way) from which an empty point counts as decided: three
/// playouts in four.
const SETTLED: f32 = 0.5;

impl<const N: usize> Go<N> {
    /// The moves open to the side to move right after the opponent's pass in a settled
    /// position (`None` at any other time: every move is open): the legal points in its
    /// own area next to the opponent's stones that are dead there; only the pass when
    /// there are none. Settled: at most one empty point in eight is contested (its
    /// ownership below 0.5 either way); an early pass leaves the game open.
    pub fn closing_moves(&self) -> Option<Vec<Move>> {
        if self.passes != 1 || self.outcome().is_some() {
            return None;
        }
        let me = self.side_to_move();
        let sign = if me == Player::One { 1.0 } else { -1.0 };
        let mut rng = Xoshiro256PlusPlus::seed_from_u64(0);
        let owned: Vec<f32> = self.ownership(CLOSING_PLAYOUTS, &mut rng).into_iter().map(|o| o * sign).collect();
        let empty = |point: usize| self.stone_at(Move(point as u16)).is_none();
        let contested = (0..N * N).filter(|&p| empty(p) && owned[p].abs() < SETTLED).count();
        if contested * 8 > N * N {
            return None;
        }
        let dead = |point: usize| owned[point] > 0.0 && self.stone_at(Move(point as u16)) == Some(me.other());
        let captures = (0..N * N).filter(|&p| owned[p] > 0.0 && empty(p) && neighbours::<N>(p).any(dead));
        let captures: Vec<Move> = captures.map(|p| Move(p as u16)).filter(|&mv| self.is_legal(mv)).collect();
        Some(if captures.is_empty() { vec![Self::PASS] } else { captures })
    }
}

/// The on-board neighbours of `point` (row by row from `A1`).
fn neighbours<const N: usize>(point: usize) -> impl Iterator<Item = usize> {
    let (row, col) = (point / N, point % N);
    [
        (row > 0).then(|| point - N),
        (row + 1 < N).then(|| point + N),
        (col > 0).then(|| point - 1),
        (col + 1 < N).then(|| point + 1),
    ]
    .into_iter()
    .flatten()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::go::Go9;

    /// GNU Go's self-play game of seed 4 in `tests/data/go/closing_positions.txt`, to its
    /// first closing pass: White's j8 is dead in Black's area.
    const SEED_4: &str = "e5 c4 e3 c7 g7 g3 c2 d5 e6 e8 f8 g5 d8 c8 e7 e4 f4 d4 g4 h4 f3 g2 g6 h5 f5 j8 b3 b4 h8 a3 j7 \
                          a2 c9 c3 b8 d2 e2 b7 d3 b2 d1 a8 b9 f2 d6 c6 h6 f1 j5 j3 e1 b1 c1 d7 d9 h2 j6 j4 e9 a7 a9 pass";

    #[test]
    fn after_a_pass_only_the_dead_stones_are_attacked() {
        let mut game = Go9::new();
        game.set_komi(7.0);
        game.play_sequence(SEED_4).unwrap();
        // Black to move, White passed: only the liberties of j8, inside Black's area.
        let j8 = game.parse_move("j8").unwrap();
        let mut plies = 0;
        while let Some(moves) = game.closing_moves().filter(|m| m != &[Go9::PASS]) {
            let names: Vec<String> = moves.iter().map(|&m| game.format_move(m)).collect();
            assert!(names.iter().all(|n| n == "J9" || n == "H9"), "{names:?}");
            game.play_unchecked(moves[0]);
            game.play_sequence("pass").unwrap();
            plies += 1;
            assert!(plies <= 2, "j8 has two liberties");
        }
        assert_eq!(game.stone_at(j8), None, "captured before the pass");
        game.play_sequence("pass").unwrap();
        assert_eq!(game.closing_moves(), None, "two passes end the game");
        let mut early = Go9::new();
        early.play_sequence("e5 pass").unwrap();
        assert_eq!(early.closing_moves(), None, "an early pass leaves the game open");
    }
}
