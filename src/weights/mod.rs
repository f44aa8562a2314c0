//! Learned move strengths: one Bradley-Terry gamma per move feature of a game
//! ([`Playouts::MOVE_FEATURES`], [`Playouts::move_feature`]), as in Coulom 2007, "Computing
//! 'Elo Ratings' of Move Patterns in the Game of Go". A move's strength is its feature's
//! gamma; progressive bias and biased playouts use strengths in place of the game's
//! hand-set [`Playouts::action_value`] when a search is given weights (`weights=FILE`), and by
//! default in a game that ships a set ([`Tuning::SHIPPED_WEIGHTS`](crate::games::Tuning::SHIPPED_WEIGHTS); Othello).
//!
//! This module is the file format: [`MoveWeights`] (JSON: game, feature names, gammas),
//! loaded and checked against the game. Fitting the gammas to a stronger player's games
//! (`parmcts train-weights`) is harness work and lives in `crate::training`.

use std::fmt;
use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::games::Playouts;

/// One gamma per move feature of a game.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct MoveWeights {
    /// The game's [`crate::games::Game::NAME`].
    pub game: String,
    /// The game's [`Playouts::MOVE_FEATURES`], in order.
    pub features: Vec<String>,
    /// Strength per feature (positive, finite).
    pub gammas: Vec<f32>,
    /// How the weights were made (the command line), for the record.
    #[serde(default)]
    pub source: String,
}

/// Why a weights file cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct WeightsError(pub String);

impl fmt::Display for WeightsError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for WeightsError {}

impl MoveWeights {
    /// Weights for `G` from gammas in [`Playouts::MOVE_FEATURES`] order.
    ///
    /// # Errors
    /// As [`MoveWeights::check`].
    pub fn new<G: Playouts>(gammas: Vec<f32>, source: &str) -> Result<MoveWeights, WeightsError> {
        let weights = MoveWeights {
            game: G::NAME.to_string(),
            features: G::MOVE_FEATURES.iter().map(|f| f.to_string()).collect(),
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
        serde_json::from_str(text).map_err(|e| WeightsError(format!("bad weights file: {e}")))
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
            .map_err(|e| WeightsError(format!("cannot read weights file '{path}': {e}")))?;
        MoveWeights::from_json(&text).map_err(|e| WeightsError(format!("{path}: {}", e.0)))
    }

    /// Writes the weights as pretty JSON.
    ///
    /// # Errors
    /// An I/O error, named with the path.
    pub fn save(&self, path: &str) -> Result<(), WeightsError> {
        let text = serde_json::to_string_pretty(self).map_err(|e| WeightsError(e.to_string()))?;
        std::fs::write(path, text + "\n").map_err(|e| WeightsError(format!("cannot write '{path}': {e}")))
    }

    /// Checks that the weights are for `G`: its name, its feature names in order, and one
    /// positive finite gamma each.
    ///
    /// # Errors
    /// The first mismatch, named.
    pub fn check<G: Playouts>(&self) -> Result<(), WeightsError> {
        if self.game != G::NAME {
            return Err(WeightsError(format!("weights are for '{}', not {}", self.game, G::NAME)));
        }
        if G::MOVE_FEATURES.is_empty() {
            return Err(WeightsError(format!("{} has no move features to weight", G::NAME)));
        }
        if self.features.len() != G::MOVE_FEATURES.len()
            || self.features.iter().zip(G::MOVE_FEATURES).any(|(a, b)| a != b)
        {
            return Err(WeightsError(format!(
                "weights name features {:?}, but {} has {:?}",
                self.features,
                G::NAME,
                G::MOVE_FEATURES
            )));
        }
        if self.gammas.len() != self.features.len() {
            return Err(WeightsError(format!("{} gammas for {} features", self.gammas.len(), self.features.len())));
        }
        if let Some((i, g)) = self.gammas.iter().enumerate().find(|(_, g)| !(g.is_finite() && **g > 0.0)) {
            return Err(WeightsError(format!("gamma of '{}' must be positive and finite (got {g})", self.features[i])));
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
    fn bad_weights_are_named() {
        let good = MoveWeights::new::<Othello>(vec![1.0; 10], "test").unwrap();
        let mut bad = good.clone();
        bad.gammas[3] = -1.0;
        assert!(bad.check::<Othello>().unwrap_err().0.contains("B-square"));
        let mut bad = good.clone();
        bad.gammas.pop();
        assert!(bad.check::<Othello>().is_err());
        assert!(MoveWeights::from_json("{").is_err());
        assert!(MoveWeights::load("/nonexistent/w.json").unwrap_err().0.contains("/nonexistent/w.json"));
    }
}
