#!/usr/bin/env python3
"""A NumPy evaluator of Connect Four plugged into parmcts's search from Python.

    cd python && maturin develop        # or: pip install ./python
    python3 examples/python/toy_evaluator.py [playouts]

The evaluator is a toy, but a sensible one: each cell is worth the number of lines of
four through it (the centre 13, a corner 3), a position's value is the side to move's
worth minus the opponent's through a logistic curve, and each legal column's prior is
the worth of the cell its disc lands on. The search gathers its leaves into batches of
up to ``eval_batch`` positions and calls the evaluator once per batch, with the GIL
held only during the call; ``result["evaluator"]`` counts the calls and positions.
"""

import sys

import numpy as np

import parmcts

# Lines of four through each cell of the 6x7 board (row 0 at the bottom).
CELL_WORTH = np.array(
    [
        [3, 4, 5, 7, 5, 4, 3],
        [4, 6, 8, 10, 8, 6, 4],
        [5, 8, 11, 13, 11, 8, 5],
        [5, 8, 11, 13, 11, 8, 5],
        [4, 6, 8, 10, 8, 6, 4],
        [3, 4, 5, 7, 5, 4, 3],
    ],
    dtype=np.float32,
)
ROWS, COLUMNS = CELL_WORTH.shape


def evaluate(planes, masks):
    """``planes`` (n, 2, 6, 7): the side to move's discs, then the opponent's; ``masks``
    (n, 7): the legal columns. Returns the side to move's win probabilities (n,) and the
    priors (n, 7)."""
    mine, theirs = planes[:, 0], planes[:, 1]
    worth = (mine * CELL_WORTH).sum(axis=(1, 2)) - (theirs * CELL_WORTH).sum(axis=(1, 2))
    values = 1.0 / (1.0 + np.exp(-worth / 16.0))
    # The row each column's next disc lands on, and that cell's worth (0 when full).
    heights = (mine + theirs).sum(axis=1).astype(np.int64)
    landing = CELL_WORTH[np.minimum(heights, ROWS - 1), np.arange(COLUMNS)]
    priors = np.where(masks & (heights < ROWS), landing, 0.0)
    priors /= np.maximum(priors.sum(axis=1, keepdims=True), 1e-9)
    return values.astype(np.float32), priors.astype(np.float32)


def main():
    playouts = int(sys.argv[1]) if len(sys.argv) > 1 else 3_000
    position = parmcts.Position("connect4", "4453")
    print(position)
    # A check by hand: the evaluator on the position's own planes.
    values, priors = evaluate(position.planes()[None], position.legal_mask()[None])
    print(f"toy value for the side to move {values[0]:.3f}, priors {np.round(priors[0], 2)}")
    result = parmcts.search(
        position,
        evaluator=evaluate,
        playouts=playouts,
        threads=2,
        eval_batch=64,
        eval_priors=True,
        seed=1,
    )
    # The final-move rule picks the move (a lower confidence bound where the game halves
    # its root, as Connect Four does), which need not be the most visited.
    print(f"best move {result['best_move']} after {result['playouts']} playouts, line {' '.join(result['pv'])}")
    for child in sorted(result["children"], key=lambda c: -c["visits"]):
        print(f"  {child['move']}: {child['visits']:5} visits, value {child['value']:.3f}")
    stats = result["evaluator"]
    print(
        f"evaluator: {stats['calls']} calls, {stats['positions']} positions "
        f"({stats['positions'] / max(stats['calls'], 1):.1f} a call, largest {stats['largest_batch']}), "
        f"{stats['gil_seconds']:.3f} s holding the GIL"
    )


if __name__ == "__main__":
    main()
