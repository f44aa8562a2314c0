//! Game records in SGF (Smart Game Format, `FF[4]`, <https://www.red-bean.com/sgf/>), the
//! format every Go viewer and GUI opens (Sabaki, GoGui, q5Go, CGoban): one game per
//! record, with the board size, komi, rules, players, result and moves.
//!
//! A record is written by replaying the game's moves on the game's own rules, so a record
//! holds only legal moves and its result by the rules is the score of the position
//! reached. Games that GTP plays ([`GtpGame`]) name their SGF game number and points.

use std::fmt::Write as _;

use crate::games::hex::{Hex11, Hex13, Hex19, Hex9};
use crate::games::{GameError, GameKind, Go13, Go19, Go9, Othello, Player};

use super::game::GtpGame;

/// How a recorded game was decided.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Decision<'a> {
    /// By the rules: the score of the final position (SGF `RE[B+3.5]`, `RE[0]` for a draw).
    Rules,
    /// The loser resigned (`RE[W+R]`).
    Resignation {
        /// The side that won.
        winner: Player,
    },
    /// The loser forfeited (`RE[B+F]`); `reason` becomes the last move's comment.
    Forfeit {
        /// The side that won.
        winner: Player,
        /// What the loser did wrong.
        reason: &'a str,
    },
}

/// One finished game to write.
#[derive(Clone, Copy, Debug)]
pub struct GameToRecord<'a> {
    /// The players' names: Black's (the first player's), then White's.
    pub players: [&'a str; 2],
    /// Every move from the start position, in the game's notation (a final `resign` is
    /// not a move and is left out).
    pub moves: &'a [String],
    /// How the game was decided.
    pub decision: Decision<'a>,
    /// A comment for the root node (the match and game index, say), if any.
    pub comment: Option<&'a str>,
}

/// SGF's escaping of a text value: `\` and `]` are escaped.
fn escape(text: &str) -> String {
    text.replace('\\', "\\\\").replace(']', "\\]")
}

/// The letters of SGF point coordinates: column `col` and row `row` counted from the
/// top-left corner, both 0-based (`aa` is the top-left point).
pub fn point(col: usize, row: usize) -> String {
    let letter = |i: usize| char::from(b'a' + i as u8);
    format!("{}{}", letter(col), letter(row))
}

/// The SGF record of `game`, played from `start`.
///
/// # Errors
/// [`GameError`] when a move does not parse or is illegal (the record would be wrong).
pub fn write_record<G: GtpGame>(start: &G, game: &GameToRecord<'_>) -> Result<String, GameError> {
    let mut position = start.clone();
    let mut body = String::new();
    for text in game.moves.iter().filter(|m| !m.eq_ignore_ascii_case("resign")) {
        let mv = position.parse_move(text)?;
        let colour = match position.side_to_move() {
            Player::One => 'B',
            Player::Two => 'W',
        };
        let point = if G::pass() == Some(mv) { String::new() } else { position.sgf_point(mv) };
        position.try_play(mv)?;
        let _ = write!(body, ";{colour}[{point}]");
    }
    let colour = |p: Player| if p == Player::One { 'B' } else { 'W' };
    let result = match game.decision {
        Decision::Rules => position.final_score(),
        Decision::Resignation { winner } => format!("{}+R", colour(winner)),
        Decision::Forfeit { winner, reason } => {
            let _ = write!(body, "C[{}]", escape(&format!("forfeit: {reason}")));
            format!("{}+F", colour(winner))
        }
    };
    let mut root =
        format!("(;FF[4]CA[UTF-8]GM[{}]AP[parmcts:{}]SZ[{}]", G::SGF_GAME, env!("CARGO_PKG_VERSION"), G::BOARD_SIZE);
    if position.komi() != 0.0 {
        let _ = write!(root, "KM[{}]", position.komi());
    }
    if let Some(rules) = G::SGF_RULES {
        let _ = write!(root, "RU[{rules}]");
    }
    let _ = write!(root, "PB[{}]PW[{}]RE[{result}]", escape(game.players[0]), escape(game.players[1]));
    if let Some(comment) = game.comment {
        let _ = write!(root, "C[{}]", escape(comment));
    }
    Ok(format!("{root}\n{body})\n"))
}

/// A writer of records from a game's start position ([`writer_for`]).
pub type RecordWriter = fn(&GameToRecord<'_>) -> Result<String, GameError>;

/// The record writer of the game `kind` names, or `None` for a game SGF has no form for.
pub fn writer_for(kind: GameKind) -> Option<RecordWriter> {
    fn from_start<G: GtpGame>(game: &GameToRecord<'_>) -> Result<String, GameError> {
        write_record(&G::new(), game)
    }
    match kind {
        GameKind::Go => Some(from_start::<Go9>),
        GameKind::Go13 => Some(from_start::<Go13>),
        GameKind::Go19 => Some(from_start::<Go19>),
        GameKind::Othello => Some(from_start::<Othello>),
        GameKind::Hex => Some(from_start::<Hex11>),
        GameKind::Hex9 => Some(from_start::<Hex9>),
        GameKind::Hex13 => Some(from_start::<Hex13>),
        GameKind::Hex19 => Some(from_start::<Hex19>),
        GameKind::TicTacToe | GameKind::ConnectFour | GameKind::Einstein => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::Game;

    fn moves(text: &[&str]) -> Vec<String> {
        text.iter().map(|m| m.to_string()).collect()
    }

    #[test]
    fn go_records_name_points_from_the_top_left() {
        let played = moves(&["A1", "J9", "pass", "E5", "resign"]);
        let game = GameToRecord {
            players: ["parmcts", "gnu]go"],
            moves: &played,
            decision: Decision::Resignation { winner: Player::Two },
            comment: None,
        };
        let sgf = write_record(&Go9::new(), &game).unwrap();
        assert_eq!(
            sgf,
            format!(
                "(;FF[4]CA[UTF-8]GM[1]AP[parmcts:{}]SZ[9]KM[7]RU[Tromp-Taylor]PB[parmcts]PW[gnu\\]go]RE[W+R]\n\
                 ;B[ai];W[ia];B[];W[ee])\n",
                env!("CARGO_PKG_VERSION")
            )
        );
    }

    #[test]
    fn results_by_the_rules_are_the_final_score() {
        let game = GameToRecord {
            players: ["a", "b"],
            moves: &moves(&["pass", "pass"]),
            decision: Decision::Rules,
            comment: Some("game 3"),
        };
        let sgf = write_record(&Go9::new(), &game).unwrap();
        assert!(sgf.contains("RE[W+7]C[game 3]"), "{sgf}");
        // Othello: GM 2, no komi, a1 at the top left; a forfeit's reason on the last move.
        let game = GameToRecord {
            players: ["a", "b"],
            moves: &moves(&["f5", "d6"]),
            decision: Decision::Forfeit { winner: Player::One, reason: "illegal move 'a1'" },
            comment: None,
        };
        let sgf = write_record(&Othello::new(), &game).unwrap();
        assert!(sgf.contains("GM[2]") && !sgf.contains("KM[") && sgf.contains("RE[B+F]"), "{sgf}");
        assert!(sgf.ends_with(";B[fe];W[df]C[forfeit: illegal move 'a1'])\n"), "{sgf}");
    }

    #[test]
    fn hex_records_count_rows_from_the_top() {
        let game = GameToRecord {
            players: ["a", "b"],
            moves: &moves(&["a1", "k11"]),
            decision: Decision::Rules,
            comment: None,
        };
        let sgf = write_record(&Hex11::new(), &game).unwrap();
        assert!(sgf.contains("GM[11]") && sgf.contains("SZ[11]") && sgf.ends_with(";B[aa];W[kk])\n"), "{sgf}");
        assert!(writer_for(GameKind::Hex).is_some() && writer_for(GameKind::ConnectFour).is_none());
    }

    #[test]
    fn illegal_moves_are_refused() {
        let game = GameToRecord {
            players: ["a", "b"],
            moves: &moves(&["E5", "E5"]),
            decision: Decision::Rules,
            comment: None,
        };
        assert!(write_record(&Go9::new(), &game).is_err());
    }
}
