"""parmcts: lock-free parallel Monte Carlo Tree Search in Rust, for Python.

    >>> import parmcts
    >>> position = parmcts.Position("connect4", "4453")
    >>> result = parmcts.search(position, playouts=20_000, threads=2, seed=1)
    >>> result["best_move"] in position.legal_moves()
    True

Every search setting of the library is a keyword argument, by its command-line name
with ``_`` for ``-`` (``parmcts search --help`` lists them). Searches release the GIL;
``start`` runs one on a thread of its own and returns its ``SearchHandle``. The
harness's ``match``, ``bench`` and ``ladder`` return ``Records``: lists of dicts, one per
game, row or rung, as ``pandas.DataFrame`` takes them, with the whole report (what the
command line's ``--json`` prints) as their ``report``; ``scale`` returns its report.
"""

from ._parmcts import (
    EvaluatorError,
    LinearEvaluator,
    ParmctsError,
    Position,
    SearchError,
    SearchHandle,
    __version__,
    search,
    start,
)

try:  # the harness's runs, where the extension provides them
    from ._parmcts import Records, bench, ladder, match, scale  # noqa: F401
except ImportError:  # pragma: no cover
    pass

__all__ = [
    "EvaluatorError",
    "LinearEvaluator",
    "ParmctsError",
    "Position",
    "Records",
    "SearchError",
    "SearchHandle",
    "__version__",
    "bench",
    "ladder",
    "match",
    "scale",
    "search",
    "start",
]
