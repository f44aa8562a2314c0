//! Settings as text: the key of `--key VALUE` and `mcts:key=VALUE`, and how each
//! setting's value is read before it reaches the builder. The table itself,
//! [`SETTINGS`], is declared with the settings (`search::config`).

use std::fmt;
use std::time::Duration;

use super::config::{SearchConfigBuilder, SETTINGS};
use super::options::{ChanceSelection, DistScheme, Evaluation, FinalMove, InFlight, Mode, Playout, Weights};
use crate::evaluator::NTupleNetwork;
use crate::weights::MoveWeights;

/// One search setting as text sees it: the key of `--key VALUE` and `mcts:key=VALUE`.
#[derive(Clone, Copy)]
pub struct Setting {
    /// The key (`playouts`, `time-ms`, `virtual-loss`, ...).
    pub key: &'static str,
    /// What the value is, for help (`N`, `MS`, `on|off`, ...).
    pub value_name: &'static str,
    /// One line of help.
    pub help: &'static str,
    /// The default, as `--help` shows it.
    pub default: &'static str,
    pub(super) apply: fn(SearchConfigBuilder, &str) -> Result<SearchConfigBuilder, SettingError>,
}

impl fmt::Debug for Setting {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Setting").field("key", &self.key).finish_non_exhaustive()
    }
}

impl Setting {
    /// The setting with this key.
    pub fn find(key: &str) -> Option<&'static Setting> {
        SETTINGS.iter().find(|s| s.key == key)
    }

    /// Applies `value` to `builder`.
    ///
    /// # Errors
    /// [`SettingError::BadValue`] naming the key and the value when it does not parse.
    pub fn apply(&self, builder: SearchConfigBuilder, value: &str) -> Result<SearchConfigBuilder, SettingError> {
        (self.apply)(builder, value)
    }
}

impl SearchConfigBuilder {
    /// Applies `key=value` settings in order ([`SETTINGS`]), rejecting an unknown key
    /// and a key given twice.
    ///
    /// # Errors
    /// The first [`SettingError`].
    pub fn apply_settings<'a>(
        mut self,
        pairs: impl IntoIterator<Item = (&'a str, &'a str)>,
    ) -> Result<SearchConfigBuilder, SettingError> {
        let mut seen: Vec<&str> = Vec::new();
        for (key, value) in pairs {
            let setting = Setting::find(key).ok_or_else(|| SettingError::UnknownKey(key.to_string()))?;
            if seen.contains(&setting.key) {
                return Err(SettingError::Repeated(setting.key));
            }
            seen.push(setting.key);
            self = setting.apply(self, value)?;
        }
        Ok(self)
    }
}

/// A setting given as text that cannot be used.
#[derive(Clone, Debug, PartialEq, Eq)]
#[non_exhaustive]
pub enum SettingError {
    /// No setting has this key.
    UnknownKey(String),
    /// The value does not parse for the key.
    BadValue {
        /// The setting's key.
        key: &'static str,
        /// The value given.
        value: String,
        /// What the key takes.
        expected: String,
    },
    /// The key was given twice.
    Repeated(&'static str),
}

impl fmt::Display for SettingError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            SettingError::UnknownKey(key) => {
                let keys: Vec<&str> = SETTINGS.iter().map(|s| s.key).collect();
                write!(f, "unknown option '{key}' (expected one of: {})", keys.join(", "))
            }
            SettingError::BadValue { key, value, expected } => {
                write!(f, "bad value '{value}' for {key} (expected {expected})")
            }
            SettingError::Repeated(key) => write!(f, "{key} given twice"),
        }
    }
}

impl std::error::Error for SettingError {}

/// A setting's value type read from text.
pub(super) trait SettingText: Sized {
    /// Parses `text`, or says what was expected.
    fn from_text(text: &str) -> Result<Self, String>;
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
    InFlight => "loss or wu-uct",
    ChanceSelection => "sample or walk",
    DistScheme => "share, farm or split",
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

/// Reads `text` for the setting `key`.
pub(super) fn parse_setting<T: SettingText>(key: &'static str, text: &str) -> Result<T, SettingError> {
    T::from_text(text).map_err(|expected| SettingError::BadValue { key, value: text.to_string(), expected })
}
