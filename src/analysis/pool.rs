//! The analysis threads: a fixed set of threads, each searching one turn at a time, the
//! highest priority first (ties: the earliest submitted), with its own [`Search`] kept
//! from one turn to the next (its arenas allocated once). `terminate` drops queued
//! turns (each answered `noResults`) and stops running ones, which report what they
//! found.

use std::cmp::Ordering as Order;
use std::collections::BinaryHeap;
use std::io::Write;
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError};
use std::thread::JoinHandle;

use super::report::{line, NoResults};
use crate::search::Search;

/// Where the replies go: one line at a time, whole, from any thread.
pub struct Output {
    writer: Mutex<Box<dyn Write + Send>>,
    /// Set when a write failed (the reader gone): the engine stops.
    failed: AtomicBool,
}

impl Output {
    /// Replies on `writer`.
    pub fn new(writer: Box<dyn Write + Send>) -> Output {
        Output { writer: Mutex::new(writer), failed: AtomicBool::new(false) }
    }

    /// Writes `text` and a newline, and flushes.
    pub fn send(&self, text: &str) {
        let mut writer = self.writer.lock().unwrap_or_else(PoisonError::into_inner);
        let written =
            writer.write_all(text.as_bytes()).and_then(|()| writer.write_all(b"\n")).and_then(|()| writer.flush());
        if written.is_err() {
            // ORDERING: Relaxed: a flag the reader polls; no data rides on it.
            self.failed.store(true, Ordering::Relaxed);
        }
    }

    /// Whether a write has failed.
    pub fn failed(&self) -> bool {
        // ORDERING: Relaxed: see `send`.
        self.failed.load(Ordering::Relaxed)
    }
}

/// What a running turn's search consults: its stop flag and the output.
pub struct JobContext<'a> {
    /// Set by `terminate`.
    pub cancel: &'a AtomicBool,
    /// The replies.
    pub out: &'a Output,
}

impl JobContext<'_> {
    /// Whether `terminate` asked this turn to stop.
    pub fn cancelled(&self) -> bool {
        // ORDERING: Relaxed: a stop flag; the search's own stop carries the result.
        self.cancel.load(Ordering::Relaxed)
    }
}

/// The search an analysis thread keeps between turns.
pub type Slot = Option<Search>;

/// A turn's search, run on an analysis thread with the search it keeps.
pub type Run = Box<dyn FnOnce(&mut Slot, &JobContext<'_>) + Send>;

/// One turn to search: its query's id, turn and priority, and the search itself.
pub struct Job {
    /// The query's id.
    pub id: Arc<str>,
    /// The turn.
    pub turn: usize,
    /// Its priority: higher first.
    pub priority: i64,
    /// The search: run on an analysis thread with its kept search.
    pub run: Run,
}

struct Queued {
    job: Job,
    /// Submission order: earlier first among equal priorities.
    seq: u64,
    cancel: Arc<AtomicBool>,
}

impl PartialEq for Queued {
    fn eq(&self, other: &Self) -> bool {
        self.cmp(other) == Order::Equal
    }
}
impl Eq for Queued {}
impl PartialOrd for Queued {
    fn partial_cmp(&self, other: &Self) -> Option<Order> {
        Some(self.cmp(other))
    }
}
impl Ord for Queued {
    /// The heap's top is the highest priority, then the earliest.
    fn cmp(&self, other: &Self) -> Order {
        self.job.priority.cmp(&other.job.priority).then(other.seq.cmp(&self.seq))
    }
}

/// A running turn, for `terminate`.
struct Running {
    id: Arc<str>,
    turn: usize,
    cancel: Arc<AtomicBool>,
}

#[derive(Default)]
struct Queue {
    waiting: BinaryHeap<Queued>,
    running: Vec<Running>,
    next_seq: u64,
    /// No more jobs come: threads leave once the queue is empty.
    closing: bool,
}

struct Shared {
    queue: Mutex<Queue>,
    work: Condvar,
    out: Arc<Output>,
}

impl Shared {
    fn lock(&self) -> MutexGuard<'_, Queue> {
        self.queue.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The analysis threads and their queue.
pub struct Pool {
    shared: Arc<Shared>,
    threads: Vec<JoinHandle<()>>,
}

impl Pool {
    /// Starts `threads` analysis threads replying on `out`.
    ///
    /// # Errors
    /// The operating system's, when a thread cannot start.
    pub fn new(threads: usize, out: Arc<Output>) -> std::io::Result<Pool> {
        let shared = Arc::new(Shared { queue: Mutex::new(Queue::default()), work: Condvar::new(), out });
        let mut pool = Pool { shared, threads: Vec::new() };
        for i in 0..threads {
            let shared = Arc::clone(&pool.shared);
            let thread =
                std::thread::Builder::new().name(format!("parmcts-analysis-{i}")).spawn(move || serve(&shared));
            match thread {
                Ok(thread) => pool.threads.push(thread),
                Err(e) => {
                    pool.close();
                    return Err(e);
                }
            }
        }
        Ok(pool)
    }

    /// Queues `jobs` (one query's turns, in submission order).
    pub fn submit(&self, jobs: Vec<Job>) {
        let mut queue = self.shared.lock();
        for job in jobs {
            let seq = queue.next_seq;
            queue.next_seq += 1;
            queue.waiting.push(Queued { job, seq, cancel: Arc::new(AtomicBool::new(false)) });
        }
        drop(queue);
        self.shared.work.notify_all();
    }

    /// Turns queued, not yet started.
    pub fn queued(&self) -> usize {
        self.shared.lock().waiting.len()
    }

    /// Terminates the turns of query `id` (`None`: every query), only `turns` if given:
    /// queued ones are dropped and answered `noResults`, running ones are stopped and
    /// report what they found.
    pub fn terminate(&self, id: Option<&str>, turns: Option<&[usize]>) {
        let hit = |job_id: &str, turn: usize| {
            id.is_none_or(|id| id == job_id) && turns.is_none_or(|turns| turns.contains(&turn))
        };
        let mut queue = self.shared.lock();
        for running in queue.running.iter().filter(|r| hit(&r.id, r.turn)) {
            // ORDERING: Relaxed: see `JobContext::cancelled`.
            running.cancel.store(true, Ordering::Relaxed);
        }
        let (dropped, kept): (Vec<Queued>, Vec<Queued>) =
            std::mem::take(&mut queue.waiting).into_iter().partition(|q| hit(&q.job.id, q.job.turn));
        queue.waiting = kept.into_iter().collect();
        drop(queue);
        let mut dropped: Vec<Queued> = dropped;
        dropped.sort_by_key(|q| q.seq);
        for q in dropped {
            let reply = NoResults { id: &q.job.id, turn_number: q.job.turn, is_during_search: false, no_results: true };
            self.shared.out.send(&line(&reply));
        }
    }

    /// Lets the threads finish the queue, then joins them.
    pub fn close(&mut self) {
        self.shared.lock().closing = true;
        self.shared.work.notify_all();
        for thread in self.threads.drain(..) {
            // A job's panic is a bug; the other threads' work is still written.
            let _ = thread.join();
        }
    }
}

impl Drop for Pool {
    fn drop(&mut self) {
        self.close();
    }
}

/// An analysis thread: the queue's best job at a time, until the queue is closed and empty.
fn serve(shared: &Shared) {
    let mut slot: Slot = None;
    loop {
        let mut queue = shared.lock();
        let queued = loop {
            if let Some(queued) = queue.waiting.pop() {
                break queued;
            }
            if queue.closing {
                return;
            }
            queue = shared.work.wait(queue).unwrap_or_else(PoisonError::into_inner);
        };
        let cancel = Arc::clone(&queued.cancel);
        queue.running.push(Running {
            id: Arc::clone(&queued.job.id),
            turn: queued.job.turn,
            cancel: Arc::clone(&cancel),
        });
        drop(queue);
        (queued.job.run)(&mut slot, &JobContext { cancel: &cancel, out: &shared.out });
        shared.lock().running.retain(|r| !Arc::ptr_eq(&r.cancel, &cancel));
    }
}
