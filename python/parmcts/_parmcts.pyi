"""Type stubs of the extension module (the Rust side of the package)."""

from typing import Any, Callable, Optional, Sequence, Tuple, Union

import numpy as np
import numpy.typing as npt

__version__: str

class ParmctsError(Exception):
    """The base of parmcts's own exceptions."""

class SearchError(ParmctsError):
    """A search that could not run or failed while running."""

class EvaluatorError(SearchError):
    """A Python evaluator raised (the exception is the cause) or answered a bad value."""

#: ``evaluator(planes, masks)``: ``planes`` float32 ``(n, planes, height, width)``,
#: ``masks`` bool ``(n, policy_size)``; returns ``n`` values in [0, 1] (the side to
#: move's win probability) or ``(values, priors)``, priors ``(n, policy_size)``.
Evaluator = Callable[
    [npt.NDArray[np.float32], npt.NDArray[np.bool_]],
    Union[npt.ArrayLike, Tuple[npt.ArrayLike, npt.ArrayLike]],
]

class LinearEvaluator:
    """A logistic model of the input planes, evaluated in Rust without the GIL:
    ``1 / (1 + exp(-(weights . planes + bias)))``. Pass it as ``evaluator=``."""

    def __init__(self, weights: npt.ArrayLike, bias: float = 0.0) -> None: ...

class Position:
    """A position of one of parmcts's games (``Position.games()``)."""

    def __init__(self, game: str, moves: str = "") -> None: ...
    @staticmethod
    def games() -> list[str]: ...
    @property
    def game(self) -> str: ...
    def legal_moves(self) -> list[str]: ...
    def play(self, move: str) -> None: ...
    def is_over(self) -> bool: ...
    def outcome(self) -> Optional[str]: ...
    def to_move(self) -> int: ...
    def copy(self) -> "Position": ...
    def planes(self) -> Optional[npt.NDArray[np.float32]]: ...
    def legal_mask(self) -> Optional[npt.NDArray[np.bool_]]: ...

class SearchHandle:
    """A search running on its own thread (``start``)."""

    def snapshot(self) -> dict[str, Any]: ...
    def is_finished(self) -> bool: ...
    def stop(self) -> dict[str, Any]: ...
    def wait(self, timeout: Optional[float] = None) -> Optional[dict[str, Any]]: ...

def search(position: Position, *, evaluator: Optional[Union[Evaluator, LinearEvaluator]] = None, **settings: Any) -> dict[str, Any]: ...
def start(position: Position, *, evaluator: Optional[Union[Evaluator, LinearEvaluator]] = None, **settings: Any) -> SearchHandle: ...
class Records(list[dict[str, Any]]):
    """A list of dicts (one per game, benchmark row or ladder rung), as
    ``pandas.DataFrame`` takes it; ``report`` is the whole report, what the command
    line's ``--json`` prints."""

    report: dict[str, Any]

def match(
    game: str, p1: str, p2: str, *, games: int = 2, openings: str = "none", parallel_games: int = 1,
    seed: int = 0, moves: str = "",
) -> Records:
    """Plays a match between two player specs (as ``parmcts match --p1``); colours alternate.

    Returns one record per game, in game order, with the keys of ``parmcts match
    --records``: ``game``, ``opening``, ``moves``, ``plies``, ``result`` (``"p1"``,
    ``"p2"`` or ``"draw"``, by spec), ``ending``, ``p1_first``, ``players``, ``move_ms``,
    ``move_playouts``. ``report`` is the match's summary, as ``parmcts match --json``
    (wins, draws, score and Elo with their 95 % intervals, move times, forfeits).
    ``openings``: ``"none"``, ``"random:R"`` or ``"all:R"``; the games start from
    ``moves``. Raises ``ValueError`` for a bad argument.
    """

def bench(
    game: Optional[str] = None, *, modes: Sequence[str] = ("pure", "seq", "tree", "root"),
    threads: Sequence[int] = (1, 2), repeat: int = 5, **settings: Any,
) -> Records:
    """Playout throughput, as ``parmcts bench --json``: one row per (game, mode, threads).

    Rows: ``game``, ``mode``, ``threads``, ``lanes``, ``playouts``, ``playouts_per_sec``,
    ``ns_per_playout``, ``ratio_to_seq``, ``samples``; ``report`` adds ``repeat``,
    ``cores``, ``othello_playout_build`` and ``load_average``. ``game=None``: every game.
    Search settings are keywords (``playouts=2000``; not ``mode`` or ``time_ms``).
    """

def scale(
    game: str, *, modes: Sequence[str] = ("tree", "root"), threads: Sequence[int] = (1, 2), time_ms: int = 20,
    k: Sequence[int] = (1, 2, 4), games: int = 100, repeat: int = 5, seed: int = 1, quick: bool = False,
    **settings: Any,
) -> dict[str, Any]:
    """What more cores are worth, as ``parmcts scale --json``: ``throughput``,
    ``overhead`` (at equal playouts), ``strength`` (parallel at ``time_ms`` against
    sequential at ``k`` times as long) and ``strength_speedup``. ``quick=True``:
    ``time_ms=5``, ``k=(1, 2)``, ``games=10``, ``repeat=3``.
    """

def ladder(
    game: str, player: str = "mcts", *, start: int = 1000, stop: int = 16000, games: int = 100,
    openings: str = "random:2", parallel_games: int = 1, seed: int = 0,
) -> Records:
    """What more search is worth, as ``parmcts ladder --json``: each rung doubles the
    playouts per move of ``player`` (an ``mcts`` spec without a budget) from ``start``
    while they stay within ``stop`` and plays the rung below.

    One record per rung: ``playouts``, ``elo_total`` (Elo above the lowest rung) and the
    rung's match summary (``p1``, ``p2``, ``score``, ``elo``, ``elo_ci95``, …); ``report``
    is ``{"game", "player", "openings", "rungs"}``.
    """

def _time_searches(position: Position, n: int, **settings: Any) -> float: ...
