//! Why a GTP command failed: the message after `?`.

use std::fmt;

use super::protocol;
use crate::games::GameKind;
use crate::harness::players::PlayerError;

/// Why a command failed: the message after `?`.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum GtpError {
    /// Not a command of the engine.
    UnknownCommand(String),
    /// Missing or malformed arguments.
    Syntax(String),
    /// The move is not legal (or the colour cannot move now): the move and why, as
    /// `d3 (not white's turn)`.
    IllegalMove(String),
    /// `boardsize` with a size the game does not have.
    UnacceptableSize(u32),
    /// `undo` at the start of the game.
    CannotUndo,
    /// A line over [`protocol::MAX_LINE`] bytes.
    LineTooLong,
    /// A game that the engine cannot play over GTP.
    UnsupportedGame(GameKind),
    /// `hex-swap-rule` in a game without a swap rule.
    NoSwapRule,
    /// The search failed (or its memory could not be set up).
    Search(PlayerError),
    /// The resign threshold is not a win rate in `[0, 1)`.
    BadResign(f64),
    /// `loadsgf`: the file cannot be read, is not a record of this game, or has an
    /// illegal move.
    BadSgf(String),
    /// A handicap command that cannot be carried out, with GTP's reason (`board not
    /// empty`, `invalid number of stones`, `bad vertex list`) and what was wrong.
    Handicap(String),
    /// `genmove_analyze` found no analysis of its move running (its search could not
    /// start on its own thread).
    NoAnalysis,
}

impl fmt::Display for GtpError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GtpError::UnknownCommand(name) => write!(f, "unknown command '{name}'"),
            GtpError::Syntax(why) => write!(f, "syntax error: {why}"),
            GtpError::IllegalMove(why) => write!(f, "illegal move {why}"),
            GtpError::UnacceptableSize(size) => write!(f, "unacceptable size {size}"),
            GtpError::CannotUndo => write!(f, "cannot undo"),
            GtpError::LineTooLong => write!(f, "line too long (over {} bytes)", protocol::MAX_LINE),
            GtpError::UnsupportedGame(kind) => write!(f, "{kind} cannot be played over GTP (othello, go and hex can)"),
            GtpError::NoSwapRule => write!(f, "this game has no swap rule (hex has)"),
            GtpError::Search(why) => write!(f, "search failed: {why}"),
            GtpError::BadResign(r) => write!(f, "resign threshold {r} is not a win rate in [0, 1)"),
            GtpError::BadSgf(why) => write!(f, "cannot load SGF: {why}"),
            GtpError::Handicap(why) => write!(f, "{why}"),
            GtpError::NoAnalysis => write!(f, "no analysis of the move is running"),
        }
    }
}

impl std::error::Error for GtpError {}
