//! Walks in flight for a batched evaluator (`eval-batch`): the worker loop of the modes
//! that evaluate in batches (seq and tree). Each worker keeps up to its share of
//! `eval-in-flight` walks in flight, spread by virtual loss; each walk's leaf goes to the
//! search's [`EvalQueue`], and the worker finishes the walks (expansion with the answer's
//! priors, back-up of its value) as the answers come. A walk whose value is known without
//! the evaluator (a proven node, a finished game) is finished at once.
//!
//! A worker stops starting walks when the [`Stopper`](crate::search::stop::Stopper)
//! says stop, then waits for the answers of its walks in flight and finishes them, so a
//! playout budget is spent exactly and the tree is quiescent when the driver returns. A
//! failed evaluation ends its walks without a result (virtual loss taken back, a claimed
//! leaf expanded with no priors), and the search stops with the error.

use std::time::Duration;

use crate::evaluator::queue::{BatchShape, EvalQueue, Inbox, Ticket};
use crate::games::SearchGame;
use crate::search::config::SearchConfig;
use crate::search::iteration::{Step, Walk, Worker};
use crate::search::stop::PlayoutBudget;
use crate::tree::TreeOps;

use super::Job;

/// Runs `f` with the queue of `job`'s batches for `workers` workers, and the search's
/// evaluator threads serving it (`eval-threads`; none: the workers serve it themselves).
/// Records the batch sizes in `job.batch_sizes`.
pub(crate) fn with_queue<G: SearchGame, R>(job: &Job<'_, G>, workers: usize, f: impl FnOnce(&EvalQueue<G>) -> R) -> R {
    let config = job.config;
    let shape = BatchShape {
        size: config.eval_batch as usize,
        per_worker: walks_per_worker(config, workers),
        workers,
        wait: Duration::from_micros(u64::from(config.eval_wait_us)),
    };
    let queue = EvalQueue::new(shape);
    let result = std::thread::scope(|scope| {
        if let Some(evaluator) = job.params.evaluator {
            for _ in 0..config.eval_threads {
                scope.spawn(|| queue.serve(evaluator));
            }
        }
        // Closed on the way out, even when a worker panics: the evaluator threads return
        // and the scope can end (and the panic go on).
        let _closing = Closing(&queue);
        f(&queue)
    });
    let _ = job.batch_sizes.set(queue.batch_sizes());
    result
}

/// The walks in flight each of `workers` workers keeps for `config`'s batches: its share
/// of `eval-in-flight` (twice the batch when unset), at least one.
pub(crate) fn walks_per_worker(config: &SearchConfig, workers: usize) -> usize {
    let in_flight = config.eval_in_flight.map_or(2 * config.eval_batch as usize, |n| n as usize);
    in_flight.div_ceil(workers).max(1)
}

/// Closes its queue when dropped.
struct Closing<'q, G: SearchGame>(&'q EvalQueue<G>);

impl<G: SearchGame> Drop for Closing<'_, G> {
    fn drop(&mut self) {
        self.0.close();
    }
}

/// Runs worker `index` of `job` on `tree` with its walks' leaves going to `queue`,
/// drawing playouts from `budget`, until the stopper says stop and its walks in flight
/// are finished.
pub(crate) fn run_batched<G: SearchGame, T: TreeOps, B: PlayoutBudget>(
    tree: &mut T,
    job: &Job<'_, G>,
    worker: &mut Worker,
    index: usize,
    queue: &EvalQueue<G>,
    budget: B,
) {
    if job.params.solver {
        walks::<G, T, B, true>(tree, job, worker, index, queue, budget);
    } else {
        walks::<G, T, B, false>(tree, job, worker, index, queue, budget);
    }
}

/// A walk waiting for its answer, and the path buffer it holds meanwhile.
struct Parked<G> {
    walk: Option<Walk<G>>,
    path: Vec<Step>,
}

fn walks<G: SearchGame, T: TreeOps, B: PlayoutBudget, const SOLVER: bool>(
    tree: &mut T,
    job: &Job<'_, G>,
    worker: &mut Worker,
    index: usize,
    queue: &EvalQueue<G>,
    mut budget: B,
) {
    let (root, mut params) = (job.root, job.params);
    let serve_here = if job.config.eval_threads == 0 { params.evaluator } else { None };
    let mut parked: Vec<Parked<G>> =
        (0..queue.per_worker()).map(|_| Parked { walk: None, path: Vec::with_capacity(64) }).collect();
    let mut free: Vec<u32> = (0..parked.len() as u32).rev().collect();
    let (mut granted, mut draining, mut inbox) = (0, false, Inbox::default());
    loop {
        while !draining && !free.is_empty() {
            if granted == 0 {
                worker.flush(tree);
                granted =
                    job.stopper.next_paced_chunk(tree, &mut budget, &mut params.uct, job.params.uct.halving_budget);
                if granted == 0 || worker.eval_error.is_some() || queue.error().is_some() {
                    draining = true;
                    queue.drain();
                    break;
                }
            }
            granted -= 1;
            let walk = worker.start_walk::<G, T, SOLVER>(tree, root, params);
            if walk.exact.is_some() || walk.state.outcome().is_some() {
                worker.finish_walk::<G, T, SOLVER>(tree, params, walk);
                continue;
            }
            let slot = free.pop().unwrap_or_default();
            let spot = &mut parked[slot as usize];
            std::mem::swap(&mut worker.paths[0], &mut spot.path);
            queue.submit(walk.state.clone(), walk.claimed, Ticket { worker: index as u32, slot });
            spot.walk = Some(walk);
        }
        if free.len() == parked.len() {
            if draining {
                break;
            }
            continue;
        }
        queue.wait(index, &mut inbox, serve_here);
        for answer in &inbox.answers {
            let spot = &mut parked[answer.slot as usize];
            let Some(walk) = spot.walk.take() else { continue };
            std::mem::swap(&mut worker.paths[0], &mut spot.path);
            free.push(answer.slot);
            if answer.value.is_nan() {
                worker.drop_walk(tree, params, &walk);
                if let Some(error) = queue.error() {
                    worker.eval_error.get_or_insert_with(|| error.clone());
                }
                continue;
            }
            let priors = &inbox.priors[answer.priors.0 as usize..answer.priors.1 as usize];
            // The priors are for the leaf's legal moves, in generation order.
            let legal = if priors.is_empty() { None } else { Some(walk.state.legal_moves()) };
            let moves = legal.as_ref().map_or(&[][..], |m| m.as_ref());
            worker.finish_valued_walk::<G, T, SOLVER>(tree, params, walk, answer.value, (moves, priors));
        }
    }
    worker.flush(tree);
}
