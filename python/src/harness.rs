//! `parmcts.match`, `bench`, `scale` and `ladder`: the harness's runs, with the GIL
//! released while they play. Each returns what the command line's `--json` prints, built
//! by the same library code: `match`, `bench` and `ladder` as [`Records`](records_type)
//! (a list of dicts, one per game, row or rung, that `pandas.DataFrame` reads as it is,
//! with the whole report as its `report` attribute), `scale` as a dict.

use std::sync::{Mutex, PoisonError};

use parmcts::games::othello::PlayoutBuild;
use parmcts::games::Evaluate;
use parmcts::harness::benchmark::{bench_game, BenchMode};
use parmcts::harness::interrupt::Interrupt;
use parmcts::harness::ladder::{run_ladder, LadderError, LadderPlan};
use parmcts::harness::matches::{run_match, MatchConfig, MatchError, Openings};
use parmcts::harness::players::{PlayerError, PlayerSpec};
use parmcts::harness::report::{BenchReport, BenchRowReport, MatchReport, RecordLine};
use parmcts::harness::scale::{run_scale, ScaleError, ScalePlan, ScaleSizes};
use parmcts::search::{Mode, Playout, SearchConfig, SearchConfigBuilder};
use parmcts::weights::WeightsError;
use parmcts::{with_game, Game, GameKind, SearchError, SearchGame};
use pyo3::exceptions::PyValueError;
use pyo3::prelude::*;
use pyo3::sync::PyOnceLock;
use pyo3::types::{PyDict, PyList, PyType};
use serde::Serialize;

use crate::position::settings_of;
use crate::search::{failure, to_python};
use crate::ParmctsError;

/// Adds the harness's functions and the `Records` type to the module.
pub fn register(m: &Bound<'_, PyModule>) -> PyResult<()> {
    m.add("Records", records_type(m.py())?)?;
    m.add_function(wrap_pyfunction!(play_match, m)?)?;
    m.add_function(wrap_pyfunction!(run_bench, m)?)?;
    m.add_function(wrap_pyfunction!(scale, m)?)?;
    m.add_function(wrap_pyfunction!(ladder, m)?)?;
    Ok(())
}

const RECORDS_DOC: &str = "A list of dicts (one per game, benchmark row or ladder rung), as \
``pandas.DataFrame`` takes it; ``report`` is the whole report, what the command line's \
``--json`` prints.";

/// `Records`: a subclass of `list` with one more attribute, `report` (made once, at the
/// module's import: an extension type cannot subclass `list` under the stable ABI).
fn records_type(py: Python<'_>) -> PyResult<&Bound<'_, PyType>> {
    static RECORDS: PyOnceLock<Py<PyType>> = PyOnceLock::new();
    let ty = RECORDS.get_or_try_init(py, || {
        let namespace = PyDict::new(py);
        namespace.set_item("__doc__", RECORDS_DOC)?;
        namespace.set_item("__module__", "parmcts")?;
        namespace.set_item("__slots__", ("report",))?;
        let bases = (py.get_type::<PyList>(),);
        let ty = py.get_type::<PyType>().call1(("Records", bases, namespace))?;
        Ok::<_, PyErr>(ty.cast_into::<PyType>()?.unbind())
    })?;
    Ok(ty.bind(py))
}

/// `items` as `Records`, with `report` as their report.
fn records(py: Python<'_>, items: &impl Serialize, report: &impl Serialize) -> PyResult<Py<PyAny>> {
    let list = records_type(py)?.call1((to_python(py, items)?,))?;
    list.setattr("report", to_python(py, report)?)?;
    Ok(list.unbind())
}

/// Bad input, as `ValueError`.
fn bad(message: impl std::fmt::Display) -> PyErr {
    PyValueError::new_err(message.to_string())
}

/// The game named `name`.
fn game_kind(name: &str) -> PyResult<GameKind> {
    name.parse().map_err(bad)
}

/// The player spec `text`, given as argument `arg`.
fn spec(arg: &str, text: &str) -> PyResult<PlayerSpec> {
    PlayerSpec::parse(text).map_err(|e| bad(format!("{arg}: {e}")))
}

/// Rejects a count of 0 given as `arg`.
fn at_least_one(arg: &str, value: u64) -> PyResult<()> {
    match value {
        0 => Err(bad(format!("{arg}: bad value '0' (at least 1)"))),
        _ => Ok(()),
    }
}

/// The search settings of `kwargs`, none of them one of `set` (which the run sets itself).
fn settings_except(kwargs: Option<&Bound<'_, PyDict>>, run: &str, set: &[&str]) -> PyResult<Vec<(String, String)>> {
    let pairs = settings_of(kwargs)?;
    let Some((key, _)) = pairs.iter().find(|(key, _)| set.contains(&key.as_str())) else { return Ok(pairs) };
    let names: Vec<String> = set.iter().map(|k| k.replace('-', "_")).collect();
    Err(bad(format!("{}: {run} sets it itself (not a setting of {run}: {})", key.replace('-', "_"), names.join(", "))))
}

/// `builder` with the `pairs` applied, built.
fn build(builder: SearchConfigBuilder, pairs: &[(String, String)]) -> PyResult<SearchConfig> {
    let builder = builder.apply_settings(pairs.iter().map(|(k, v)| (k.as_str(), v.as_str()))).map_err(bad)?;
    builder.build().map_err(bad)
}

/// A match that could not be played, as the command line sorts it: a pool that would
/// not start, a player that broke the rules or weights that could not be written are
/// failures at run time (`ParmctsError`); the rest is bad input (`ValueError`).
fn match_failure(e: MatchError) -> PyErr {
    match e {
        MatchError::ThreadPool(_) | MatchError::IllegalMove { .. } => ParmctsError::new_err(e.to_string()),
        MatchError::Player(PlayerError::Search(e @ SearchError::Weights(WeightsError::Unwritable { .. }))) => {
            ParmctsError::new_err(e.to_string())
        }
        e => bad(e),
    }
}

/// A match's players: each spec's text and the spec.
struct MatchJob<'a> {
    specs: [(&'a str, PlayerSpec); 2],
    config: MatchConfig,
    moves: &'a str,
}

/// Plays a match between ``p1`` and ``p2`` (player specs, as ``parmcts match --p1``
/// takes them) and returns its games' records, in game order: ``Records``, a list of
/// dicts, one per game, with the keys of ``parmcts match --records`` (``game``,
/// ``opening``, ``moves``, ``plies``, ``result`` (``p1``, ``p2`` or ``draw``),
/// ``ending``, ``p1_first``, ``players``, ``move_ms``, ``move_playouts``). Their
/// ``report`` is the match's summary, what ``parmcts match --json`` prints (wins, draws,
/// score and Elo with their 95 % intervals, move times, forfeits).
///
/// Colours alternate; ``openings`` is ``none`` (or ``start``), ``random:R`` or ``all:R``;
/// the games start from ``moves`` played from the game's start. Raises ``ValueError``
/// for a bad argument.
#[pyfunction(name = "match")]
#[pyo3(signature = (game, p1, p2, *, games = 2, openings = "none", parallel_games = 1, seed = 0, moves = ""))]
#[allow(clippy::too_many_arguments)] // the keyword arguments of a Python function
fn play_match(
    py: Python<'_>,
    game: &str,
    p1: &str,
    p2: &str,
    games: u64,
    openings: &str,
    parallel_games: usize,
    seed: u64,
    moves: &str,
) -> PyResult<Py<PyAny>> {
    let kind = game_kind(game)?;
    let specs = [(p1, spec("p1", p1)?), (p2, spec("p2", p2)?)];
    let openings: Openings = openings.parse().map_err(bad)?;
    let config = MatchConfig::new(games, openings, parallel_games, seed);
    let job = MatchJob { specs, config, moves };
    with_game!(kind, G => play::<G>(py, &job))
}

fn play<G: Evaluate + SearchGame>(py: Python<'_>, job: &MatchJob<'_>) -> PyResult<Py<PyAny>> {
    let start = G::parse_position(job.moves).map_err(|e| bad(format!("moves '{}': {e}", job.moves)))?;
    let [(t1, s1), (t2, s2)] = &job.specs;
    let games = Mutex::new(Vec::new());
    let summary = py.detach(|| {
        run_match(&start, s1, s2, &job.config, |record, _| {
            games.lock().unwrap_or_else(PoisonError::into_inner).push(record.clone());
        })
    });
    let summary = summary.map_err(match_failure)?;
    let mut games = games.into_inner().unwrap_or_else(PoisonError::into_inner);
    games.sort_by_key(|g| g.index);
    let budget_ms = |spec: &PlayerSpec| spec.time_budget().map(|b| b.as_secs_f64() * 1e3);
    let report = MatchReport::new::<G>(t1, t2, &summary, [budget_ms(s1), budget_ms(s2)]);
    let lines: Vec<RecordLine<'_>> = games.iter().map(|g| RecordLine::new(g, [t1, t2])).collect();
    records(py, &lines, &report)
}

/// The modes `bench` measures by default.
fn all_bench_modes() -> Vec<String> {
    ["pure", "seq", "tree", "root"].map(String::from).to_vec()
}

/// Measures playout throughput, as ``parmcts bench --json``: ``Records``, one dict per
/// row (``game``, ``mode``, ``threads``, ``lanes``, ``playouts``, ``playouts_per_sec``,
/// ``ns_per_playout``, ``ratio_to_seq``, ``samples``), the medians of ``repeat`` runs
/// interleaved; their ``report`` is the whole report (repeats, cores, load average).
///
/// ``game=None`` measures every game. The search settings are keywords, as for
/// ``search`` (``playouts=2000``, ``lanes=2``; not ``mode`` or ``time_ms``); by default
/// each game's bench budget, seed 1, uniform playouts and no pruning. Raises
/// ``ValueError`` for a bad argument.
#[pyfunction(name = "bench")]
#[pyo3(signature = (game = None, *, modes = all_bench_modes(), threads = vec![1, 2], repeat = 5, **settings))]
fn run_bench(
    py: Python<'_>,
    game: Option<&str>,
    modes: Vec<String>,
    threads: Vec<usize>,
    repeat: usize,
    settings: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let modes = modes.iter().map(|m| m.parse::<BenchMode>().map_err(|e| bad(format!("modes: {e}"))));
    let modes = modes.collect::<PyResult<Vec<_>>>()?;
    at_least_one("repeat", repeat as u64)?;
    let pairs = settings_except(settings, "bench", &["mode", "threads", "time-ms"])?;
    let games = match game {
        Some(name) => vec![game_kind(name)?],
        None => GameKind::ALL.to_vec(),
    };
    // Every game's configuration is checked before anything is measured.
    let configs = games
        .iter()
        .map(|&kind| {
            let base =
                SearchConfig::builder().playouts(kind.bench_playouts()).seed(1).playout(Playout::Random).prune(false);
            Ok((kind, build(base, &pairs)?))
        })
        .collect::<PyResult<Vec<_>>>()?;
    let load_before = load_average();
    let rows = py.detach(|| {
        let mut rows = Vec::new();
        for (kind, base) in &configs {
            let game_rows = with_game!(*kind, G => bench_game(&G::new(), &modes, &threads, repeat, base, &|| (), &Interrupt::default()))?;
            rows.extend(game_rows.iter().map(BenchRowReport::from));
        }
        Ok::<_, SearchError>(rows)
    });
    let rows = rows.map_err(|e| failure(&e, None))?;
    let report = BenchReport {
        results: rows.clone(),
        repeat,
        cores: std::thread::available_parallelism().map_or(1, |n| n.get()),
        othello_playout_build: PlayoutBuild::detect().name(),
        load_average: load_before.zip(load_average()).map(|(a, b)| [a, b]),
        interrupted: false,
    };
    records(py, &rows, &report)
}

/// The 1-minute load average (Linux), if it can be read.
fn load_average() -> Option<f64> {
    std::fs::read_to_string("/proc/loadavg").ok()?.split_whitespace().next()?.parse().ok()
}

/// The modes `scale` measures by default.
fn parallel_modes() -> Vec<String> {
    ["tree", "root"].map(String::from).to_vec()
}

/// What more cores are worth, as ``parmcts scale --json`` (a dict): the throughput
/// speedup per mode and thread count (``throughput``), the search overhead at equal
/// playouts (``overhead``), the strength matches of the parallel search at ``time_ms``
/// per move against the sequential one at ``k`` times as long (``strength``) and the
/// strength speedups they give (``strength_speedup``).
///
/// ``modes`` are parallel modes (``tree``, ``root``, ``sync``); ``games`` per match;
/// ``repeat`` runs per throughput row; ``quick=True`` is ``time_ms=5``, ``k=(1, 2)``,
/// ``games=10``, ``repeat=3``. The other search settings are keywords (not ``mode``,
/// ``threads``, ``time_ms``, ``playouts`` or ``seed``). Raises ``ValueError`` for a bad
/// argument.
#[pyfunction]
#[pyo3(signature = (game, *, modes = parallel_modes(), threads = vec![1, 2], time_ms = 20, k = vec![1, 2, 4],
    games = 100, repeat = 5, seed = 1, quick = false, **settings))]
#[allow(clippy::too_many_arguments)] // the keyword arguments of a Python function
fn scale(
    py: Python<'_>,
    game: &str,
    modes: Vec<String>,
    threads: Vec<usize>,
    time_ms: u64,
    k: Vec<u32>,
    games: u64,
    repeat: usize,
    seed: u64,
    quick: bool,
    settings: Option<&Bound<'_, PyDict>>,
) -> PyResult<Py<PyAny>> {
    let kind = game_kind(game)?;
    let modes = modes.iter().map(|m| m.parse::<Mode>().map_err(|e| bad(format!("modes: {e}"))));
    let modes = modes.collect::<PyResult<Vec<_>>>()?;
    let sizes = ScaleSizes { time_ms, time_factors: k, games, repeats: repeat };
    let plan = ScalePlan::new(kind, modes, threads, sizes, quick, seed);
    let time_ms = u64::try_from(plan.time.as_millis()).unwrap_or(u64::MAX);
    for (arg, value) in [("time_ms", time_ms), ("games", plan.games), ("repeat", plan.repeats as u64)] {
        at_least_one(arg, value)?;
    }
    let pairs = settings_except(settings, "scale", &["mode", "threads", "time-ms", "playouts", "seed"])?;
    let base = build(SearchConfig::builder().playouts(1).seed(seed), &pairs)?;
    let report = py.detach(|| with_game!(kind, G => run_scale::<G>(&plan, &base, &|| (), &Interrupt::default())));
    let report = report.map_err(|e| match e {
        ScaleError::Search(e) => failure(&e, None),
        ScaleError::Match(e) => match_failure(e),
        e => bad(e),
    })?;
    to_python(py, &report)
}

/// What more search is worth, as ``parmcts ladder --json``: each rung doubles the
/// playouts per move of ``player`` (an ``mcts`` spec without ``playouts=`` or
/// ``time_ms=``), from ``start`` while they stay within ``stop``, and plays ``games``
/// against the rung below. Returns ``Records``, one dict per rung (``playouts``,
/// ``elo_total`` (the Elo above the lowest rung) and the rung's match summary, as
/// ``match``'s ``report``: ``p1``, ``p2``, ``score``, ``elo``, …); their ``report`` is
/// the whole report (``game``, ``player``, ``openings``, ``rungs``). Raises
/// ``ValueError`` for a bad argument, before any game is played.
#[pyfunction]
#[pyo3(signature = (game, player = "mcts", *, start = 1000, stop = 16000, games = 100, openings = "random:2",
    parallel_games = 1, seed = 0))]
#[allow(clippy::too_many_arguments)] // the keyword arguments of a Python function
fn ladder(
    py: Python<'_>,
    game: &str,
    player: &str,
    start: u64,
    stop: u64,
    games: u64,
    openings: &str,
    parallel_games: usize,
    seed: u64,
) -> PyResult<Py<PyAny>> {
    let kind = game_kind(game)?;
    let openings: Openings = openings.parse().map_err(bad)?;
    let matches = MatchConfig::new(games, openings, parallel_games, seed);
    let plan = LadderPlan { player: player.to_string(), from: start, to: stop, matches };
    let report = py.detach(|| with_game!(kind, G => run_ladder::<G>(&plan, &())));
    let report = report.map_err(|e| match e {
        LadderError::Match(e) => match_failure(e),
        e => bad(e),
    })?;
    records(py, &report.rungs, &report)
}
