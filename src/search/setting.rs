//! Settings as text: how each setting's value is read before it reaches the builder
//! (the table of keys, [`SETTINGS`](super::SETTINGS), is declared with the settings in
//! `search::config`), and the options' names.

use std::str::FromStr;
use std::time::Duration;

use super::error::ConfigError;
use super::options::{ChanceSelection, DistScheme, Evaluation, FinalMove, InFlight, Mode, Playout, Select, Weights};
use crate::evaluator::NTupleNetwork;
use crate::weights::MoveWeights;

/// A setting's value type read from text.
pub(crate) trait SettingText: Sized {
    /// Parses `text`, or says what was expected.
    fn from_text(text: &str) -> Result<Self, String>;
}

/// A setting's value as text, as `--help` shows a default: the inverse of
/// [`SettingText`] (`on`/`off` for a switch, a number as Rust prints it).
pub(crate) trait ShownText {
    /// The value as text.
    fn shown(&self) -> String;
}

macro_rules! shown_text_by_display {
    ($($t:ty),* $(,)?) => {$(
        impl ShownText for $t {
            fn shown(&self) -> String {
                self.to_string()
            }
        }
    )*};
}

shown_text_by_display!(u64, usize, f32, Playout);

impl ShownText for bool {
    fn shown(&self) -> String {
        if *self { "on" } else { "off" }.to_string()
    }
}

impl ShownText for FinalMove {
    fn shown(&self) -> String {
        match self {
            FinalMove::Visits => "visits",
            FinalMove::Value => "value",
            FinalMove::Secure => "secure",
        }
        .to_string()
    }
}

macro_rules! setting_text_by_from_str {
    ($($t:ty => $expected:literal),* $(,)?) => {$(
        impl SettingText for $t {
            fn from_text(text: &str) -> Result<Self, String> {
                text.parse().map_err(|_| $expected.to_string())
            }
        }
    )*};
}

setting_text_by_from_str!(
    u32 => "a whole number from 0 to 4294967295",
    u64 => "a whole number from 0 to 18446744073709551615",
    usize => "a whole number",
    f64 => "a number",
    Mode => "seq, tree or root",
    FinalMove => "visits, value or secure",
    Playout => "random or biased",
    Select => "ucb or puct",
    InFlight => "loss or wu-uct",
    ChanceSelection => "sample or walk",
    DistScheme => "share, farm, split or tds",
);

impl SettingText for bool {
    fn from_text(text: &str) -> Result<bool, String> {
        match text {
            "on" => Ok(true),
            "off" => Ok(false),
            _ => Err("on or off".to_string()),
        }
    }
}

/// Time settings are whole milliseconds.
impl SettingText for Duration {
    fn from_text(text: &str) -> Result<Duration, String> {
        text.parse().map(Duration::from_millis).map_err(|_| "a whole number of milliseconds".to_string())
    }
}

impl SettingText for Evaluation {
    fn from_text(text: &str) -> Result<Evaluation, String> {
        match text {
            "default" => Ok(Evaluation::Default),
            "none" => Ok(Evaluation::None),
            "network" => Ok(Evaluation::Shipped),
            file => NTupleNetwork::load(file)
                .map(|n| Evaluation::Network(std::sync::Arc::new(n)))
                .map_err(|e| format!("default, none, network or a file: {e}")),
        }
    }
}

impl SettingText for Weights {
    fn from_text(text: &str) -> Result<Weights, String> {
        match text {
            "default" => Ok(Weights::Shipped),
            "hand-set" => Ok(Weights::HandSet),
            file => MoveWeights::load(file).map(Weights::from).map_err(|e| format!("default, hand-set or a file: {e}")),
        }
    }
}

impl FromStr for Mode {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Mode, ConfigError> {
        Mode::ALL.into_iter().find(|m| m.name() == s).ok_or_else(|| ConfigError::UnknownMode(s.to_string()))
    }
}

impl FromStr for Select {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Select, ConfigError> {
        match s {
            "ucb" => Ok(Select::Ucb),
            "puct" => Ok(Select::Puct),
            _ => Err(ConfigError::UnknownSelect(s.to_string())),
        }
    }
}

impl FromStr for Playout {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<Playout, ConfigError> {
        match s {
            "random" => Ok(Playout::Random),
            "biased" => Ok(Playout::Biased),
            _ => Err(ConfigError::UnknownPlayout(s.to_string())),
        }
    }
}

impl FromStr for FinalMove {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<FinalMove, ConfigError> {
        match s {
            "visits" => Ok(FinalMove::Visits),
            "value" => Ok(FinalMove::Value),
            "secure" => Ok(FinalMove::Secure),
            _ => Err(ConfigError::UnknownFinalMove(s.to_string())),
        }
    }
}

impl FromStr for InFlight {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<InFlight, ConfigError> {
        match s {
            "loss" => Ok(InFlight::Loss),
            "wu-uct" => Ok(InFlight::WuUct),
            _ => Err(ConfigError::UnknownInFlight(s.to_string())),
        }
    }
}

impl FromStr for DistScheme {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<DistScheme, ConfigError> {
        match s {
            "share" => Ok(DistScheme::Share),
            "farm" => Ok(DistScheme::Farm),
            "split" => Ok(DistScheme::Split),
            "tds" => Ok(DistScheme::Tds),
            _ => Err(ConfigError::UnknownDistScheme(s.to_string())),
        }
    }
}

impl FromStr for ChanceSelection {
    type Err = ConfigError;
    fn from_str(s: &str) -> Result<ChanceSelection, ConfigError> {
        match s {
            "sample" => Ok(ChanceSelection::Sample),
            "walk" => Ok(ChanceSelection::Walk),
            _ => Err(ConfigError::UnknownChance(s.to_string())),
        }
    }
}
