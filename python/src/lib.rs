//! parmcts for Python (`import parmcts`): positions of every game, searches with the
//! library's settings by name and the GIL released while they run, the running-search
//! handle, Python evaluators called in batches, and the harness's matches, benchmarks,
//! scaling runs and ladders as records. The package's Python side is `parmcts/`; its
//! stubs `parmcts/_parmcts.pyi`.

mod evaluator;
mod harness;
mod numpy;
mod position;
mod search;

use pyo3::create_exception;
use pyo3::exceptions::PyException;
use pyo3::prelude::*;
use pyo3::types::PyDict;

use position::{settings_of, Position};
use search::{PySearchHandle, SearchJob};

create_exception!(parmcts, ParmctsError, PyException, "The base of parmcts's own exceptions.");
create_exception!(parmcts, SearchError, ParmctsError, "A search that could not run or failed while running.");
create_exception!(parmcts, EvaluatorError, SearchError, "A Python evaluator raised or answered a bad value.");

/// Runs `job` on `position` with the keyword settings.
fn run_job(
    py: Python<'_>,
    position: &Position,
    evaluator: Option<Py<PyAny>>,
    kwargs: Option<&Bound<'_, PyDict>>,
    start: bool,
) -> PyResult<Py<PyAny>> {
    let settings = settings_of(kwargs)?;
    // A copy: no lock on the position is held while the search runs.
    let game = position.read().boxed_clone();
    game.run(SearchJob { py, settings, evaluator, start })
}

/// Searches ``position`` and returns what ``parmcts search --json`` prints, as a dict.
///
/// Every search setting is a keyword, by its command-line name with ``_`` for ``-``
/// (``playouts=10000``, ``time_ms=500``, ``threads=2``, ``mode="tree"``, ``c=0.8``,
/// ``eval_batch=64``); without a budget, 100,000 playouts. ``evaluator`` values the
/// leaves (see ``Evaluator`` in the stubs). The GIL is released while the search runs.
///
/// Raises ``ValueError`` for a bad setting, ``EvaluatorError`` when the evaluator
/// fails, ``SearchError`` for the rest.
#[pyfunction(name = "search")]
#[pyo3(signature = (position, *, evaluator = None, **settings))]
fn search_position(
    py: Python<'_>,
    position: &Position,
    evaluator: Option<Py<PyAny>>,
    settings: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    run_job(py, position, evaluator, settings, false)
}

/// Starts searching ``position`` on a thread of its own and returns its
/// ``SearchHandle``; the settings as ``search``'s (``until_stopped=True``: no budget).
#[pyfunction(name = "start")]
#[pyo3(signature = (position, *, evaluator = None, **settings))]
fn start_search(
    py: Python<'_>,
    position: &Position,
    evaluator: Option<Py<PyAny>>,
    settings: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    run_job(py, position, evaluator, settings, true)
}

/// The seconds ``n`` searches of ``position`` take in Rust alone, with the settings of
/// ``search``: the baseline of the bindings' per-call overhead (python/benchmarks/bindings.py).
#[pyfunction(name = "_time_searches")]
#[pyo3(signature = (position, n, **settings))]
fn time_searches(py: Python<'_>, position: &Position, n: usize, settings: Option<&Bound<'_, PyDict>>) -> PyResult<f64> {
    let settings = settings_of(settings)?;
    let game = position.read().boxed_clone();
    game.time_searches(py, n, &settings)
}

#[pymodule]
fn _parmcts(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add_class::<Position>()?;
    m.add_class::<PySearchHandle>()?;
    m.add_function(wrap_pyfunction!(search_position, m)?)?;
    m.add_function(wrap_pyfunction!(start_search, m)?)?;
    m.add_function(wrap_pyfunction!(time_searches, m)?)?;
    m.add_class::<evaluator::LinearEvaluator>()?;
    harness::register(m)?;
    m.add("ParmctsError", m.py().get_type::<ParmctsError>())?;
    m.add("SearchError", m.py().get_type::<SearchError>())?;
    m.add("EvaluatorError", m.py().get_type::<EvaluatorError>())?;
    m.add("__version__", env!("CARGO_PKG_VERSION"))?;
    Ok(())
}
