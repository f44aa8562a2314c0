//! A running search: [`Search::start`] runs [`Search::run`] on a thread of its own and
//! returns a [`SearchHandle`] to watch it ([`SearchHandle::snapshot`]), stop it
//! ([`SearchHandle::stop`]) or wait for its budget to end ([`SearchHandle::wait`]);
//! [`Search::ponder`] searches on the opponent's time. The workers answer through the
//! [`Control`] of `snapshot.rs`.

use std::sync::{Arc, Mutex, PoisonError};
use std::thread::JoinHandle;
use std::time::Duration;

use super::drivers::{with_driver, Driver};
use super::snapshot::{Control, Snapshot};
use super::{Search, SearchError, SearchResult};
use crate::games::SearchGame;

/// What a finished search gives back: the [`Search`] (its arenas and trees, ready for
/// [`Search::reuse`] and the next run) and the result of the run.
#[derive(Debug)]
pub struct Finished {
    /// The search, with the tree it built.
    pub search: Search,
    /// The run's result, as [`Search::run`] returns it.
    pub result: Result<SearchResult, SearchError>,
}

/// A search that could not start ([`Search::start`]): why, and the search itself,
/// unchanged, for the caller to keep.
#[derive(Debug)]
pub struct NotStarted {
    /// Why it did not start.
    pub error: SearchError,
    /// The search, as it was (boxed: a `Search` is a large value to return in an error).
    pub search: Box<Search>,
}

impl std::fmt::Display for NotStarted {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        self.error.fmt(f)
    }
}

impl std::error::Error for NotStarted {}

/// A search running on its own thread ([`Search::start`]). Dropping the handle stops
/// the search and waits for it.
#[derive(Debug)]
pub struct SearchHandle {
    control: Arc<Control>,
    thread: Option<JoinHandle<(Search, Result<SearchResult, SearchError>)>>,
}

impl Search {
    /// Starts searching `root` on a thread of its own and returns at once. The search
    /// runs until its budget ends, its root is proven, or [`SearchHandle::stop`]; with
    /// `until-stopped=on` (no budget) only the handle stops it.
    ///
    /// # Errors
    /// [`NotStarted`], with the search back, for [`SearchError::GameOver`] (a finished
    /// `root`), [`SearchError::NoHandle`] (a mode whose search spans processes: `dist`,
    /// whose ranks stop together at a share, which one process's handle cannot decide)
    /// or [`SearchError::Thread`] (the thread cannot start). Errors of the run itself
    /// come with [`Finished::result`].
    pub fn start<G: SearchGame + Send + 'static>(self, root: G) -> Result<SearchHandle, NotStarted> {
        self.start_with(root, None)
    }

    /// Ponders: searches `root` (the position the opponent is to move in) until the
    /// handle stops it, whatever the configured budget, which the [`Finished`] search
    /// has again. When the opponent's move arrives, [`SearchHandle::stop`], then
    /// [`Search::reuse`] keeps the subtree of the position reached and [`Search::run`]
    /// continues from it (`examples/pondering.rs`).
    ///
    /// # Errors
    /// As [`Search::start`].
    pub fn ponder<G: SearchGame + Send + 'static>(mut self, root: G) -> Result<SearchHandle, NotStarted> {
        let budgeted = self.config.clone();
        match self.config.with_until_stopped() {
            Ok(config) => self.config = config,
            Err(e) => return Err(NotStarted { error: e.into(), search: Box::new(self) }),
        }
        self.start_with(root, Some(budgeted))
    }

    /// [`Search::start`], the finished search's configuration set to `restore` if given.
    fn start_with<G: SearchGame + Send + 'static>(
        mut self,
        root: G,
        restore: Option<super::SearchConfig>,
    ) -> Result<SearchHandle, NotStarted> {
        let refused = |mut search: Search, error| {
            if let Some(config) = restore.clone() {
                search.config = config;
            }
            Err(NotStarted { error, search: Box::new(search) })
        };
        if root.outcome().is_some() {
            return refused(self, SearchError::GameOver);
        }
        if !with_driver!(self.config.mode, |driver| driver.takes_handle()) {
            let mode = self.config.mode;
            return refused(self, SearchError::NoHandle(mode));
        }
        let control = Arc::new(Control::default());
        self.control = Some(Arc::clone(&control));
        let theirs = Arc::clone(&control);
        // The search reaches its thread through a slot, so that a thread that cannot
        // start leaves it to be handed back.
        let slot = Arc::new(Mutex::new(Some(self)));
        let restore_on_failure = restore.clone();
        let theirs_slot = Arc::clone(&slot);
        let spawned = std::thread::Builder::new().name("parmcts-search".to_string()).spawn(move || {
            let mut search = theirs_slot.lock().unwrap_or_else(PoisonError::into_inner).take().expect("handed over");
            let result = search.run(&root);
            search.control = None;
            if let Some(config) = restore {
                search.config = config;
            }
            theirs.finish(&result);
            (search, result)
        });
        let thread = match spawned {
            Ok(thread) => thread,
            Err(e) => {
                let mut search = slot.lock().unwrap_or_else(PoisonError::into_inner).take().expect("not handed over");
                search.control = None;
                if let Some(config) = restore_on_failure {
                    search.config = config;
                }
                return Err(NotStarted { error: SearchError::Thread(e.to_string()), search: Box::new(search) });
            }
        };
        Ok(SearchHandle { control, thread: Some(thread) })
    }
}

impl SearchHandle {
    /// The root as the workers see it now: each tree's worker answers at its next chunk
    /// boundary (microseconds; 100 ms at most), and the trees are summed by
    /// move as the result sums them. Once the search has ended, the result's children.
    pub fn snapshot(&self) -> Snapshot {
        self.control.snapshot()
    }

    /// Whether the search has ended (its budget spent, its root proven, or stopped).
    pub fn is_finished(&self) -> bool {
        self.thread.as_ref().is_none_or(JoinHandle::is_finished)
    }

    /// Waits at most `timeout` for the search to end by itself; whether it has ended
    /// (then [`SearchHandle::snapshot`] gives its result and [`SearchHandle::wait`]
    /// returns at once).
    pub fn wait_timeout(&self, timeout: Duration) -> bool {
        self.control.wait_finished(timeout)
    }

    /// Asks every worker to stop at its next chunk boundary and returns at once: the
    /// search's end, and its result in [`SearchHandle::snapshot`], follow within
    /// microseconds ([`SearchHandle::wait`] or [`SearchHandle::wait_timeout`] for them).
    pub fn request_stop(&self) {
        self.control.request_stop();
    }

    /// Stops every worker at its next chunk boundary and returns what the search found.
    /// No worker touches the tree once this returns.
    pub fn stop(mut self) -> Finished {
        self.control.request_stop();
        self.join()
    }

    /// Waits for the search to end by itself (its budget, or a proven root).
    pub fn wait(mut self) -> Finished {
        self.join()
    }

    fn join(&mut self) -> Finished {
        let thread = self.thread.take().expect("joined once: stop and wait consume the handle");
        match thread.join() {
            Ok((search, result)) => Finished { search, result },
            // The search's panic is the caller's (as it would be from `Search::run`).
            Err(panic) => std::panic::resume_unwind(panic),
        }
    }
}

impl Drop for SearchHandle {
    fn drop(&mut self) {
        if let Some(thread) = self.thread.take() {
            self.control.request_stop();
            let _ = thread.join();
        }
    }
}
