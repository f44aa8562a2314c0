//! The thread pools the harnesses play their games or judge their positions on
//! (matches, training, quality, review): one way to start one, and one error for threads
//! that cannot start.

use std::fmt;

/// A pool of worker threads could not be started.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PoolStartError {
    /// Threads asked for.
    pub threads: usize,
    /// Why (the operating system's reason).
    pub reason: String,
}

impl fmt::Display for PoolStartError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "cannot start {} worker threads: {}", self.threads, self.reason)
    }
}

impl std::error::Error for PoolStartError {}

/// A rayon pool of `threads` threads (the harness checks for 0 first, with its own
/// error naming its flag).
///
/// # Errors
/// [`PoolStartError`] when the operating system refuses the threads.
pub fn worker_pool(threads: usize) -> Result<rayon::ThreadPool, PoolStartError> {
    rayon::ThreadPoolBuilder::new()
        .num_threads(threads)
        .build()
        .map_err(|e| PoolStartError { threads, reason: e.to_string() })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_pool_has_the_threads_asked_for_and_its_error_names_them() {
        assert_eq!(worker_pool(3).unwrap().current_num_threads(), 3);
        let e = PoolStartError { threads: 5, reason: "no memory".into() };
        assert_eq!(e.to_string(), "cannot start 5 worker threads: no memory");
    }
}
