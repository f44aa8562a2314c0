"""The harness's runs from Python: ``match``, ``bench``, ``scale`` and ``ladder`` give
the records and reports of the command line's ``--json``, built by the same library
code; with the same seed, the deterministic parts are equal to the binary's output.

The binary is ``$PARMCTS_BIN`` (which must then exist), else ``../target/test-release/
parmcts`` or ``../target/debug/parmcts`` beside this package; without one, the
comparisons are skipped.
"""

import json
import math
import os
import subprocess
from pathlib import Path

import pytest

import parmcts

ROOT = Path(__file__).resolve().parents[2]
BUILD_HINT = (
    "no parmcts binary: build it with `cargo build --profile test-release` at the "
    "repository's root (or set PARMCTS_BIN)"
)


@pytest.fixture(scope="module")
def binary():
    given = os.environ.get("PARMCTS_BIN")
    if given:
        path = Path(given)
        assert path.is_file(), f"PARMCTS_BIN={given}: no such file"
        return path
    for profile in ("test-release", "debug"):
        path = ROOT / "target" / profile / "parmcts"
        if path.is_file():
            return path
    pytest.skip(BUILD_HINT)


def cli_json(binary, *args):
    """What ``parmcts ARGS --json`` prints, parsed."""
    done = subprocess.run(
        [str(binary), *args, "--json"], capture_output=True, text=True, timeout=300, check=False
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def plain(value, drop=()):
    """``value`` as JSON would carry it (tuples as lists, non-finite floats as null),
    without the keys in ``drop`` at any depth: what two runs need not share."""
    if isinstance(value, dict):
        return {k: plain(v, drop) for k, v in value.items() if k not in drop}
    if isinstance(value, (list, tuple)):
        return [plain(v, drop) for v in value]
    if isinstance(value, float) and not math.isfinite(value):
        return None
    return value


# Measured on the clock: they differ between runs.
TIMES = ("move_times", "move_ms")

MATCH = dict(game="tictactoe", p1="mcts:playouts=100", p2="random", games=4, openings="random:1", seed=7)
MATCH_ARGS = ["--game", "tictactoe", "--p1", "mcts:playouts=100", "--p2", "random", "--games", "4",
              "--openings", "random:1", "--seed", "7"]
RECORD_KEYS = {"game", "opening", "moves", "plies", "result", "ending", "p1_first", "players", "move_ms",
               "move_playouts"}


def test_match_gives_one_record_per_game_and_the_summary():
    games = parmcts.match(**MATCH)
    assert isinstance(games, parmcts.Records) and isinstance(games, list)
    assert len(games) == 4
    assert [g["game"] for g in games] == [0, 1, 2, 3]
    for g in games:
        assert RECORD_KEYS <= set(g), g
        assert g["result"] in ("p1", "p2", "draw")
        assert g["plies"] == len(g["opening"]) + len(g["moves"]) and len(g["opening"]) == 1
        assert g["p1_first"] == (g["game"] % 2 == 0)
        assert list(g["players"]) == [MATCH["p1"], MATCH["p2"]]
        assert all(n == 100 for n in g["move_playouts"][0]) and not g["move_playouts"][1]
    summary = games.report
    assert summary["games"] == 4 and summary["p1"] == MATCH["p1"]
    results = [g["result"] for g in games]
    wins, draws, losses = (results.count(r) for r in ("p1", "draw", "p2"))
    assert (summary["p1_wins"], summary["draws"], summary["p2_wins"]) == (wins, draws, losses)
    assert len(summary["score_ci95"]) == 2 and "elo" in summary


def test_match_equals_the_command_line_for_the_same_seed(binary, tmp_path):
    records = tmp_path / "records.jsonl"
    summary = cli_json(binary, "match", *MATCH_ARGS, "--records", str(records))
    lines = [json.loads(line) for line in records.read_text().splitlines()]
    games = parmcts.match(**MATCH)
    assert plain(games.report, TIMES) == plain(summary, TIMES)
    assert plain(list(games), TIMES) == plain(sorted(lines, key=lambda r: r["game"]), TIMES)


def test_match_from_a_position_and_in_parallel():
    games = parmcts.match("connect4", "random", "random", games=4, parallel_games=2, seed=1, moves="4444")
    assert len(games) == 4 and sorted(g["game"] for g in games) == [0, 1, 2, 3]
    # The opening is empty: the games start from the position given.
    assert all(g["opening"] == [] and g["plies"] == len(g["moves"]) for g in games)


LADDER = dict(start=16, stop=64, games=2, openings="random:1", seed=3)
BENCH = dict(modes=("pure", "seq", "tree"), threads=(1, 2), repeat=2, playouts=200)
SCALE = dict(modes=("tree",), threads=(1, 2), time_ms=2, k=(1, 2), games=2, repeat=1, seed=5)


@pytest.fixture(scope="module")
def rungs():
    return parmcts.ladder("tictactoe", "mcts:reuse=off", **LADDER)


@pytest.fixture(scope="module")
def rows():
    return parmcts.bench("tictactoe", **BENCH)


@pytest.fixture(scope="module")
def scaled():
    return parmcts.scale("tictactoe", **SCALE)


def test_ladder_plays_each_doubling(rungs):
    assert [r["playouts"] for r in rungs] == [32, 64]
    total = 0.0
    for r in rungs:
        assert r["games"] == 2 and r["p2"] == f"mcts:reuse=off,playouts={r['playouts'] // 2}"
        total += r["elo"]
        assert r["elo_total"] == pytest.approx(total)
    assert rungs.report["openings"] == "random:1" and len(rungs.report["rungs"]) == 2


def test_ladder_equals_the_command_line_for_the_same_seed(binary, rungs):
    cli = cli_json(binary, "ladder", "--game", "tictactoe", "--player", "mcts:reuse=off", "--from", "16",
                   "--to", "64", "--games", "2", "--openings", "random:1", "--seed", "3")
    assert plain(rungs.report, TIMES) == plain(cli, TIMES)


BENCH_KEYS = ("game", "mode", "threads", "lanes", "playouts")


def test_bench_gives_a_row_per_mode_and_thread_count(rows):
    assert [tuple(r[k] for k in BENCH_KEYS) for r in rows] == [
        ("tictactoe", "seq", 1, 1, 200),
        ("tictactoe", "pure", 1, 1, 200),
        ("tictactoe", "pure", 2, 1, 200),
        ("tictactoe", "tree", 1, 1, 200),
        ("tictactoe", "tree", 2, 1, 200),
    ]
    assert all(len(r["samples"]) == 2 and r["playouts_per_sec"] > 0 for r in rows)
    assert rows[0]["ratio_to_seq"] == 1.0
    assert rows.report["repeat"] == 2 and len(rows.report["results"]) == 5


def test_bench_rows_follow_the_command_line(binary, rows):
    # The rates are measured: the rows' identities and the report's keys must agree.
    cli = cli_json(binary, "bench", "--game", "tictactoe", "--modes", "pure,seq,tree", "--threads", "1,2",
                   "--repeat", "2", "--playouts", "200")
    assert [tuple(r[k] for k in BENCH_KEYS) for r in cli["results"]] == [tuple(r[k] for k in BENCH_KEYS) for r in rows]
    assert [sorted(r) for r in cli["results"]] == [sorted(r) for r in rows]
    assert set(cli) == set(rows.report)


def scale_shape(report):
    """What a scale run measures, without the measurements."""
    return (
        [(t["mode"], t["threads"], t["playouts"]) for t in report["throughput"]],
        [(o["mode"], o["threads"], o["result"]["games"]) for o in report["overhead"]],
        [(s["mode"], s["threads"], s["k"], s["result"]["games"]) for s in report["strength"]],
        [(s["mode"], s["threads"]) for s in report["strength_speedup"]],
        sorted(report),
    )


def test_scale_reports_every_figure(scaled):
    assert scaled["game"] == "tictactoe" and scaled["games"] == 2 and scaled["time_ms"] == 2
    assert [(t["mode"], t["threads"]) for t in scaled["throughput"]] == [("seq", 1), ("tree", 1), ("tree", 2)]
    assert [(o["mode"], o["threads"], o["result"]["games"]) for o in scaled["overhead"]] == [("tree", 2, 2)]
    assert [(s["mode"], s["k"]) for s in scaled["strength"]] == [("tree", 1), ("tree", 2)]
    assert len(scaled["strength_speedup"]) == 1


def test_scale_follows_the_command_line(binary, scaled):
    cli = cli_json(binary, "scale", "--game", "tictactoe", "--modes", "tree", "--threads", "1,2", "--time-ms", "2",
                   "--k", "1,2", "--games", "2", "--repeat", "1", "--seed", "5")
    assert scale_shape(plain(scaled)) == scale_shape(cli)


@pytest.mark.parametrize(
    "call, message",
    [
        (lambda: parmcts.match("tictactoe", "bogus", "random"), "unknown player"),
        (lambda: parmcts.match("nogame", "random", "random"), "unknown game"),
        (lambda: parmcts.match("tictactoe", "random", "random", games=0), "games"),
        (lambda: parmcts.match("tictactoe", "random", "random", openings="sideways"), "openings"),
        (lambda: parmcts.match("tictactoe", "random", "random", moves="55"), "moves"),
        (lambda: parmcts.match("tictactoe", "human", "random"), "console"),
        (lambda: parmcts.match("tictactoe", "mcts:c=-1", "random"), "exploration constant"),
        (lambda: parmcts.bench("tictactoe", modes=("warp",)), "warp"),
        (lambda: parmcts.bench("tictactoe", threads=(0,)), "threads"),
        (lambda: parmcts.bench("tictactoe", repeat=0), "repeat"),
        (lambda: parmcts.bench("tictactoe", mode="tree"), "mode"),
        (lambda: parmcts.bench("tictactoe", playouts=0), "playouts"),
        (lambda: parmcts.scale("tictactoe", modes=("seq",)), "tree, root and sync"),
        (lambda: parmcts.scale("tictactoe", k=(2, 1)), "increasing"),
        (lambda: parmcts.scale("tictactoe", games=0), "games"),
        (lambda: parmcts.scale("tictactoe", seed=1, playouts=5), "playouts"),
        (lambda: parmcts.ladder("tictactoe", "random"), "mcts player"),
        (lambda: parmcts.ladder("tictactoe", "mcts:playouts=5"), "sets the budget"),
        (lambda: parmcts.ladder("tictactoe", start=100, stop=150), "no rung"),
        (lambda: parmcts.ladder("tictactoe", "mcts:bogus=1"), "bogus"),
        (lambda: parmcts.ladder("tictactoe", start=1000, stop=99_999_999_999_999), "exceeds the maximum"),
    ],
)
def test_bad_arguments_raise_value_error(call, message):
    with pytest.raises(ValueError, match=message):
        call()


def test_records_go_into_pandas():
    pandas = pytest.importorskip("pandas")
    games = parmcts.match("tictactoe", "mcts:playouts=50", "random", games=4, seed=2)
    frame = pandas.DataFrame(games)
    assert len(frame) == 4 and {"result", "plies", "p1_first"} <= set(frame.columns)
    rows = pandas.DataFrame(parmcts.bench("tictactoe", modes=("seq",), threads=(1,), repeat=1, playouts=100))
    assert list(rows["mode"]) == ["seq"]
