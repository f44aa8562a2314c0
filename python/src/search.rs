//! `parmcts.search` and `parmcts.start`: a search of a [`Position`](crate::position::Position)
//! with the library's settings by name, the GIL released while it runs; the result is
//! the dict `parmcts search --json` prints. `start` returns a [`PySearchHandle`].

use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, PoisonError};
use std::time::Duration;

use parmcts::games::Encoder;
use parmcts::harness::report::SearchReport;
use parmcts::search::{Finished, SnapshotChild};
use parmcts::{Move, Search, SearchConfig, SearchError, SearchGame, SearchHandle, SearchResult};
use pyo3::exceptions::{PyRuntimeError, PyValueError};
use pyo3::prelude::*;
use pyo3::types::PyDict;
use pythonize::pythonize;
use serde::Serialize;

use crate::evaluator::{Linear, LinearEvaluator, PyEvaluator};
use crate::position::config_of;
use crate::{EvaluatorError, SearchError as PySearchError};

/// The playout budget when neither `playouts` nor `time_ms` is given (`parmcts search`'s).
pub const DEFAULT_PLAYOUTS: u64 = 100_000;

/// What to do with a position: search it now, or start a search and return its handle.
pub struct SearchJob<'py> {
    pub py: Python<'py>,
    pub settings: Vec<(String, String)>,
    pub evaluator: Option<Py<PyAny>>,
    pub start: bool,
}

/// The typed side of a job (called through `AnyGame::run`).
pub fn run_typed<G: SearchGame + Send + Sync + 'static>(
    game: &G,
    encoder: Option<Encoder<G>>,
    job: SearchJob<'_>,
) -> PyResult<Py<PyAny>> {
    let py = job.py;
    let config = config_of(&job.settings, DEFAULT_PLAYOUTS)?;
    let mut search = Search::new(config).map_err(|e| failure(&e, None))?;
    let evaluator = match job.evaluator {
        None => None,
        Some(callable) => {
            let Some(encoder) = encoder else {
                return Err(PyValueError::new_err(format!(
                    "evaluator: {} has no input encoding for a network (docs/EVALUATORS.md lists the games that do)",
                    G::NAME
                )));
            };
            if let Ok(model) = callable.bind(py).cast::<LinearEvaluator>() {
                let linear = Linear::new(model.get(), encoder).ok_or_else(|| {
                    let inputs = encoder.planes * encoder.height * encoder.width;
                    let given = model.get().weights.len();
                    PyValueError::new_err(format!(
                        "LinearEvaluator: {given} weights for {} inputs of {inputs}",
                        G::NAME
                    ))
                })?;
                search.set_evaluator(Arc::new(linear) as Arc<dyn parmcts::Evaluator<G>>);
                return finish(py, search, game, job.start, None);
            }
            let evaluator = Arc::new(PyEvaluator::new(callable, encoder));
            search.set_evaluator(Arc::clone(&evaluator) as Arc<dyn parmcts::Evaluator<G>>);
            Some(evaluator)
        }
    };
    finish(py, search, game, job.start, evaluator)
}

/// Runs `search` on `game` with the GIL released (or starts it, with `start`), and
/// reports.
fn finish<G: SearchGame + Send + Sync + 'static>(
    py: Python<'_>,
    mut search: Search,
    game: &G,
    start: bool,
    evaluator: Option<Arc<PyEvaluator<G>>>,
) -> PyResult<Py<PyAny>> {
    let root = game.clone();
    if start {
        let handle = search.start(root.clone()).map_err(|refused| failure(&refused.error, None))?;
        let handle = PySearchHandle::new(handle, root, evaluator);
        return Ok(Py::new(py, handle)?.into_any());
    }
    let result = py.detach(|| search.run(&root));
    let result = result.map_err(|e| failure(&e, evaluator.as_deref().map(|ev| ev as &dyn ErrorSource)))?;
    report(py, &root, &result, search.config(), evaluator.as_deref())
}

/// `_time_searches(position, n, **settings)`: the seconds `n` searches take in Rust
/// alone (configuration, allocation, search), the baseline of the bindings' per-call
/// overhead (python/benchmarks/bindings.py).
pub fn time_searches<G: SearchGame + Send + Sync>(
    py: Python<'_>,
    game: &G,
    n: usize,
    settings: &[(String, String)],
) -> PyResult<f64> {
    let config = config_of(settings, DEFAULT_PLAYOUTS)?;
    let elapsed = py.detach(|| {
        let started = std::time::Instant::now();
        for _ in 0..n {
            let mut search = Search::new(config.clone())?;
            std::hint::black_box(search.run(game)?);
        }
        Ok::<_, SearchError>(started.elapsed())
    });
    Ok(elapsed.map_err(|e| failure(&e, None))?.as_secs_f64())
}

/// The search's report as a dict, with the Python evaluator's figures where there is one.
fn report<G: SearchGame>(
    py: Python<'_>,
    root: &G,
    result: &SearchResult,
    config: &SearchConfig,
    evaluator: Option<&PyEvaluator<G>>,
) -> PyResult<Py<PyAny>> {
    let dict = to_python(py, &SearchReport::new(root, result, config))?;
    if let Some(ev) = evaluator {
        let stats = PyDict::new(py);
        stats.set_item("calls", ev.stats.calls.load(Ordering::Relaxed))?;
        stats.set_item("positions", ev.stats.positions.load(Ordering::Relaxed))?;
        stats.set_item("largest_batch", ev.stats.largest.load(Ordering::Relaxed))?;
        stats.set_item("gil_seconds", ev.stats.gil_ns.load(Ordering::Relaxed) as f64 * 1e-9)?;
        dict.bind(py).set_item("evaluator", stats)?;
    }
    Ok(dict)
}

/// `value` as Python objects (dicts, lists, numbers, strings).
pub fn to_python(py: Python<'_>, value: &impl Serialize) -> PyResult<Py<PyAny>> {
    Ok(pythonize(py, value).map_err(|e| PyRuntimeError::new_err(e.to_string()))?.unbind())
}

/// Where the exception behind an evaluator's failure is kept.
pub trait ErrorSource {
    fn take_error(&self) -> Option<PyErr>;
}

impl<G> ErrorSource for PyEvaluator<G> {
    fn take_error(&self) -> Option<PyErr> {
        self.error.lock().unwrap_or_else(PoisonError::into_inner).take()
    }
}

/// A search error as a Python exception: bad settings `ValueError`; an evaluator's
/// failure `EvaluatorError` (its exception, if it raised one, as the cause); the rest
/// `SearchError`.
pub fn failure(error: &SearchError, source: Option<&dyn ErrorSource>) -> PyErr {
    match error {
        SearchError::Config(e) => PyValueError::new_err(e.to_string()),
        SearchError::Evaluator(_) => {
            let raised = EvaluatorError::new_err(error.to_string());
            if let Some(cause) = source.and_then(ErrorSource::take_error) {
                Python::attach(|py| raised.set_cause(py, Some(cause)));
            }
            raised
        }
        e => PySearchError::new_err(e.to_string()),
    }
}

/// One root move of a snapshot, for Python.
#[derive(Serialize)]
struct ChildView {
    #[serde(rename = "move")]
    mv: String,
    visits: u64,
    value: f64,
    prior: f64,
    lcb: f64,
    pv: Vec<String>,
}

/// A snapshot, for Python.
#[derive(Serialize)]
struct SnapshotView {
    playouts: u64,
    elapsed_ms: f64,
    playouts_per_sec: f64,
    finished: bool,
    best_move: Option<String>,
    children: Vec<ChildView>,
}

type Reporter = Box<dyn Fn(Python<'_>, &Finished) -> PyResult<Py<PyAny>> + Send + Sync>;
type Namer = Box<dyn Fn(Move) -> String + Send + Sync>;

/// A search running on its own thread (`parmcts.start`): ``snapshot()``, ``stop()``,
/// ``wait()``, ``is_finished()``. Dropping it stops the search.
#[pyclass(module = "parmcts", name = "SearchHandle", frozen)]
pub struct PySearchHandle {
    handle: Mutex<Option<SearchHandle>>,
    name: Namer,
    report: Reporter,
}

impl PySearchHandle {
    fn new<G: SearchGame + Send + Sync + 'static>(
        handle: SearchHandle,
        root: G,
        evaluator: Option<Arc<PyEvaluator<G>>>,
    ) -> PySearchHandle {
        let named = root.clone();
        let report: Reporter = Box::new(move |py, finished| {
            let source = evaluator.as_deref().map(|ev| ev as &dyn ErrorSource);
            let result = finished.result.as_ref().map_err(|e| failure(e, source))?;
            report(py, &root, result, finished.search.config(), evaluator.as_deref())
        });
        PySearchHandle { handle: Mutex::new(Some(handle)), name: Box::new(move |m| named.format_move(m)), report }
    }

    fn take(&self) -> PyResult<SearchHandle> {
        let mut slot = self.handle.lock().unwrap_or_else(PoisonError::into_inner);
        slot.take().ok_or_else(|| PyRuntimeError::new_err("the search has already been stopped or waited for"))
    }
}

#[pymethods]
impl PySearchHandle {
    /// The root as the search sees it now: playouts, elapsed time, and each root move's
    /// visits, value, prior, lower bound and principal variation.
    fn snapshot(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        // The lock is taken without the GIL and let go before it is taken back: a
        // thread that holds the GIL and waits for the lock never waits on one that
        // waits for the GIL.
        let snapshot = py
            .detach(|| self.handle.lock().unwrap_or_else(PoisonError::into_inner).as_ref().map(SearchHandle::snapshot))
            .ok_or_else(|| PyRuntimeError::new_err("the search has ended"))?;
        let view = |c: &SnapshotChild| ChildView {
            mv: (self.name)(c.mv),
            visits: c.visits,
            value: c.value,
            prior: c.prior,
            lcb: c.lower_bound(),
            pv: c.pv.iter().map(|&m| (self.name)(m)).collect(),
        };
        let view = SnapshotView {
            playouts: snapshot.playouts,
            elapsed_ms: snapshot.elapsed.as_secs_f64() * 1e3,
            playouts_per_sec: snapshot.rate(),
            finished: snapshot.finished,
            best_move: snapshot.best().map(|c| (self.name)(c.mv)),
            children: snapshot.children.iter().map(view).collect(),
        };
        to_python(py, &view)
    }

    /// Whether the search has ended by itself (its budget, or a proven root).
    fn is_finished(&self) -> bool {
        self.handle.lock().unwrap_or_else(PoisonError::into_inner).as_ref().is_none_or(SearchHandle::is_finished)
    }

    /// Stops the search and returns its result (the dict of ``search``).
    fn stop(&self, py: Python<'_>) -> PyResult<Py<PyAny>> {
        let handle = self.take()?;
        let finished = py.detach(move || handle.stop());
        (self.report)(py, &finished)
    }

    /// Waits for the search to end by itself (at most ``timeout`` seconds, if given:
    /// ``None`` when it has not ended by then) and returns its result.
    #[pyo3(signature = (timeout = None))]
    fn wait(&self, py: Python<'_>, timeout: Option<f64>) -> PyResult<Option<Py<PyAny>>> {
        if let Some(seconds) = timeout {
            let wait = Duration::try_from_secs_f64(seconds.max(0.0))
                .map_err(|_| PyValueError::new_err(format!("timeout {seconds}")))?;
            let ended = py.detach(|| {
                let slot = self.handle.lock().unwrap_or_else(PoisonError::into_inner);
                slot.as_ref().map(|handle| handle.wait_timeout(wait))
            });
            match ended {
                None => return Err(PyRuntimeError::new_err("the search has ended")),
                Some(false) => return Ok(None),
                Some(true) => {}
            }
        }
        let handle = self.take()?;
        let finished = py.detach(move || handle.wait());
        (self.report)(py, &finished).map(Some)
    }
}
