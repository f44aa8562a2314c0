//! Othello over GTP: its [`GtpGame`] (the pass, the turn given through a forced pass,
//! the disc difference as the score).

use super::{Othello, PASS};
use crate::games::{Game, GameError, Move, Outcome, Player};
use crate::gtp::game::{colour_name, point, score_text, GtpGame};

impl GtpGame for Othello {
    const BOARD_SIZE: u32 = 8;
    const SGF_GAME: u32 = 2;

    /// Squares are numbered row by row from `a1` at the top left, as SGF counts them.
    fn sgf_point(&self, mv: Move) -> String {
        point(usize::from(mv.0 % 8), usize::from(mv.0 / 8))
    }

    fn pass() -> Option<Move> {
        Some(PASS)
    }

    /// Allowed when `player` is to move, or when the side to move has only a forced
    /// pass (the pass is played for it: controllers leave Othello's passes out).
    fn give_turn(&mut self, player: Player, text: &str) -> Result<(), GameError> {
        if self.side_to_move() != player && self.legal_moves().as_ref() == [PASS] {
            self.play_unchecked(PASS);
        }
        if self.side_to_move() == player {
            Ok(())
        } else {
            Err(GameError::IllegalMove(format!("{text} (not {}'s turn)", colour_name(player))))
        }
    }

    /// The disc difference; a finished game's empty squares go to the winner (the
    /// World Othello Federation's rule, as the exact solver counts).
    fn final_score(&self) -> String {
        let (black, white) = self.disc_counts();
        let mut margin = i64::from(black) - i64::from(white);
        let empties = 64 - i64::from(black + white);
        match self.outcome() {
            Some(Outcome::Win(Player::One)) => margin += empties,
            Some(Outcome::Win(Player::Two)) => margin -= empties,
            _ => {}
        }
        score_text(margin as f64)
    }

    /// Half the empty squares (rounded up): the side to move plays about every other one.
    fn moves_left(&self) -> u32 {
        let (black, white) = self.disc_counts();
        (64 - black - white).div_ceil(2)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn othello_gives_the_turn_through_a_forced_pass_only() {
        let mut game = Othello::new();
        assert!(game.give_turn(Player::Two, "d3").is_err());
        assert_eq!(game.side_to_move(), Player::One);
        // Black to move with no square but White has one (f8, flipping g8): White may play.
        let mut blocked = Othello::parse_position(&format!("{}-XO X", "O".repeat(61))).unwrap();
        assert_eq!(blocked.legal_moves().as_ref(), [PASS]);
        assert!(blocked.give_turn(Player::Two, "f8").is_ok());
        assert_eq!(blocked.side_to_move(), Player::Two);
    }
}
