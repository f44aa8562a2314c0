//! The queue between a search's workers and a batched evaluator: workers [`submit`]
//! leaves, which are gathered into a [`Batch`] until it is full, until every walk in
//! flight waits in it, or until the oldest has waited `eval-wait-us`; an evaluator thread
//! ([`EvalQueue::serve`]) or, with none, a waiting worker ([`EvalQueue::wait`]) runs the
//! evaluator on it, and each leaf's answer goes to its worker's mailbox.
//!
//! Nothing here touches a tree: a batch holds copies of the positions, and the answers
//! carry only values and priors, so an evaluator thread may still be running after the
//! workers are done with the tree.
//!
//! [`submit`]: EvalQueue::submit

use std::collections::VecDeque;
use std::sync::{Condvar, Mutex, MutexGuard, OnceLock, PoisonError};
use std::time::{Duration, Instant};

use crate::atomics::{AtomicU64, Ordering};
use crate::games::Game;

use super::{Batch, EvalError, Evaluator};

/// Which walk a leaf belongs to: its worker and the worker's slot for it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct Ticket {
    /// The worker's index.
    pub worker: u32,
    /// The worker's slot for the walk.
    pub slot: u32,
}

/// The answer for one leaf: its value (NaN when its batch failed) and the range of its
/// priors in the [`Inbox`]'s `priors`.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Answer {
    /// The worker's slot for the walk.
    pub slot: u32,
    /// The probability that the leaf's side to move wins; NaN: the evaluation failed.
    pub value: f32,
    /// Where its priors are in [`Inbox::priors`] (an empty range: none asked for).
    pub priors: (u32, u32),
}

/// A worker's answers, swapped out of its mailbox at once.
#[derive(Debug, Default)]
pub(crate) struct Inbox {
    /// The answers.
    pub answers: Vec<Answer>,
    /// Their priors, back to back.
    pub priors: Vec<f32>,
}

impl Inbox {
    /// Empties the inbox, keeping its memory.
    fn clear(&mut self) {
        self.answers.clear();
        self.priors.clear();
    }
}

/// Leaves gathered for the next batch, and what the queue counts under its lock.
#[derive(Debug)]
struct Gathering<G> {
    /// The batch being filled.
    batch: Batch<G>,
    tickets: Vec<Ticket>,
    /// When the oldest leaf of `batch` arrived.
    since: Option<Instant>,
    /// Full batches not yet taken (every evaluator busy), oldest first.
    full: VecDeque<(Batch<G>, Vec<Ticket>)>,
    /// The leaves in `full`.
    queued: usize,
    /// Leaves taken for evaluation and not yet answered.
    evaluating: usize,
    /// Workers that have stopped starting walks (the batches then go without waiting).
    draining: usize,
    /// Batches to reuse.
    spare: Vec<(Batch<G>, Vec<Ticket>)>,
    /// Set once every worker is done: the evaluator threads return.
    closed: bool,
}

/// How a batch goes to the evaluator: its size, the walks in flight in all, and the
/// longest wait to fill it.
#[derive(Clone, Copy, Debug)]
pub(crate) struct BatchShape {
    /// Leaves per batch, at most.
    pub size: usize,
    /// Walks in flight per worker, at most.
    pub per_worker: usize,
    /// Workers.
    pub workers: usize,
    /// The longest the oldest leaf of a batch waits for it to fill.
    pub wait: Duration,
}

/// The queue of one search (see the module's documentation).
#[derive(Debug)]
pub(crate) struct EvalQueue<G> {
    shape: BatchShape,
    gathering: Mutex<Gathering<G>>,
    /// Evaluator threads wait here for a batch to go.
    ready: Condvar,
    mailboxes: Vec<(Mutex<Inbox>, Condvar)>,
    /// The first failure of the evaluator.
    error: OnceLock<EvalError>,
    /// Batches run, by size (index 0 unused).
    sizes: Vec<AtomicU64>,
}

/// Locks `mutex`, going on after a panic elsewhere (the data stays consistent: every
/// critical section leaves it so before anything that may panic).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

impl<G: Game> EvalQueue<G> {
    /// A queue for batches of `shape`.
    pub(crate) fn new(shape: BatchShape) -> EvalQueue<G> {
        let gathering = Gathering {
            batch: Batch::new(),
            tickets: Vec::with_capacity(shape.size),
            since: None,
            full: VecDeque::new(),
            queued: 0,
            evaluating: 0,
            draining: 0,
            spare: Vec::new(),
            closed: false,
        };
        EvalQueue {
            shape,
            gathering: Mutex::new(gathering),
            ready: Condvar::new(),
            mailboxes: (0..shape.workers).map(|_| (Mutex::new(Inbox::default()), Condvar::new())).collect(),
            error: OnceLock::new(),
            sizes: (0..=shape.size).map(|_| AtomicU64::new(0)).collect(),
        }
    }

    /// The walks each worker keeps in flight, at most.
    pub(crate) fn per_worker(&self) -> usize {
        self.shape.per_worker
    }

    /// The first failure of the evaluator, if any.
    pub(crate) fn error(&self) -> Option<&EvalError> {
        self.error.get()
    }

    /// The number of batches run of each size from 1 (index 0: size 1).
    pub(crate) fn batch_sizes(&self) -> Vec<u64> {
        // ORDERING: Relaxed: read after the threads that counted are joined.
        self.sizes[1..].iter().map(|n| n.load(Ordering::Relaxed)).collect()
    }

    /// Adds the leaf `position` of the walk `ticket` (with `priors`: its priors are asked
    /// for too).
    pub(crate) fn submit(&self, position: G, priors: bool, ticket: Ticket) {
        let mut g = lock(&self.gathering);
        if g.batch.is_empty() {
            g.since = Some(Instant::now());
        }
        g.batch.push(position, priors);
        g.tickets.push(ticket);
        if g.batch.len() == self.shape.size {
            // Full: queued whole, a new one begun.
            let spare = g.spare.pop().unwrap_or_else(|| (Batch::new(), Vec::with_capacity(self.shape.size)));
            let batch = std::mem::replace(&mut g.batch, spare.0);
            let tickets = std::mem::replace(&mut g.tickets, spare.1);
            g.queued += batch.len();
            g.full.push_back((batch, tickets));
            g.since = None;
        }
        // The first leaf starts an evaluator's wait; a batch ready to go ends it.
        if g.batch.len() == 1 || self.goes(&g, None) {
            self.ready.notify_one();
        }
    }

    /// Whether the gathered batch goes now (`now`: the clock, where its wait counts).
    fn goes(&self, g: &Gathering<G>, now: Option<Instant>) -> bool {
        let n = g.batch.len();
        !g.full.is_empty()
            || n > 0
                && (g.draining > 0
                // Every walk that can be in flight is gathered or being evaluated: no
                // worker can add one before an answer comes.
                || n + g.queued + g.evaluating >= self.shape.per_worker * self.shape.workers
                || now.zip(g.since).is_some_and(|(now, since)| now >= since + self.shape.wait))
    }

    /// Takes the oldest full batch, else the one being filled if it goes now.
    fn take_ready(&self, g: &mut Gathering<G>) -> Option<(Batch<G>, Vec<Ticket>)> {
        if let Some((batch, tickets)) = g.full.pop_front() {
            g.queued -= batch.len();
            g.evaluating += batch.len();
            return Some((batch, tickets));
        }
        if !self.goes(g, Some(Instant::now())) {
            return None;
        }
        let (batch, tickets) = g.spare.pop().unwrap_or_else(|| (Batch::new(), Vec::with_capacity(self.shape.size)));
        let batch = std::mem::replace(&mut g.batch, batch);
        let tickets = std::mem::replace(&mut g.tickets, tickets);
        g.evaluating += batch.len();
        g.since = None;
        Some((batch, tickets))
    }

    /// Says that a worker has stopped starting walks: from now on, batches go without
    /// waiting to fill.
    pub(crate) fn drain(&self) {
        lock(&self.gathering).draining += 1;
        self.ready.notify_all();
    }

    /// Says that every worker is done: the evaluator threads return once idle.
    pub(crate) fn close(&self) {
        lock(&self.gathering).closed = true;
        self.ready.notify_all();
    }

    /// An evaluator thread: runs `evaluator` on each batch as it goes, until the queue
    /// is closed.
    pub(crate) fn serve(&self, evaluator: &dyn Evaluator<G>) {
        loop {
            let taken = {
                let mut g = lock(&self.gathering);
                loop {
                    if let Some(taken) = self.take_ready(&mut g) {
                        break Some(taken);
                    }
                    if g.closed {
                        break None;
                    }
                    g = match g.since {
                        Some(since) => {
                            let left = (since + self.shape.wait).saturating_duration_since(Instant::now());
                            self.ready.wait_timeout(g, left).unwrap_or_else(PoisonError::into_inner).0
                        }
                        None => self.ready.wait(g).unwrap_or_else(PoisonError::into_inner),
                    };
                }
            };
            match taken {
                Some((batch, tickets)) => self.evaluate(evaluator, batch, tickets),
                None => return,
            }
        }
    }

    /// Waits for worker `worker`'s answers and swaps them into `inbox` (emptied first).
    /// With `evaluator` (no evaluator threads), the waiting worker runs the batches that
    /// go meanwhile itself.
    pub(crate) fn wait(&self, worker: usize, inbox: &mut Inbox, evaluator: Option<&dyn Evaluator<G>>) {
        inbox.clear();
        let (mailbox, arrived) = &self.mailboxes[worker];
        loop {
            let pause = match evaluator {
                Some(evaluator) => {
                    let taken = self.take_ready(&mut lock(&self.gathering));
                    if let Some((batch, tickets)) = taken {
                        self.evaluate(evaluator, batch, tickets);
                    }
                    // Until the gathered batch's wait is over, or briefly when none is
                    // gathered here (another worker may be running the batch this one waits for).
                    let since = lock(&self.gathering).since;
                    since.map_or(Duration::from_micros(100), |s| {
                        (s + self.shape.wait).saturating_duration_since(Instant::now())
                    })
                }
                None => Duration::from_millis(10),
            };
            let mut mine = lock(mailbox);
            if mine.answers.is_empty() {
                mine = arrived.wait_timeout(mine, pause).unwrap_or_else(PoisonError::into_inner).0;
            }
            if !mine.answers.is_empty() {
                std::mem::swap(&mut *mine, inbox);
                return;
            }
        }
    }

    /// Runs `evaluator` on `batch`, checks what it left, counts the batch, and posts each
    /// leaf's answer to its worker (NaN values when it failed).
    fn evaluate(&self, evaluator: &dyn Evaluator<G>, mut batch: Batch<G>, tickets: Vec<Ticket>) {
        let outcome = evaluator.evaluate(&mut batch).and_then(|()| batch.check());
        // ORDERING: Relaxed: a count, read after the joins.
        self.sizes[batch.len()].fetch_add(1, Ordering::Relaxed);
        let failed = outcome.is_err();
        if let Err(error) = outcome {
            let _ = self.error.set(error);
        }
        for (i, ticket) in tickets.iter().enumerate() {
            let (mailbox, arrived) = &self.mailboxes[ticket.worker as usize];
            let mut inbox = lock(mailbox);
            let start = inbox.priors.len() as u32;
            let value = if failed { f32::NAN } else { batch.value(i) };
            if !failed {
                inbox.priors.extend_from_slice(batch.priors(i));
            }
            let end = inbox.priors.len() as u32;
            inbox.answers.push(Answer { slot: ticket.slot, value, priors: (start, end) });
            drop(inbox);
            arrived.notify_one();
        }
        let mut g = lock(&self.gathering);
        g.evaluating -= batch.len();
        let (mut batch, mut tickets) = (batch, tickets);
        batch.clear();
        tickets.clear();
        g.spare.push((batch, tickets));
    }
}
