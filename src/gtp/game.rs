//! The seam between the engine and a game: [`GtpGame`], what GTP needs of a game beyond
//! the search's [`SearchGame`]. Its implementations sit beside their games
//! (`src/games/othello/gtp.rs`, `src/games/go/gtp.rs`, `src/games/hex/gtp.rs`).
//!
//! A game that GTP plays implements [`GtpGame`] and says `gtp` in its registry line
//! (`src/games/registry.rs`), from which `with_gtp_game!` lists the games GTP plays (the sessions and the SGF writers come from it).
//! Board sizes that are different types (Go's `Go<9>`, `Go<13>`, `Go<19>`) are one
//! implementation each: `boardsize` replaces the engine's session with the type of the
//! size asked for ([`sized`]).

use crate::games::{GameError, GameKind, Move, Player, SearchGame};

/// The letters of SGF point coordinates: column `col` and row `row` counted from the
/// top-left corner, both 0-based (`aa` is the top-left point), each `a`-`z` then `A`-`Z`
/// as `FF[4]` writes boards up to 52 (`?` past them).
pub fn point(col: usize, row: usize) -> String {
    const LETTERS: &[u8; 52] = b"abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
    let letter = |i: usize| LETTERS.get(i).map_or('?', |&b| char::from(b));
    format!("{}{}", letter(col), letter(row))
}

/// Evaluates to `Some($body)` with the type alias `$G` bound to the [`GtpGame`] type of
/// `$kind` (a [`GameKind`]), or to `None` for a game GTP does not play: the one list of
/// the games GTP plays.
macro_rules! with_gtp_game {
    ($kind:expr, $G:ident => $body:expr) => {{
        $crate::games::for_each_game!($crate::gtp::game::gtp_arms!($kind, $G, $body))
    }};
}

/// `with_gtp_game!`'s match, built from the registry's list (`games::for_each_game!`):
/// an arm for each game whose capabilities start with `gtp`.
macro_rules! gtp_arms {
    (($kind:expr, $G:ident, $body:expr) $($games:tt)*) => {
        $crate::gtp::game::gtp_arms!(@arms ($kind, $G, $body) [] $($games)*)
    };
    (@arms $ctx:tt [$($arms:tt)*] [$k:ident $m:ident $t:ident (gtp $($caps:ident)*)] $($games:tt)*) => {
        $crate::gtp::game::gtp_arms!(@arm $ctx [$($arms)*] $k $m $t $($games)*)
    };
    (@arms $ctx:tt $arms:tt [$k:ident $m:ident $t:ident ($($caps:ident)*)] $($games:tt)*) => {
        $crate::gtp::game::gtp_arms!(@arms $ctx $arms $($games)*)
    };
    (@arm ($kind:expr, $G:ident, $body:expr) [$($arms:tt)*] $k:ident $m:ident $t:ident $($games:tt)*) => {
        $crate::gtp::game::gtp_arms!(@arms ($kind, $G, $body) [$($arms)* $crate::games::GameKind::$k => {
            type $G = $crate::games::$m::$t;
            Some($body)
        }] $($games)*)
    };
    (@arms ($kind:expr, $G:ident, $body:expr) [$($arms:tt)*]) => {
        match $kind {
            $($arms)*
            _ => None,
        }
    };
}
pub(crate) use gtp_arms;
pub(crate) use with_gtp_game;

/// The game GTP plays on a `size` board in `kind`'s family (the same SGF game number):
/// `go` at 13 is `go13`; `None` for a size the family lacks or a game GTP does not play.
pub fn sized(kind: GameKind, size: u32) -> Option<GameKind> {
    let family = with_gtp_game!(kind, G => G::SGF_GAME)?;
    GameKind::ALL
        .iter()
        .copied()
        .find(|&k| with_gtp_game!(k, G => (G::SGF_GAME, G::BOARD_SIZE)) == Some((family, size)))
}

/// The stone groups `final_status_list` asks about.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum FinalStatus {
    /// Stones that stay on the board.
    Alive,
    /// Stones that would be removed at the end.
    Dead,
    /// Stones in seki.
    Seki,
}

impl FinalStatus {
    /// Parses `alive`, `dead` or `seki` (any case).
    pub fn parse(text: &str) -> Option<FinalStatus> {
        [("alive", FinalStatus::Alive), ("dead", FinalStatus::Dead), ("seki", FinalStatus::Seki)]
            .into_iter()
            .find(|(name, _)| text.eq_ignore_ascii_case(name))
            .map(|(_, status)| status)
    }
}

/// What GTP needs of a game beyond the search's: its board size, komi, moves by a named
/// colour, the pass, the score, and the phase of the game for the clock.
pub trait GtpGame: SearchGame {
    /// The board size that `boardsize` names this game type by (one type per size).
    const BOARD_SIZE: u32;

    /// The game's number in SGF's `GM` property (Go 1, Othello 2).
    const SGF_GAME: u32;

    /// The rules, as SGF's `RU` property names them, if the game has variants.
    const SGF_RULES: Option<&'static str> = None;

    /// The SGF point of `mv`, a move that is not the pass ([`super::sgf::point`]).
    fn sgf_point(&self, mv: Move) -> String;

    /// The komi (points added to White's score): 0 for games without one.
    fn komi(&self) -> f32 {
        0.0
    }

    /// Sets the komi. Games without komi ignore it; the command succeeds either way.
    fn set_komi(&mut self, _komi: f32) {}

    /// Turns the game's swap rule (pie rule) on or off where it has one (Hex), for
    /// GTP's `hex-swap-rule`: `false` for games without one (the default), which are
    /// left unchanged.
    fn set_swap_rule(&mut self, _on: bool) -> bool {
        false
    }

    /// The pass, if the game has one: what `genmove` answers when the player has nothing
    /// to play, and the `pass` of `play`.
    fn pass() -> Option<Move>;

    /// Makes `player` the side to move where the rules allow it: GTP may name a colour
    /// that is not to move. The default allows it only when `player` is already to move.
    ///
    /// # Errors
    /// [`GameError::IllegalMove`] (with `text`, the move asked for) when the rules do
    /// not let `player` move now.
    fn give_turn(&mut self, player: Player, text: &str) -> Result<(), GameError> {
        if self.side_to_move() == player {
            Ok(())
        } else {
            Err(GameError::IllegalMove(format!("{text} (not {}'s turn)", colour_name(player))))
        }
    }

    /// Plays `mv` for `player` (GTP's `play`): [`GtpGame::give_turn`], then the checked move.
    ///
    /// # Errors
    /// [`GameError::IllegalMove`] or [`GameError::GameOver`].
    fn play_as(&mut self, player: Player, mv: Move) -> Result<(), GameError> {
        self.give_turn(player, &self.format_move(mv))?;
        self.try_play(mv)
    }

    /// The score as GTP's `final_score` writes it: `B+12`, `W+3.5`, or `0` for a draw.
    fn final_score(&self) -> String;

    /// The points of the stones in `status`, for `final_status_list`. Default: none
    /// (games without dead stones).
    fn final_status_list(&self, _status: FinalStatus) -> Vec<Move> {
        Vec::new()
    }

    /// The points of `player`'s stones that [`GtpGame::final_status_list`] calls dead.
    /// Default: none.
    fn dead_stones_of(&self, _player: Player) -> Vec<Move> {
        Vec::new()
    }

    /// The moves the side to move still expects to play, for the clock
    /// ([`super::time::move_budget`]).
    fn moves_left(&self) -> u32;

    /// The points of `stones` handicap stones in the game's standard layout (GTP's
    /// `fixed_handicap`), or `None` where the game has no handicap or no layout for so
    /// many. Default: none.
    fn handicap_layout(_stones: u32) -> Option<Vec<Move>> {
        None
    }

    /// The ownership of each point (`kata-analyze ownership true`, GoGui's ownership
    /// map): each point's move and its value in [-1, 1], positive for the first player
    /// (Black), from the top-left point row by row. Default: none (games without
    /// territory).
    fn ownership(&self) -> Option<Vec<(Move, f32)>> {
        None
    }
}

pub use crate::harness::players::gtp_client::colour_name;

/// `B+n`, `W+n` or `0` from Black's margin (`B+3.5` for a half point).
pub fn score_text(black_margin: f64) -> String {
    match black_margin {
        0.0 => "0".to_string(),
        m if m > 0.0 => format!("B+{m}"),
        m => format!("W+{}", -m),
    }
}

/// Light playouts behind Go's `final_status_list` (`src/games/go/gtp.rs`): a share of 1/1000 decides only
/// stones whose fate is a coin toss (about 50 ms on 19x19).
pub const DEAD_STONE_PLAYOUTS: u32 = 1000;

/// Light playouts behind each ownership report of `kata-analyze` ([`GtpGame::ownership`]):
/// a few milliseconds on 19x19, once per reported line.
pub const OWNERSHIP_PLAYOUTS: u32 = 64;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::go::Go;
    use crate::games::othello::Othello;
    use crate::games::Game;

    #[test]
    fn scores_are_written_as_gtp_writes_them() {
        assert_eq!(score_text(0.0), "0");
        assert_eq!(score_text(12.0), "B+12");
        assert_eq!(score_text(-3.0), "W+3");
        assert_eq!(score_text(-6.5), "W+6.5");
        // The empty 9x9 board: White's komi.
        assert_eq!(Go::<9>::new().final_score(), "W+7");
        assert_eq!(Othello::new().final_score(), "0");
        assert_eq!(Othello::new().moves_left(), 30);
        // A finished game with empties: they go to the winner.
        let over = Othello::parse_position(&format!("{}{} X", "X".repeat(60), "----")).unwrap();
        assert_eq!(over.final_score(), "B+64");
    }
}
