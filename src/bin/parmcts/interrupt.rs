//! Ctrl-C (SIGINT) during a long command (`bench`, `match`, `ladder`, `scale`, `solve`,
//! `train-weights`, `train-network`): the first asks the command to stop after the unit
//! of work it is doing and print what it finished; a second quits at once. Either way
//! the exit code is 130 (128 + SIGINT, the shell's convention). Other commands keep
//! the default: Ctrl-C ends them.

use std::sync::OnceLock;

use parmcts::harness::interrupt::Interrupt;

use crate::common::Failure;

/// The exit code of an interrupted command.
pub const EXIT_CODE: u8 = 130;

/// The request that the handler sets, once a command has asked for one.
static INTERRUPT: OnceLock<Interrupt> = OnceLock::new();

/// Catches Ctrl-C for the rest of the run, and returns the request it sets.
///
/// # Errors
/// A run-time failure when the handler cannot be installed.
pub fn catch() -> Result<Interrupt, Failure> {
    let interrupt = INTERRUPT.get_or_init(Interrupt::default).clone();
    let handler = interrupt.clone();
    // ctrlc runs this on a thread of its own, where printing and exiting are safe.
    ctrlc::set_handler(move || {
        if handler.requested() {
            std::process::exit(EXIT_CODE.into());
        }
        handler.request();
        eprintln!("interrupted: finishing what is running (Ctrl-C again to quit now)");
    })
    .map_err(|e| Failure::runtime(format!("cannot catch Ctrl-C: {e}")))?;
    Ok(interrupt)
}

/// Whether Ctrl-C was pressed during a command that catches it.
pub fn requested() -> bool {
    INTERRUPT.get().is_some_and(Interrupt::requested)
}
