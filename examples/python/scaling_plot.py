#!/usr/bin/env python3
"""Playout throughput against threads, per search mode, from parmcts's benchmark.

    cd python && maturin develop --release    # or: pip install ./python
    python3 examples/python/scaling_plot.py [playouts]

``parmcts.bench`` measures pure random playouts (no tree) and MCTS in each mode at each
thread count, the repeats interleaved, and gives each row's median rate and its ratio
to the sequential search of the same run (as ``parmcts bench --json``). The figures are
printed as a table and, where matplotlib is installed, drawn into ``scaling.png``.
Parallel ratios need idle cores: ``rows.report["load_average"]`` says how busy the
machine was.
"""

import os
import sys

import parmcts

GAME = "connect4"
MODES = ("pure", "seq", "tree", "root")


def main():
    playouts = int(sys.argv[1]) if len(sys.argv) > 1 else 5_000
    cores = os.cpu_count() or 1
    threads = sorted({1, 2, min(cores, 4), cores} if len(sys.argv) > 1 else {1, 2})
    rows = parmcts.bench(GAME, modes=MODES, threads=threads, repeat=3, playouts=playouts)
    print(f"{GAME}: {playouts} playouts per run, median of {rows.report['repeat']}, {rows.report['cores']} cores")
    print(f"{'mode':<6} {'threads':>7} {'playouts/s':>12} {'x seq':>7}")
    for r in rows:
        print(f"{r['mode']:<6} {r['threads']:>7} {r['playouts_per_sec']:>12.0f} {r['ratio_to_seq']:>7.2f}")
    if "load_average" in rows.report:
        before, after = rows.report["load_average"]
        print(f"load average {before:.2f} before, {after:.2f} after")
    try:
        import matplotlib

        matplotlib.use("Agg")
        import matplotlib.pyplot as plt
    except ImportError:
        print("(matplotlib is not installed: no plot)")
        return
    figure, axes = plt.subplots(figsize=(6, 4))
    for mode in MODES:
        points = sorted((r["threads"], r["playouts_per_sec"]) for r in rows if r["mode"] == mode)
        if mode == "seq":  # one thread: the baseline of every ratio
            axes.axhline(points[0][1], color="grey", linestyle="--", label="seq (1 thread)")
            continue
        axes.plot([t for t, _ in points], [rate for _, rate in points], marker="o", label=mode)
    axes.set_ylim(bottom=0)
    axes.set_xlabel("threads")
    axes.set_ylabel("playouts per second")
    axes.set_xticks(threads)
    axes.set_title(f"{GAME}: throughput against threads")
    axes.legend()
    figure.tight_layout()
    figure.savefig("scaling.png", dpi=120)
    print("plot in scaling.png")


if __name__ == "__main__":
    main()
