//! Nim with one heap, written once for the tests that embed a game of their own: players
//! take 1 to 3 stones in turn, and whoever takes the last stone wins. It implements only
//! the required items of `Game`, and the empty impls `Playouts`, `Tuning`, `Endgame` and
//! `NTupleBoard`: every playout hook, tuning constant and solver hook keeps its neutral
//! default.

use parmcts::{Endgame, Game, GameError, Move, MoveList, NTupleBoard, Outcome, Player, Playouts, Tuning};

/// A Nim position: stones left and the side to move.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Nim {
    /// Stones left.
    pub stones: u8,
    /// The side to move.
    pub to_move: Player,
}

impl Game for Nim {
    const NAME: &'static str = "nim";
    // At most three moves: a fixed-capacity list, no allocation.
    type Moves = MoveList<3>;

    fn new() -> Self {
        Nim { stones: 21, to_move: Player::One }
    }

    fn side_to_move(&self) -> Player {
        self.to_move
    }

    fn outcome(&self) -> Option<Outcome> {
        // The player who just moved took the last stone.
        (self.stones == 0).then(|| Outcome::Win(self.to_move.other()))
    }

    fn legal_moves(&self) -> MoveList<3> {
        (1..=self.stones.min(3)).map(|take| Move(take as u16)).collect()
    }

    fn play_unchecked(&mut self, mv: Move) {
        self.stones -= mv.0 as u8;
        self.to_move = self.to_move.other();
    }

    fn hash(&self) -> u64 {
        (self.stones as u64) << 1 | self.to_move.index() as u64
    }

    fn parse_move(&self, text: &str) -> Result<Move, GameError> {
        match text.parse::<u16>() {
            Ok(take @ 1..=3) => Ok(Move(take)),
            _ => Err(GameError::BadMove(format!("{text} (take 1, 2 or 3)"))),
        }
    }

    fn format_move(&self, mv: Move) -> String {
        format!("take {}", mv.0)
    }
}

// The default playouts (uniform random), tuning (C = sqrt(2), one playout in flight) and
// board (none: no n-tuple network).
impl Playouts for Nim {}
impl Tuning for Nim {}
impl Endgame for Nim {}
impl NTupleBoard for Nim {}

/// Nim with `stones` left, the first player to move.
pub fn heap(stones: u8) -> Nim {
    Nim { stones, to_move: Player::One }
}
