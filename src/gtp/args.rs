//! The arguments of GTP commands: colours, times, counts and how many a command takes,
//! each with the syntax error that names what is wrong.

use std::time::Duration;

use super::error::GtpError;
use super::protocol;
use crate::games::Player;

/// `b`, `black`, `w` or `white`, any case.
pub(super) fn colour(text: &str) -> Result<Player, GtpError> {
    protocol::parse_colour(text).ok_or_else(|| GtpError::Syntax(format!("invalid color '{text}'")))
}

/// The most seconds a time argument may give (over 31 years).
const MAX_SECONDS: f64 = 1e9;

/// A time in seconds (GTP sends integers; a fraction is accepted).
pub(super) fn seconds(text: &str) -> Result<Duration, GtpError> {
    let bad = || GtpError::Syntax(format!("time '{text}' is not a number of seconds"));
    let value: f64 = text.parse().map_err(|_| bad())?;
    if !(0.0..=MAX_SECONDS).contains(&value) {
        return Err(bad());
    }
    Duration::try_from_secs_f64(value).map_err(|_| bad())
}

/// A count of stones or periods.
pub(super) fn count(text: &str) -> Result<u32, GtpError> {
    text.parse().map_err(|_| GtpError::Syntax(format!("'{text}' is not a count")))
}

/// `Ok` when `name` got `n` arguments, else the syntax error that says how many it takes.
pub(super) fn expect_args(name: &str, args: &[&str], n: usize) -> Result<(), GtpError> {
    if args.len() == n {
        Ok(())
    } else {
        Err(GtpError::Syntax(format!("{name} takes {n} argument{}", if n == 1 { "" } else { "s" })))
    }
}
