"""How much each term tells a label group's labels apart: naive Bayes log-count ratios (Wang & Manning, 2012).

A term found in one label's issues far more often than in the others' (`crash` in bug reports, `how`
in questions) gets a large weight, one spread evenly gets a small one; the classifier reads the TF-IDF
rows scaled by these weights, which lets it trust the telling terms with less data. For each label, the
ratio of the term's share of that label's issues to its share of the rest (terms counted once per issue,
smoothed); a term's weight is a power (the square root, or one chosen per group) of the mean size of its ratios
over the group's labels.
A linear model of the scaled rows is a linear model of the rows, so the fitted model keeps its shape and
is applied as before.

The rows are scaled in place and restored after the fit, a slice at a time: no copy of the fit's rows.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
from scipy import sparse

POWER = 0.5
"""The weights' root unless a group chooses another (`term_choice.py`): the square root does not let a few
issues' chance words decide a small project (the full ratio put Orbit's `type` group below its plain
baseline in its replay)."""
SMOOTHING = 1.0
"""Issues added to every term's count in each label: a term seen in no issue of a label is not infinitely telling."""
FLOOR = 1e-6
"""The least weight: the rows are divided by their weights again after the fit."""
STEP = 1 << 20
"""Stored values scaled at once (4 MB of float32): what bounds the scaling's own memory."""


def presence(x: sparse.csr_matrix, label_of_row: np.ndarray, labels: int, chunk: int = 1000) -> np.ndarray:
    """For each label (`label_of_row`: its index per row, -1 for a row that teaches none), the issues each term
    occurs in; made `chunk` rows at a time, so only a chunk is ever copied."""
    counts = np.zeros((labels, x.shape[1]))
    for start in range(0, x.shape[0], chunk):
        rows = label_of_row[start : start + chunk]
        taught = np.flatnonzero(rows >= 0)
        if not len(taught):
            continue
        part = x[start : start + chunk]
        part.data = np.ones_like(part.data)
        pick = sparse.csr_matrix((np.ones(len(taught)), (rows[taught], taught)), shape=(labels, part.shape[0]))
        counts += (pick @ part).toarray()
    return counts


def log_count_ratios(counts: np.ndarray, power: float = POWER) -> np.ndarray:
    """Each term's weight: the mean size over the labels of log(its share in the label / its share elsewhere),
    to the `power` (`term_choice.py` chooses it per group)."""
    inside = counts + SMOOTHING
    outside = counts.sum(axis=0, keepdims=True) - counts + SMOOTHING
    ratios = np.log(inside / inside.sum(axis=1, keepdims=True)) - np.log(outside / outside.sum(axis=1, keepdims=True))
    return np.asarray(np.maximum(np.abs(ratios).mean(axis=0), FLOOR) ** power, dtype=np.float32)


@contextmanager
def scaled_columns(x: sparse.csr_matrix, weights: np.ndarray) -> Iterator[sparse.csr_matrix]:
    """`x` with each column multiplied by its weight, in place, and divided back afterwards."""
    _scale(x, weights, divide=False)
    try:
        yield x
    finally:
        _scale(x, weights, divide=True)


def _scale(x: sparse.csr_matrix, weights: np.ndarray, *, divide: bool) -> None:
    for start in range(0, x.nnz, STEP):
        factors = weights[x.indices[start : start + STEP]]
        if divide:
            x.data[start : start + STEP] /= factors
        else:
            x.data[start : start + STEP] *= factors
