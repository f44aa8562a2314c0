//! A request to stop a long run early ([`Interrupt`]): the front end sets it (on Ctrl-C),
//! and the harness's loops read it between units of work (a game, a match, a
//! measurement, a training game) and return what they finished, marked as interrupted.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;

/// A shared stop request. Clones share one flag; [`Interrupt::default`] is a fresh one
/// that nothing has requested yet, so a run given it goes to its end.
///
/// # Examples
/// ```
/// use parmcts::harness::interrupt::Interrupt;
///
/// let interrupt = Interrupt::default();
/// let handler = interrupt.clone(); // kept by whoever asks to stop (a signal handler)
/// assert!(!interrupt.requested());
/// handler.request();
/// assert!(interrupt.requested());
/// ```
#[derive(Clone, Debug, Default)]
pub struct Interrupt(Arc<AtomicBool>);

impl Interrupt {
    /// Asks every holder of this flag to stop after its current unit of work.
    pub fn request(&self) {
        // ORDERING: Relaxed: the flag guards no data; a loop that misses it now sees it
        // at its next check.
        self.0.store(true, Ordering::Relaxed);
    }

    /// Whether a stop was requested.
    pub fn requested(&self) -> bool {
        self.0.load(Ordering::Relaxed)
    }
}
