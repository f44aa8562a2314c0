//! The search settings as command-line flags, generated from the library's one table
//! ([`parmcts::search::SETTINGS`]): `--playouts N`, `--c C`, `--mode auto|seq|tree|root|sync|virtual|dist`, …
//! A flag and an `mcts:key=value` player-spec key are the same setting by construction.

use std::marker::PhantomData;

use clap::{Arg, ArgMatches, Args, Command, FromArgMatches};

use parmcts::search::{SearchConfigBuilder, Setting, SETTINGS};
use parmcts::{with_game, GameKind};

use crate::common::Failure;

/// Which settings a subcommand takes as flags, and the defaults it shows where they
/// differ from the library's.
pub trait FlagSet {
    /// Keys not offered as flags (the subcommand sets them itself).
    const EXCLUDED: &'static [&'static str] = &[];
    /// (key, default shown) pairs overriding the table's.
    const DEFAULTS: &'static [(&'static str, &'static str)] = &[];
}

/// Every setting (`parmcts search`).
#[derive(Clone, Debug)]
pub struct AllSettings;
impl FlagSet for AllSettings {}

/// The search settings given on the command line, in table order.
#[derive(Clone, Debug)]
pub struct SettingFlags<F> {
    given: Vec<(&'static str, String)>,
    set: PhantomData<F>,
}

impl<F> SettingFlags<F> {
    /// Applies the given flags to `builder`.
    pub fn apply(&self, builder: SearchConfigBuilder) -> Result<SearchConfigBuilder, Failure> {
        Ok(builder.apply_settings(self.given.iter().map(|(k, v)| (*k, v.as_str())))?)
    }
}

impl<F: FlagSet> FromArgMatches for SettingFlags<F> {
    fn from_arg_matches(matches: &ArgMatches) -> Result<Self, clap::Error> {
        let given = SETTINGS
            .iter()
            .filter(|s| !F::EXCLUDED.contains(&s.key))
            .filter_map(|s| matches.get_one::<String>(s.key).map(|v| (s.key, v.clone())))
            .collect();
        Ok(SettingFlags { given, set: PhantomData })
    }

    fn update_from_arg_matches(&mut self, matches: &ArgMatches) -> Result<(), clap::Error> {
        *self = Self::from_arg_matches(matches)?;
        Ok(())
    }
}

impl<F: FlagSet> Args for SettingFlags<F> {
    fn augment_args(command: Command) -> Command {
        SETTINGS.iter().filter(|s| !F::EXCLUDED.contains(&s.key)).fold(command, |command, s| {
            let default = match F::DEFAULTS.iter().find(|(k, _)| *k == s.key) {
                Some((_, shown)) => shown.to_string(),
                None => shown_default(s),
            };
            command.arg(
                Arg::new(s.key)
                    .long(s.key)
                    .aliases(s.alias)
                    .value_name(s.value_name)
                    .help(format!("{} [default: {default}]", s.help.trim()))
                    // Negative numbers are values, so that `--c -1` is rejected as a bad
                    // C rather than as an unknown flag.
                    .allow_hyphen_values(true)
                    .help_heading("Search settings (also the keys of an mcts: player spec)"),
            )
        })
    }

    fn augment_args_for_update(command: Command) -> Command {
        Self::augment_args(command)
    }
}

/// The default of a setting that each game fills, as every registered game resolves it
/// (`per game: tictactoe 1.4142135, connect4 0.5, ...`; [`Setting::default_in`]); the
/// declared text for the others.
fn shown_default(setting: &Setting) -> String {
    if !setting.per_game {
        return setting.default.to_string();
    }
    let value = |game: GameKind| with_game!(game, G => setting.default_in::<G>());
    let values: Vec<String> =
        GameKind::ALL.iter().filter_map(|&game| value(game).map(|v| format!("{game} {v}"))).collect();
    format!("{}: {}", setting.default, values.join(", "))
}
