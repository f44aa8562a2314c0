#!/usr/bin/env python3
"""A match's games as a pandas table: the score by colour and the games' length.

    cd python && maturin develop --release    # or: pip install ./python
    pip install pandas
    python3 examples/python/match_table.py [games]

``parmcts.match`` plays two player specs against each other (colours alternating,
paired random openings) and returns one record per game, which ``pandas.DataFrame``
takes as it is; the match's summary (score and Elo with their 95 % intervals, as
``parmcts match --json``) is the records' ``report``.
"""

import sys

import parmcts

try:
    import pandas as pd
except ImportError:
    sys.exit("this example needs pandas: pip install pandas")

GAME = "connect4"
STRONG, WEAK = "mcts:playouts=400", "mcts:playouts=100"


def main():
    games = int(sys.argv[1]) if len(sys.argv) > 1 else 8
    records = parmcts.match(GAME, STRONG, WEAK, games=games, openings="random:2", parallel_games=2, seed=1)
    frame = pd.DataFrame(records)
    # The first spec's points in each game: 1 for a win, 0.5 for a draw.
    frame["p1_points"] = frame["result"].map({"p1": 1.0, "draw": 0.5, "p2": 0.0})
    frame["p1_colour"] = frame["p1_first"].map({True: "first", False: "second"})
    print(frame[["game", "p1_colour", "result", "ending", "plies"]].to_string(index=False))
    print()
    by_colour = frame.groupby("p1_colour").agg(games=("game", "size"), score=("p1_points", "mean"),
                                               mean_plies=("plies", "mean"))
    print(f"{STRONG} (p1) against {WEAK} (p2), by the colour p1 played:")
    print(by_colour.to_string(float_format=lambda x: f"{x:.2f}"))
    summary = records.report
    lo, hi = summary["score_ci95"]
    elo_lo, elo_hi = summary["elo_ci95"]
    print()
    print(
        f"score {summary['score']:.3f} [{lo:.3f}, {hi:.3f}], elo {summary['elo']:+.0f} "
        f"[{elo_lo:+.0f}, {elo_hi:+.0f}] (95 %) over {summary['games']} games; "
        f"mean length {frame['plies'].mean():.1f} plies"
    )


if __name__ == "__main__":
    main()
