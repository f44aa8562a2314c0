//! The view a running search gives of its root ([`Snapshot`]), and the [`Control`]
//! through which a [`SearchHandle`](super::SearchHandle) asks for it and for a stop.
//!
//! The search's [`Stopper`](super::stop::Stopper) consults the control once per chunk of
//! iterations, where every driver's workers already stop to look at the clock: a stop
//! flag, and requests for a view of the root. A request is answered by a worker of each
//! tree from the tree it is searching, at a chunk boundary, so a snapshot reads no tree
//! another thread owns (an exclusive tree is read by its own worker) and costs nothing
//! while none is asked for.

use std::sync::{Condvar, Mutex, MutexGuard, PoisonError};
use std::time::{Duration, Instant};

use super::error::SearchError;
use super::result::{merge_root_children, principal_variation, root_children, RootChild, SearchResult};
use crate::atomics::{AtomicBool, Ordering};
use crate::games::Move;
use crate::tree::{Expansion, NodeId, Proof, TreeOps};

/// How long [`super::SearchHandle::snapshot`] waits for every tree's answer; past it, a tree that
/// has not answered (its worker descheduled on a loaded machine) is shown as it last was.
const SNAPSHOT_WAIT: Duration = Duration::from_millis(100);

/// The plies of a snapshot child's principal variation, at most.
const PV_PLIES: usize = 32;

/// A view of a running (or finished) search's root: what a GUI shows ten times a second.
#[derive(Clone, Debug, PartialEq)]
pub struct Snapshot {
    /// Playouts so far: the root's visits gained since the search started (walks in
    /// flight included, each counted once).
    pub playouts: u64,
    /// Time since the search started.
    pub elapsed: Duration,
    /// Every root move, in move order.
    pub children: Vec<SnapshotChild>,
    /// Whether the search has ended (the children are then the result's).
    pub finished: bool,
}

impl Snapshot {
    /// Playouts per second so far.
    pub fn rate(&self) -> f64 {
        self.playouts as f64 / self.elapsed.as_secs_f64().max(1e-9)
    }

    /// The root's value for its side to move: the children's mean result, weighted by
    /// their visits (`None` before the first visit).
    pub fn root_value(&self) -> Option<f64> {
        let visits: u64 = self.children.iter().map(|c| c.visits).sum();
        (visits > 0).then(|| self.children.iter().map(|c| c.value * c.visits as f64).sum::<f64>() / visits as f64)
    }

    /// The most visited root move so far.
    pub fn best(&self) -> Option<&SnapshotChild> {
        self.children.iter().filter(|c| c.visits > 0).max_by_key(|c| c.visits)
    }
}

/// One root move of a [`Snapshot`].
#[derive(Clone, Debug, PartialEq)]
pub struct SnapshotChild {
    /// The move.
    pub mv: Move,
    /// Playouts through it (walks in flight included).
    pub visits: u64,
    /// Its mean result for the side to move at the root, in [0, 1] (draw = 0.5; 0.5
    /// before its first visit).
    pub value: f64,
    /// Its prior in [0, 1] (progressive bias's share of the move's strength; 0 where the
    /// search keeps none).
    pub prior: f64,
    /// Its value for the side to move at the root, if the solver proved it.
    pub proof: Proof,
    /// The move, then the most visited child at each ply below it.
    pub pv: Vec<Move>,
}

impl SnapshotChild {
    /// A lower confidence bound of [`SnapshotChild::value`]: the value less 1.96
    /// standard errors of a mean of `visits` results in [0, 1] (the normal
    /// approximation), at least 0. Leela Zero's and KataGo's `lcb`.
    pub fn lower_bound(&self) -> f64 {
        let n = self.visits.max(1) as f64;
        (self.value - 1.96 * (self.value * (1.0 - self.value) / n).sqrt()).max(0.0)
    }
}

/// The handle's side of a running search, consulted by its [`Stopper`](super::stop::Stopper).
#[derive(Debug, Default)]
pub(crate) struct Control {
    /// Set by [`SearchHandle::stop`](super::SearchHandle::stop): every worker stops at its next chunk.
    stop: AtomicBool,
    /// Whether a tree has yet to answer the latest request: the one look a worker takes
    /// per chunk while nothing is asked.
    pending: AtomicBool,
    views: Mutex<Views>,
    answered: Condvar,
}

/// The trees' latest answers, and what a snapshot needs besides.
#[derive(Debug, Default)]
struct Views {
    /// The latest request's number (0: none yet).
    asked: u64,
    /// One view per tree of the running search.
    trees: Vec<TreeView>,
    /// Whether the trees' views add up (each tree holds its own playouts), or each holds
    /// the others' too (synced trees) and the fullest one is the search's view.
    summed: bool,
    /// When the run started.
    started: Option<Instant>,
    /// The result, once the run has ended.
    finished: Option<Snapshot>,
}

/// One tree's answer.
#[derive(Debug)]
struct TreeView {
    /// The tree ([`TreeOps::arena_id`]).
    arena: usize,
    /// The request it last answered.
    answered: u64,
    /// Its root's visits when the workers started (kept by tree reuse).
    visits_at_start: u64,
    /// Its root's children, with their priors and principal variations.
    children: Vec<(RootChild, u16, Vec<Move>)>,
}

fn lock(views: &Mutex<Views>) -> MutexGuard<'_, Views> {
    // A panicking worker leaves views a snapshot can still read.
    views.lock().unwrap_or_else(PoisonError::into_inner)
}

impl Control {
    /// Whether the handle asked the search to stop.
    #[inline]
    pub(crate) fn stop_requested(&self) -> bool {
        // ORDERING: Relaxed: a flag to stop; the result is read after the workers join.
        self.stop.load(Ordering::Relaxed)
    }

    pub(super) fn request_stop(&self) {
        // ORDERING: Relaxed: pairs with `stop_requested`; only a stop.
        self.stop.store(true, Ordering::Relaxed);
    }

    /// Called by the search when its workers are about to start on `trees` (each root
    /// expanded: its arena's id and the root's visits kept from before); `summed` as in
    /// [`Views::summed`].
    pub(crate) fn begin(&self, trees: impl Iterator<Item = (usize, u64)>, summed: bool) {
        let mut views = lock(&self.views);
        views.trees = trees
            .map(|(arena, visits_at_start)| TreeView { arena, answered: 0, visits_at_start, children: Vec::new() })
            .collect();
        views.summed = summed;
        views.started = Some(Instant::now());
    }

    /// Answers the latest request with `tree`'s root, if it has not yet: called by a
    /// worker between chunks, when it has no walk in flight.
    #[inline]
    pub(crate) fn serve<T: TreeOps>(&self, tree: &mut T) {
        // ORDERING: Relaxed: a hint; the request itself is read under the lock.
        if self.pending.load(Ordering::Relaxed) {
            self.answer(tree);
        }
    }

    #[cold]
    fn answer<T: TreeOps>(&self, tree: &mut T) {
        let mut views = lock(&self.views);
        let (asked, arena) = (views.asked, tree.arena_id());
        let Some(view) = views.trees.iter_mut().find(|v| v.arena == arena && v.answered < asked) else { return };
        let children = root_children(tree);
        let mut priors = vec![0u16; children.len()];
        if let Expansion::Expanded { first, count } = tree.expansion(NodeId::ROOT) {
            tree.scan_children::<false, false>(first, count, false, |i, child| {
                priors[i as usize] = child.prior;
                std::ops::ControlFlow::Continue(())
            });
        }
        view.children = children
            .into_iter()
            .zip(priors)
            .map(|(child, prior)| {
                let pv = if child.visits > 0 { principal_variation(tree, child.mv, PV_PLIES) } else { vec![child.mv] };
                (child, prior, pv)
            })
            .collect();
        view.answered = asked;
        if views.trees.iter().all(|v| v.answered >= asked) {
            // ORDERING: Relaxed: under the lock, as every write of the request.
            self.pending.store(false, Ordering::Relaxed);
            self.answered.notify_all();
        }
    }

    /// Waits at most `timeout` for the run's end; whether it has ended.
    pub(super) fn wait_finished(&self, timeout: Duration) -> bool {
        let until = Instant::now() + timeout;
        let mut views = lock(&self.views);
        while views.finished.is_none() {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                return false;
            }
            views = self.answered.wait_timeout(views, left).unwrap_or_else(PoisonError::into_inner).0;
        }
        true
    }

    /// Records the run's end: later snapshots show its result.
    pub(super) fn finish(&self, result: &Result<SearchResult, SearchError>) {
        let mut views = lock(&self.views);
        let last = merge(&views, Duration::ZERO);
        let finished = match result {
            Ok(result) => Snapshot {
                playouts: result.playouts,
                elapsed: result.elapsed,
                children: result
                    .children
                    .iter()
                    .map(|c| {
                        let seen = last.children.iter().find(|s| s.mv == c.mv);
                        let pv = if Some(c.mv) == result.best_move {
                            result.pv.clone()
                        } else {
                            seen.map_or_else(|| vec![c.mv], |s| s.pv.clone())
                        };
                        let prior = seen.map_or(0.0, |s| s.prior);
                        SnapshotChild { mv: c.mv, visits: c.visits, value: c.value, prior, proof: c.proof, pv }
                    })
                    .collect(),
                finished: true,
            },
            Err(_) => Snapshot { finished: true, ..last },
        };
        views.finished = Some(finished);
        // ORDERING: Relaxed: under the lock; no worker is left to answer.
        self.pending.store(false, Ordering::Relaxed);
        self.answered.notify_all();
    }

    /// Asks every tree for its root and waits for the answers (at most [`SNAPSHOT_WAIT`]).
    pub(super) fn snapshot(&self) -> Snapshot {
        let mut views = lock(&self.views);
        if let Some(finished) = &views.finished {
            return finished.clone();
        }
        views.asked += 1;
        let asked = views.asked;
        // ORDERING: Relaxed: under the lock; workers read the request under it too.
        self.pending.store(true, Ordering::Relaxed);
        let until = Instant::now() + SNAPSHOT_WAIT;
        while views.finished.is_none() && views.trees.iter().any(|v| v.answered < asked) {
            let left = until.saturating_duration_since(Instant::now());
            if left.is_zero() {
                break;
            }
            views = self.answered.wait_timeout(views, left).unwrap_or_else(PoisonError::into_inner).0;
        }
        match &views.finished {
            Some(finished) => finished.clone(),
            None => merge(&views, views.started.map_or(Duration::ZERO, |s| s.elapsed())),
        }
    }
}

/// The trees' latest views summed by move ([`merge_root_children`]: visits and half
/// points exactly), or the fullest alone where each tree holds the others' visits; each
/// move's prior and principal variation from the tree that visited it most.
fn merge(views: &Views, elapsed: Duration) -> Snapshot {
    let visits_of = |t: &TreeView| t.children.iter().map(|(c, _, _)| c.visits).sum::<u64>();
    let fullest = views.trees.iter().max_by_key(|t| visits_of(t));
    let trees: Vec<&TreeView> = if views.summed { views.trees.iter().collect() } else { fullest.into_iter().collect() };
    let per_tree: Vec<Vec<RootChild>> = trees.iter().map(|t| t.children.iter().map(|(c, _, _)| *c).collect()).collect();
    let children: Vec<SnapshotChild> = merge_root_children(&per_tree)
        .into_iter()
        .map(|merged| {
            let seen = trees.iter().flat_map(|t| &t.children).filter(|(c, _, _)| c.mv == merged.mv);
            let (_, prior, pv) = seen.max_by_key(|(c, _, _)| c.visits).expect("merged from these views");
            let value = if merged.visits == 0 { 0.5 } else { merged.half_points as f64 / (2 * merged.visits) as f64 };
            let prior = f64::from(*prior) / f64::from(u16::MAX);
            SnapshotChild { mv: merged.mv, visits: merged.visits, value, prior, proof: merged.proof, pv: pv.clone() }
        })
        .collect();
    let visits: u64 = children.iter().map(|c| c.visits).sum();
    let at_start: u64 = trees.iter().map(|t| t.visits_at_start).sum();
    Snapshot { playouts: visits.saturating_sub(at_start), elapsed, children, finished: false }
}
