//! Move and position notation: square names and Edax's OBF boards.

use super::Othello;
use crate::games::{GameError, Player};

/// `a1`…`h8` for a square index below 64.
pub(super) fn square_name(sq: u16) -> String {
    format!("{}{}", (b'a' + (sq % 8) as u8) as char, sq / 8 + 1)
}

/// True when `token` is mostly board characters, so it is read as an OBF board rather
/// than as moves (move text never uses `X`, `O`, `-`, `.` or `*`).
pub(super) fn looks_like_board(token: &str) -> bool {
    let board = token.chars().filter(|c| "XOxo-.*".contains(*c)).count();
    2 * board > token.chars().count()
}

/// Reads an OBF board (the text before any `;`): 64 squares, then the side to move.
pub(super) fn parse_obf(head: &str) -> Result<Othello, GameError> {
    let bad = |why: String| GameError::BadPosition(why);
    let mut parts = head.split_whitespace();
    let mut board = parts.next().unwrap_or_default();
    // The side to move may follow the 64 squares with no space (65 characters).
    let glued_side = match board.char_indices().nth(64) {
        Some((at, side)) if board.chars().count() == 65 && "XOxo*".contains(side) && parts.clone().next().is_none() => {
            let side = &board[at..];
            board = &board[..at];
            Some(side)
        }
        _ => None,
    };
    let len = board.chars().count();
    if len != 64 {
        return Err(bad(format!("the board has {len} squares, expected 64")));
    }
    let (mut black, mut white) = (0u64, 0u64);
    for (i, c) in board.chars().enumerate() {
        match c {
            'X' | 'x' | '*' => black |= 1 << i,
            'O' | 'o' => white |= 1 << i,
            '-' | '.' => {}
            _ => {
                return Err(bad(format!(
                    "bad character '{c}' at square {} (expected X, O or -)",
                    square_name(i as u16)
                )))
            }
        }
    }
    let to_move = match glued_side.or_else(|| parts.next()) {
        Some("X" | "x" | "*") => Player::One,
        Some("O" | "o") => Player::Two,
        Some(other) => return Err(bad(format!("bad side to move '{other}' (expected X or O)"))),
        None => return Err(bad("missing the side to move (X or O) after the board".into())),
    };
    if let Some(extra) = parts.next() {
        return Err(bad(format!("unexpected '{extra}' after the side to move")));
    }
    Othello::from_bitboards(black, white, to_move)
}
