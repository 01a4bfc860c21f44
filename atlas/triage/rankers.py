"""The ways the similarity index can rank, and the choice among them by the project's own known duplicates.

Each ranker weighs three readings of an issue: its title, its text without the project's form
lines (both as `index.py` reads them), and the plain TF-IDF text of the `--eval` baseline. No one
ranker wins everywhere: a title that says it all on one tracker is rewritten by every reporter on
another. So a project with enough known duplicates is replayed once per ranker (each duplicate
looked up among the issues filed before it) and keeps the one that finds most originals among
the first five; the plain baseline ships unless another beats it. With too few pairs to tell, the
blend ranks: half the evidence of the reporter's own words, half the plain baseline.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence

import numpy as np

RANKERS: dict[str, tuple[float, float, float]] = {
    "plain": (0.0, 0.0, 1.0),
    "blend": (0.25, 0.25, 0.5),
    "evidence": (0.5, 0.5, 0.0),
}
"""Weights of (title, text without form lines, plain text); the first is the baseline, preferred on a tie."""
DEFAULT = "blend"
MIN_PAIRS = 10
"""Fewer known duplicates than this tell the rankers apart by chance."""
DEPTH = 10

Ranks = list[int | None]
Pair = tuple[int, Sequence[int]]
"""(the duplicate's row in the index, the rows of the reports it duplicates)"""


def recall(ranks: Ranks, k: int) -> float:
    return sum(1 for rank in ranks if rank is not None and rank < k) / len(ranks) if ranks else 0.0


def merit(ranks: Ranks) -> tuple[float, float]:
    """What a ranker is chosen by: originals among the first five, then first."""
    return recall(ranks, 5), recall(ranks, 1)


def choose(ranks: dict[str, Ranks]) -> str:
    """The ranker with the best merit; the earliest in RANKERS (the baseline first) on a tie."""
    if not ranks or len(next(iter(ranks.values()))) < MIN_PAIRS:
        return DEFAULT
    order = [name for name in RANKERS if name in ranks]
    return max(order, key=lambda name: (merit(ranks[name]), -order.index(name)))


def replay(readings_of: Callable[[int], np.ndarray], created: np.ndarray, pairs: list[Pair]) -> dict[str, Ranks]:
    """Each ranker's rank of the first original of each pair among the issues filed before its duplicate.

    `readings_of(row)` is the (3, issues) array of one row's cosines with every row, one per reading."""
    found: dict[str, Ranks] = {name: [] for name in RANKERS}
    for duplicate, originals in pairs:
        earlier = np.flatnonzero(created < created[duplicate])
        readings = readings_of(duplicate)[:, earlier]
        for name, weights in RANKERS.items():
            scores = np.asarray(weights) @ readings
            top = list(earlier[np.argsort(-scores, kind="stable")[:DEPTH]])
            found[name].append(min((top.index(o) for o in originals if o in top), default=None))
    return found
