//! Pons-format positions files: parsing and reading.

use std::path::Path;

use serde::Serialize;

use super::QualityError;
use crate::games::{ConnectFour, Game};
use crate::solver::connect4::{MAX_SCORE, MIN_SCORE};

/// One position of a Pons file with its exact score.
#[derive(Clone, Debug, PartialEq)]
pub struct ScoredPosition {
    /// The line of the file it came from (1-based).
    pub line: usize,
    /// The move sequence as written (columns 1-7).
    pub moves: String,
    /// The position.
    pub game: ConnectFour,
    /// The file's score for the side to move (Pons's convention).
    pub score: i32,
}

/// What a position's score says the side to move gets with perfect play.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize)]
#[serde(rename_all = "lowercase")]
pub enum Class {
    /// The side to move wins.
    Won,
    /// A draw.
    Drawn,
    /// The side to move loses.
    Lost,
}

impl Class {
    /// The class of a score in Pons's convention.
    pub fn of(score: i32) -> Class {
        match score {
            s if s > 0 => Class::Won,
            0 => Class::Drawn,
            _ => Class::Lost,
        }
    }

    /// Whether `after`, the mover's score after a move, keeps this class.
    pub fn kept_by(self, after: i32) -> bool {
        match self {
            Class::Won => after > 0,
            Class::Drawn => after >= 0,
            Class::Lost => true,
        }
    }
}

/// Parses Pons-format positions from `text`; `source` names it in errors. Blank lines
/// are skipped; with `limit`, only the first `limit` positions are read (and checked).
///
/// # Errors
/// [`QualityError::Malformed`] naming the first bad line, or
/// [`QualityError::NoPositions`] when there is none.
pub fn parse_positions(text: &str, source: &str, limit: Option<usize>) -> Result<Vec<ScoredPosition>, QualityError> {
    let mut positions = Vec::new();
    for (index, raw) in text.lines().enumerate() {
        if limit.is_some_and(|n| positions.len() >= n) {
            break;
        }
        let line = raw.trim();
        if line.is_empty() {
            continue;
        }
        let malformed = |reason: String| QualityError::Malformed {
            source: source.to_string(),
            line: index + 1,
            text: line.to_string(),
            reason,
        };
        let mut fields = line.split_whitespace();
        let (Some(moves), Some(score), None) = (fields.next(), fields.next(), fields.next()) else {
            return Err(malformed("expected '<moves> <score>'".to_string()));
        };
        let score: i32 = score.parse().map_err(|_| malformed(format!("bad score '{score}'")))?;
        if !(MIN_SCORE..=MAX_SCORE).contains(&score) {
            return Err(malformed(format!("score {score} out of range {MIN_SCORE}..={MAX_SCORE}")));
        }
        let game = ConnectFour::parse_position(moves).map_err(|e| malformed(e.to_string()))?;
        if game.outcome().is_some() {
            return Err(malformed("the game is already over".to_string()));
        }
        positions.push(ScoredPosition { line: index + 1, moves: moves.to_string(), game, score });
    }
    if positions.is_empty() {
        return Err(QualityError::NoPositions { source: source.to_string() });
    }
    Ok(positions)
}

/// Reads a Pons-format positions file ([`parse_positions`]).
///
/// # Errors
/// [`QualityError::Unreadable`] when the file cannot be read; the errors of
/// [`parse_positions`], naming the file.
pub fn read_positions(path: &Path, limit: Option<usize>) -> Result<Vec<ScoredPosition>, QualityError> {
    let name = path.display().to_string();
    let text = std::fs::read_to_string(path)
        .map_err(|e| QualityError::Unreadable { path: name.clone(), reason: e.to_string() })?;
    parse_positions(&text, &name, limit)
}
