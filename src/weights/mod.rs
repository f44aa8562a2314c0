//! Learned move strengths: one Bradley-Terry gamma per move feature of a game
//! ([`Playouts::move_features`]), as in Coulom 2007, "Computing 'Elo Ratings' of Move
//! Patterns in the Game of Go". A move's strength is the product of the gammas of its
//! features, one per feature group ([`Playouts::learned_strength`]: Othello's moves have
//! one, their square class; Go's two, tactic and 3x3 pattern). Progressive bias and
//! biased playouts use these strengths in place of the game's hand-set
//! [`Playouts::action_value`] when a search is given weights (`weights=FILE`), and by
//! default in a game that ships a set ([`Tuning::SHIPPED_WEIGHTS`](crate::games::Tuning::SHIPPED_WEIGHTS)).
//!
//! This module is the file format: [`MoveWeights`] (JSON: game, feature names, gammas),
//! loaded and checked against the game. Fitting the gammas to a stronger player's games
//! (`parmcts train-weights`) is harness work and lives in `crate::harness::training`.

use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::games::{one_line, Playouts};

/// One gamma per move feature of a game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveWeights {
    /// The game's [`crate::games::Game::NAME`], or the name shared by the games with its
    /// features ([`Playouts::FEATURES_OF`]).
    pub game: String,
    /// The game's [`Playouts::move_features`], in order.
    pub features: Vec<String>,
    /// Strength per feature (positive, finite).
    pub gammas: Vec<f32>,
    /// How the weights were made (the command line), for the record.
    #[serde(default)]
    pub source: String,
}

/// Why a weights file cannot be used, naming the bad value.
#[derive(Clone, Debug, PartialEq)]
#[non_exhaustive]
pub enum WeightsError {
    /// The file could not be read.
    Unreadable {
        /// The path given.
        path: String,
        /// The operating system's reason.
        reason: String,
    },
    /// The text is not a weights file (bad JSON or a missing field).
    Malformed {
        /// The file, when the text came from one.
        path: Option<String>,
        /// The parser's reason.
        reason: String,
    },
    /// The weights are for another game.
    WrongGame {
        /// The game searched ([`crate::Game::NAME`]).
        expected: &'static str,
        /// The game the weights name.
        found: String,
    },
    /// The game has no move features, so nothing to weight.
    NoFeatures {
        /// The game ([`crate::Game::NAME`]).
        game: &'static str,
    },
    /// The weights name other features, or the same in another order.
    WrongFeatures {
        /// The game ([`crate::Game::NAME`]).
        game: &'static str,
        /// The game's features ([`crate::Playouts::move_features`]).
        expected: &'static [&'static str],
        /// The features the weights name.
        found: Vec<String>,
    },
    /// Not one gamma per feature.
    WrongGammaCount {
        /// Gammas given.
        gammas: usize,
        /// Features named.
        features: usize,
    },
    /// A gamma that is not positive and finite.
    BadGamma {
        /// The feature it weights.
        feature: String,
        /// The gamma given.
        value: f32,
    },
    /// The file could not be written.
    Unwritable {
        /// The path given.
        path: String,
        /// The reason (the operating system's, or the serialiser's).
        reason: String,
    },
    /// A softmax temperature that is not positive and finite (`training::with_temperature`).
    BadTemperature(f64),
}

impl fmt::Display for WeightsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            WeightsError::Unreadable { path, reason } => {
                write!(f, "cannot read weights file '{}': {reason}", one_line(path))
            }
            WeightsError::Malformed { path: Some(path), reason } => {
                write!(f, "{}: bad weights file: {}", one_line(path), one_line(reason))
            }
            WeightsError::Malformed { path: None, reason } => write!(f, "bad weights file: {}", one_line(reason)),
            WeightsError::WrongGame { expected, found } => {
                write!(f, "weights are for '{}', not {expected}", one_line(found))
            }
            WeightsError::NoFeatures { game } => write!(f, "{game} has no move features to weight"),
            WeightsError::WrongFeatures { game, expected, found } => {
                write!(f, "weights name features {found:?}, but {game} has {expected:?}")
            }
            WeightsError::WrongGammaCount { gammas, features } => write!(f, "{gammas} gammas for {features} features"),
            WeightsError::BadGamma { feature, value } => {
                write!(f, "gamma of '{}' must be positive and finite (got {value})", one_line(feature))
            }
            WeightsError::Unwritable { path, reason } => write!(f, "cannot write '{}': {reason}", one_line(path)),
            WeightsError::BadTemperature(t) => write!(f, "temperature {t} must be a positive finite number"),
        }
    }
}

impl std::error::Error for WeightsError {}

impl MoveWeights {
    /// Weights for `G` from gammas in [`Playouts::move_features`] order.
    ///
    /// # Errors
    /// As [`MoveWeights::check`].
    pub fn new<G: Playouts>(gammas: Vec<f32>, source: &str) -> Result<MoveWeights, WeightsError> {
        let weights = MoveWeights {
            game: G::FEATURES_OF.to_string(),
            features: G::move_features().iter().map(|f| f.to_string()).collect(),
            gammas,
            source: source.to_string(),
        };
        weights.check::<G>()?;
        Ok(weights)
    }

    /// Parses weights from JSON text.
    ///
    /// # Errors
    /// Malformed JSON or a missing field.
    pub fn from_json(text: &str) -> Result<MoveWeights, WeightsError> {
        serde_json::from_str(text).map_err(|e| WeightsError::Malformed { path: None, reason: e.to_string() })
    }

    /// Reads a weights file; `default` names the set shipped with the crate.
    ///
    /// # Errors
    /// An unreadable or malformed file.
    pub fn load(path: &str) -> Result<MoveWeights, WeightsError> {
        if path == "default" {
            return MoveWeights::from_json(crate::games::othello::DEFAULT_WEIGHTS);
        }
        let text = std::fs::read_to_string(Path::new(path))
            .map_err(|e| WeightsError::Unreadable { path: path.to_string(), reason: e.to_string() })?;
        serde_json::from_str(&text)
            .map_err(|e| WeightsError::Malformed { path: Some(path.to_string()), reason: e.to_string() })
    }

    /// Writes the weights as pretty JSON.
    ///
    /// # Errors
    /// An I/O error, named with the path.
    pub fn save(&self, path: &str) -> Result<(), WeightsError> {
        let unwritable = |reason: String| WeightsError::Unwritable { path: path.to_string(), reason };
        let text = serde_json::to_string_pretty(self).map_err(|e| unwritable(e.to_string()))?;
        std::fs::write(path, text + "\n").map_err(|e| unwritable(e.to_string()))
    }

    /// Checks that the weights are for `G`: its name (or the name its features are
    /// written for, [`Playouts::FEATURES_OF`]), its feature names in order, and one
    /// positive finite gamma each.
    ///
    /// # Errors
    /// The first mismatch, named.
    pub fn check<G: Playouts>(&self) -> Result<(), WeightsError> {
        if self.game != G::NAME && self.game != G::FEATURES_OF {
            return Err(WeightsError::WrongGame { expected: G::NAME, found: self.game.clone() });
        }
        if G::move_features().is_empty() {
            return Err(WeightsError::NoFeatures { game: G::NAME });
        }
        if self.features.len() != G::move_features().len()
            || self.features.iter().zip(G::move_features()).any(|(a, b)| a != b)
        {
            return Err(WeightsError::WrongFeatures {
                game: G::NAME,
                expected: G::move_features(),
                found: self.features.clone(),
            });
        }
        if self.gammas.len() != self.features.len() {
            return Err(WeightsError::WrongGammaCount { gammas: self.gammas.len(), features: self.features.len() });
        }
        if let Some((i, g)) = self.gammas.iter().enumerate().find(|(_, g)| !(g.is_finite() && **g > 0.0)) {
            return Err(WeightsError::BadGamma { feature: self.features[i].clone(), value: *g });
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::games::{ConnectFour, Othello};

    #[test]
    fn the_shipped_set_is_valid_for_othello() {
        let weights = MoveWeights::load("default").unwrap();
        weights.check::<Othello>().unwrap();
        assert!(weights.check::<ConnectFour>().is_err());
    }

    #[test]
    fn the_shipped_go_set_is_valid_for_every_board_size() {
        use crate::games::go::{Go13, Go19, Go9, DEFAULT_WEIGHTS};
        use crate::games::Tuning;
        let weights = MoveWeights::from_json(DEFAULT_WEIGHTS).unwrap();
        weights.check::<Go9>().unwrap();
        assert_eq!(weights.gammas.len(), Go9::move_features().len());
        // Every size ships the same set: the features do not depend on the board.
        assert_eq!(Go13::SHIPPED_WEIGHTS, Go9::SHIPPED_WEIGHTS);
        assert_eq!(Go19::SHIPPED_WEIGHTS, Go9::SHIPPED_WEIGHTS);
        weights.check::<Go13>().unwrap();
        weights.check::<Go19>().unwrap();
        // A set written for one size alone still loads there, and only there.
        let own = MoveWeights { game: "go13".into(), ..weights.clone() };
        own.check::<Go13>().unwrap();
        assert!(matches!(own.check::<Go19>(), Err(WeightsError::WrongGame { .. })));
        assert_eq!(MoveWeights::new::<Go19>(weights.gammas.clone(), "test").unwrap().game, "go");
        // The fit of all five feature groups that docs/results/go.md measures.
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/docs/results/data/go9-weights-five.json");
        MoveWeights::load(path).unwrap().check::<Go9>().unwrap();
    }

    #[test]
    fn bad_weights_are_named() {
        let good = MoveWeights::new::<Othello>(vec![1.0; 10], "test").unwrap();
        let mut bad = good.clone();
        bad.gammas[3] = -1.0;
        assert!(
            matches!(bad.check::<Othello>(), Err(WeightsError::BadGamma { feature, value: -1.0 }) if feature.contains("B-square"))
        );
        let mut bad = good.clone();
        bad.gammas.pop();
        assert!(bad.check::<Othello>().is_err());
        assert!(MoveWeights::from_json("{").is_err());
        assert!(
            matches!(MoveWeights::load("/nonexistent/w.json"), Err(WeightsError::Unreadable { path, .. }) if path == "/nonexistent/w.json")
        );
    }
}
