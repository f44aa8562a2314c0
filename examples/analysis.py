#!/usr/bin/env python3
"""Driving `parmcts analysis` (the JSON-lines analysis engine, docs/ANALYSIS.md) from a script.

    cargo build --release
    python3 examples/analysis.py [path/to/parmcts]

It analyses the first turns of an Othello game, streams a Go search and terminates it,
and shows the error a bad query gets. The standard library only: one process, a thread
reading its replies, a queue per query id.
"""

import json
import queue
import subprocess
import sys
import threading


class AnalysisEngine:
    """One `parmcts analysis` process; replies are routed to their query by id."""

    def __init__(self, binary, *flags):
        self.process = subprocess.Popen(
            [binary, "analysis", *flags],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.replies = {}
        self.lock = threading.Lock()
        self.next_id = 0
        threading.Thread(target=self._read, daemon=True).start()

    def _queue(self, query_id):
        with self.lock:
            return self.replies.setdefault(query_id, queue.Queue())

    def _read(self):
        for line in self.process.stdout:
            reply = json.loads(line)
            self._queue(reply.get("id")).put(reply)

    def send(self, **fields):
        """Sends one query (or action) and returns its id."""
        if "id" not in fields:
            self.next_id += 1
            fields["id"] = f"q{self.next_id}"
        self._queue(fields["id"])
        self.process.stdin.write(json.dumps(fields) + "\n")
        self.process.stdin.flush()
        return fields["id"]

    def replies_to(self, query_id, timeout=120):
        """Yields the replies to `query_id` as they come."""
        while True:
            yield self._queue(query_id).get(timeout=timeout)

    def analyse(self, turns, **fields):
        """The final analysis of each turn, by turn number (errors raise)."""
        query_id = self.send(analyzeTurns=turns, **fields)
        finals = {}
        for reply in self.replies_to(query_id):
            if "error" in reply:
                raise ValueError(f"{reply.get('field')}: {reply['error']}")
            if "warning" in reply or reply["isDuringSearch"]:
                continue
            finals[reply["turnNumber"]] = reply
            if len(finals) == len(turns):
                return finals

    def close(self):
        self.process.stdin.close()
        return self.process.wait(timeout=120)


def best(reply):
    move = reply["moveInfos"][0]
    return f"{move['move']} ({move['visits']} visits, win rate {move['winrate']:.3f}, pv {' '.join(move['pv'][:4])})"


def main():
    binary = sys.argv[1] if len(sys.argv) > 1 else "target/release/parmcts"
    engine = AnalysisEngine(binary, "--analysis-threads", "2")

    # 1. The first turns of an Othello game, searched two at a time.
    moves = [["B", "d3"], ["W", "c5"], ["B", "f6"], ["W", "f5"]]
    finals = engine.analyse([0, 1, 2, 3, 4], game="othello", moves=moves, maxVisits=2000)
    for turn in sorted(finals):
        reply = finals[turn]
        print(f"othello turn {turn}, {reply['rootInfo']['currentPlayer']} to move: {best(reply)}")

    # 2. A Go search reporting every 0.1 s, terminated after its third report.
    go = engine.send(moves=[["B", "E5"], ["W", "C3"]], komi=7, boardXSize=9, boardYSize=9,
                     maxVisits=10_000_000, reportDuringSearchEvery=0.1, includeOwnership=True)
    reports = 0
    for reply in engine.replies_to(go):
        if reply.get("isDuringSearch"):
            reports += 1
            print(f"go, report {reports}: {reply['rootInfo']['visits']} visits, best {best(reply)}")
            if reports == 3:
                engine.send(action="terminate", terminateId=go)
        elif "moveInfos" in reply:
            print(f"go, terminated at {reply['rootInfo']['visits']} visits; "
                  f"ownership of {len(reply['ownership'])} points")
            break

    # 3. A bad query is answered with the field at fault; the engine goes on.
    try:
        engine.analyse([1], game="othello", moves=[["B", "a1"]])
    except ValueError as error:
        print(f"refused: {error}")
    else:
        raise SystemExit("an illegal move was accepted")

    version = engine.send(action="query_version")
    print(f"parmcts {next(engine.replies_to(version))['version']}")
    if engine.close() != 0:
        raise SystemExit("the engine failed")


if __name__ == "__main__":
    main()
