"""parmcts from Python: positions, searches equal to the CLI's, errors as exceptions, the
GIL released while searching, the running-search handle, and Python evaluators."""

import json
import math
import os
import subprocess
import threading
import time
from pathlib import Path

import numpy as np
import pytest

import parmcts

ROOT = Path(__file__).resolve().parents[2]


def binary():
    """The `parmcts` binary the CLI comparisons run (CI sets PARMCTS_BIN)."""
    candidates = [os.environ.get("PARMCTS_BIN"), ROOT / "target/test-release/parmcts", ROOT / "target/release/parmcts",
                  ROOT / "target/debug/parmcts"]
    for path in candidates:
        if path and Path(path).exists():
            return str(path)
    pytest.skip("no parmcts binary: `cargo build` first, or set PARMCTS_BIN")


# Fields of a search report that depend on the clock.
TIMED = ("elapsed_ms", "playouts_per_sec")


def untimed(report):
    return {k: v for k, v in report.items() if k not in TIMED}


def test_every_game_has_positions():
    assert "othello" in parmcts.Position.games() and "einstein" in parmcts.Position.games()
    for game in parmcts.Position.games():
        position = parmcts.Position(game)
        assert position.game == game
        moves = position.legal_moves()
        assert moves and not position.is_over() and position.outcome() is None
        copy = position.copy()
        copy.play(moves[0])
        assert position.legal_moves() == moves, "a copy is its own position"
        assert str(position)


def test_a_game_played_to_its_end():
    position = parmcts.Position("tictactoe")
    for move in ["1", "4", "2", "5", "3"]:
        assert position.to_move() in (1, 2)
        position.play(move)
    assert position.is_over() and position.outcome() == "p1" and position.legal_moves() == []


def test_bad_moves_and_games_raise_value_error_naming_them():
    position = parmcts.Position("connect4", "4453")
    with pytest.raises(ValueError, match="'9'"):
        position.play("9")
    with pytest.raises(ValueError, match="chess"):
        parmcts.Position("chess")
    with pytest.raises(ValueError, match="x"):
        parmcts.Position("othello", "d3x")
    assert position.legal_moves() == ["1", "2", "3", "4", "5", "6", "7"]


def test_planes_and_masks_follow_the_encoding():
    position = parmcts.Position("connect4", "4")
    planes = position.planes()
    assert planes.shape == (2, 6, 7) and planes.dtype == np.float32
    # The second player to move: the first player's disc is the opponent's (plane 1).
    assert planes[1, 0, 3] == 1.0 and planes.sum() == 1.0
    assert position.legal_mask().tolist() == [True] * 7
    othello = parmcts.Position("othello")
    assert othello.planes().shape[1:] == (8, 8) and othello.legal_mask().sum() == 4
    assert parmcts.Position("einstein").planes() is None


def test_a_search_equals_the_command_lines():
    position = parmcts.Position("connect4", "4453")
    ours = parmcts.search(position, playouts=5000, seed=3)
    out = subprocess.run([binary(), "search", "--game", "connect4", "--moves", "4453", "--playouts", "5000",
                          "--seed", "3", "--json"], capture_output=True, text=True, check=True)
    assert untimed(ours) == untimed(json.loads(out.stdout))
    assert ours["playouts"] == 5000 and ours["best_move"] in position.legal_moves()


def test_settings_go_by_name_and_bad_ones_raise():
    position = parmcts.Position("othello")
    result = parmcts.search(position, playouts=2000, threads=2, mode="tree", c=0.9, reuse=False)
    assert (result["mode"], result["threads"], result["playouts"]) == ("tree", 2, 2000)
    with pytest.raises(ValueError, match="threads"):
        parmcts.search(position, threads=0)
    with pytest.raises(ValueError, match="frobnicate"):
        parmcts.search(position, frobnicate=1)
    with pytest.raises(ValueError, match="mode"):
        parmcts.search(position, mode="sideways")
    over = parmcts.Position("tictactoe", "14253")
    with pytest.raises(parmcts.SearchError, match="over"):
        parmcts.search(over, playouts=10)


def test_the_gil_is_released_while_searching():
    ticks = 0
    stop = threading.Event()

    def count():
        nonlocal ticks
        while not stop.is_set():
            ticks += 1

    counter = threading.Thread(target=count)
    counter.start()
    before = ticks
    parmcts.search(parmcts.Position("connect4"), time_ms=300, threads=1)
    during = ticks - before
    stop.set()
    counter.join()
    # Python's thread ran through the search: many thousands of increments, where a
    # search holding the GIL would have allowed a few switch intervals at most.
    assert during > 10_000, during


def test_two_searches_from_two_threads_overlap():
    spans = {}

    def run(name):
        started = time.perf_counter()
        parmcts.search(parmcts.Position("othello"), time_ms=400)
        spans[name] = (started, time.perf_counter())

    first = threading.Thread(target=run, args=("a",))
    first.start()
    time.sleep(0.1)
    second = threading.Thread(target=run, args=("b",))
    second.start()
    first.join()
    second.join()
    # The second thread entered its search while the first was still in its own.
    assert spans["b"][0] < spans["a"][1], spans


def test_a_started_search_is_watched_and_stopped():
    handle = parmcts.start(parmcts.Position("connect4"), until_stopped=True)
    time.sleep(0.1)
    first = handle.snapshot()
    time.sleep(0.1)
    second = handle.snapshot()
    assert second["playouts"] > first["playouts"] > 0 and not second["finished"]
    assert second["best_move"] in [c["move"] for c in second["children"]]
    result = handle.stop()
    assert result["playouts"] >= second["playouts"]
    with pytest.raises(RuntimeError):
        handle.stop()
    budgeted = parmcts.start(parmcts.Position("tictactoe"), playouts=3000)
    assert budgeted.wait(timeout=60)["playouts"] == 3000


class Recorder:
    """A toy evaluator: a half for every position, uniform priors; it records batches."""

    def __init__(self):
        self.sizes = []

    def __call__(self, planes, masks):
        assert planes.dtype == np.float32 and masks.dtype == np.bool_
        assert planes.shape[0] == masks.shape[0]
        self.sizes.append(planes.shape[0])
        return np.full(planes.shape[0], 0.5), masks.astype(np.float32)


def test_an_evaluator_is_called_in_batches_of_the_configured_size():
    recorder = Recorder()
    result = parmcts.search(parmcts.Position("connect4"), evaluator=recorder, playouts=4000, eval_batch=16,
                            eval_priors=True, seed=1)
    assert result["playouts"] == 4000
    assert max(recorder.sizes) == 16 and recorder.sizes.count(16) > len(recorder.sizes) // 2, recorder.sizes
    stats = result["evaluator"]
    assert stats["calls"] == len(recorder.sizes) and stats["positions"] == sum(recorder.sizes)
    # The search's own count of its batches by size (the root's priors among them).
    histogram = [recorder.sizes.count(size) for size in range(1, 17)]
    assert result["batch_sizes"] == histogram


def test_one_position_at_a_time_without_a_batch():
    recorder = Recorder()
    parmcts.search(parmcts.Position("othello"), evaluator=recorder, playouts=300)
    assert recorder.sizes and set(recorder.sizes) == {1}


def test_an_evaluators_exception_is_raised_and_nothing_else_is_lost():
    calls = 0

    def failing(planes, masks):
        nonlocal calls
        calls += 1
        if calls == 5:
            raise KeyError("the network is gone")
        return np.full(planes.shape[0], 0.5)

    position = parmcts.Position("connect4", "44")
    with pytest.raises(parmcts.EvaluatorError) as raised:
        parmcts.search(position, evaluator=failing, playouts=5000, eval_batch=8)
    assert isinstance(raised.value.__cause__, KeyError)
    assert position.legal_moves() == ["1", "2", "3", "4", "5", "6", "7"]
    # The next search runs as if nothing had happened.
    assert parmcts.search(position, evaluator=failing, playouts=1000, eval_batch=8)["playouts"] == 1000


def test_a_nan_value_raises():
    def nan(planes, masks):
        return np.full(planes.shape[0], math.nan)

    with pytest.raises(parmcts.EvaluatorError, match="value"):
        parmcts.search(parmcts.Position("othello"), evaluator=nan, playouts=1000, eval_batch=4)
    with pytest.raises(parmcts.EvaluatorError):
        parmcts.search(parmcts.Position("othello"), evaluator=nan, playouts=1000)


def test_a_bad_answer_names_what_is_wrong():
    with pytest.raises(parmcts.EvaluatorError) as raised:
        parmcts.search(parmcts.Position("connect4"), evaluator=lambda p, m: [0.5], playouts=500, eval_batch=8)
    assert "values" in str(raised.value.__cause__)
    with pytest.raises(ValueError, match="encoding"):
        parmcts.search(parmcts.Position("einstein"), evaluator=lambda p, m: p, playouts=10)
