"""What the Python bindings cost (docs/results/python.md), each figure a ratio or a
difference measured side by side in one run:

1. per call: a minimal search (tic-tac-toe, one playout) from Python against the same
   search in Rust alone (`_time_searches`), in microseconds a call;
2. throughput: a 2-thread Othello search from Python against `parmcts search` (the CLI)
   with the same settings, playouts per second, alternated;
3. evaluators: a NumPy logistic model of the input planes called in batches of 64
   against the same model evaluated in Rust (`LinearEvaluator`): evaluations per second,
   and the share of the search's time the Python evaluator held the GIL.

usage: python python/benchmarks/bindings.py [BINARY [REPEATS]]   (defaults: target/release/parmcts 5)
"""

import json
import statistics
import subprocess
import sys
import time

import numpy as np

import parmcts

binary = sys.argv[1] if len(sys.argv) > 1 else "target/release/parmcts"
repeats = int(sys.argv[2]) if len(sys.argv) > 2 else 5


def per_call():
    position, calls = parmcts.Position("tictactoe"), 2000
    overheads, rust_us = [], []
    for _ in range(repeats):
        rust = parmcts._parmcts._time_searches(position, calls, playouts=1) / calls
        started = time.perf_counter()
        for _ in range(calls):
            parmcts.search(position, playouts=1)
        python = (time.perf_counter() - started) / calls
        overheads.append((python - rust) * 1e6)
        rust_us.append(rust * 1e6)
    print(f"per call: a one-playout search takes {statistics.median(rust_us):.1f} us in Rust; from Python "
          f"{statistics.median(overheads):.1f} us more (median of {repeats} x {calls} calls; "
          f"range {min(overheads):.1f}-{max(overheads):.1f})")


def throughput():
    settings = {"playouts": 1_000_000, "threads": 2, "mode": "tree", "seed": 1}
    flags = [f"--{key}={value}" for key, value in settings.items()]
    ratios = []
    for _ in range(repeats):
        out = subprocess.run([binary, "search", "--game", "othello", "--json", *flags], capture_output=True,
                             text=True, check=True)
        cli = json.loads(out.stdout)["playouts_per_sec"]
        python = parmcts.search(parmcts.Position("othello"), **settings)["playouts_per_sec"]
        ratios.append(python / cli)
        print(f"  cli {cli:,.0f}/s, python {python:,.0f}/s: {python / cli:.3f}")
    print(f"throughput: 2-thread Othello search from Python / the CLI's: median {statistics.median(ratios):.3f} "
          f"({repeats} alternated pairs of 1,000,000 playouts)")


def evaluators():
    position = parmcts.Position("othello")
    weights = np.random.default_rng(7).normal(0, 0.1, size=position.planes().size).astype(np.float32)

    def numpy_model(planes, masks):
        z = planes.reshape(planes.shape[0], -1) @ weights
        return 1.0 / (1.0 + np.exp(-z))

    settings = {"playouts": 100_000, "eval_batch": 64, "eval_in_flight": 128, "seed": 1}
    rows = {"numpy": [], "rust": [], "gil": []}
    for _ in range(repeats):
        py = parmcts.search(position, evaluator=numpy_model, **settings)
        rust = parmcts.search(position, evaluator=parmcts.LinearEvaluator(weights), **settings)
        seconds = py["elapsed_ms"] / 1e3
        rows["numpy"].append(py["playouts"] / seconds)
        rows["rust"].append(rust["playouts"] / (rust["elapsed_ms"] / 1e3))
        rows["gil"].append(py["evaluator"]["gil_seconds"] / seconds)
    numpy_rate, rust_rate = statistics.median(rows["numpy"]), statistics.median(rows["rust"])
    print(f"evaluators, Othello, batches of 64: NumPy {numpy_rate:,.0f} evaluations/s, the same model in Rust "
          f"{rust_rate:,.0f}/s ({numpy_rate / rust_rate:.3f}); the Python evaluator held the GIL "
          f"{statistics.median(rows['gil']):.1%} of the search's time (medians of {repeats})")


per_call()
throughput()
evaluators()
