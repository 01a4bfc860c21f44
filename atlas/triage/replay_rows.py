"""The rows a label replay reads, made once for all its folds.

Each fold of the replay (`evaluate.py`) fits the model and the plain baseline on the issues filed
before it. Fitted from scratch, each fold cut every earlier issue into terms again, for the model
and for the baseline apart: most of a first triage's time. Here each vectorizer learns its vocabulary
and idf once, from the issues filed before the first fold judged (as a fit learns them: the model's
from the newest VOCAB_SAMPLE of them, the baseline's from all), so no fold's test issues leak into
what any fold reads; each issue is cut into terms once, and every fold's classifiers read a slice of
the same rows. Only the issues that teach a group or are tested get rows: the classifiers give every
other issue no weight.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from atlas.triage.corpus import Issue
from atlas.triage.groups import LabelGroup
from atlas.triage.model import TRAIN_MAX, learnt_parts, normalise, training_label
from atlas.triage.rows import VOCAB_SAMPLE, Part, learnt, stacked_rows, vstack_freeing

Learn = Callable[[list[str]], tuple[list[Part], list[sparse.spmatrix]]]
"""Vectorizers learnt from texts, with their rows of those texts."""


@dataclass(frozen=True)
class Fold:
    before: int
    """How many of the replay's issues (oldest first) were filed before the fold: what it learns from."""
    tested: list[int]
    """The places of the fold's test issues among the replay's issues."""


@dataclass
class Rows:
    """Rows of some of a replay's issues, one per issue, in the issues' order."""

    x: sparse.csr_matrix
    places: np.ndarray
    """Each row's issue's place among the replay's issues, ascending."""

    def window(self, start: int, end: int) -> tuple[sparse.csr_matrix, np.ndarray]:
        """The rows of the issues placed in [start, end), sharing the memory of `x`, and their places."""
        low, high = (int(n) for n in np.searchsorted(self.places, [max(start, 0), end]))
        return shared_rows(self.x, low, high), self.places[low:high]

    def at(self, places: list[int]) -> sparse.csr_matrix:
        """A copy of the rows of the issues at `places` (each must have a row)."""
        return sparse.csr_matrix(self.x[np.searchsorted(self.places, places)])


def shared_rows(x: sparse.csr_matrix, low: int, high: int) -> sparse.csr_matrix:
    """Rows low to high of `x` as a matrix over the same data and indices: a change to one is a change to both."""
    start, stop = int(x.indptr[low]), int(x.indptr[high])
    data, indices = x.data[start:stop], x.indices[start:stop]
    rows = sparse.csr_matrix((data, indices, x.indptr[low : high + 1] - start), shape=(high - low, x.shape[1]))
    # Set again: scipy copies a slice of less than half its array when it makes a matrix of it.
    rows.data, rows.indices = data, indices
    return rows


def replay_rows(issues: list[Issue], groups: list[LabelGroup], folds: Sequence[Fold]) -> tuple[Rows, Rows]:
    """The model's rows and the baseline's for `folds` (the first with some history, the last with the most):
    every issue a fold learns from that teaches a group, and every tested one. A ValueError when no word
    is left to learn from the issues before the first fold."""
    first, last = folds[0].before, max(fold.before for fold in folds)
    taught = [n for n in range(last) if any(training_label(issues[n], group) for group in groups)]
    tested = {n for fold in folds for n in fold.tested}
    # Each fold's model learns from its newest TRAIN_MAX issues; its baseline from all of them.
    ours = sorted(tested.union(n for n in taught if n >= first - TRAIN_MAX))
    sample = range(max(0, first - VOCAB_SAMPLE), first)
    model = made_rows(issues, lambda issue: normalise(issue.text), learnt_parts, sample, ours)
    baseline = made_rows(issues, lambda issue: issue.text, _plain, range(first), sorted(tested.union(taught)))
    return model, baseline


def made_rows(
    issues: list[Issue], text: Callable[[Issue], str], learn: Learn, sample: range, needed: list[int]
) -> Rows:
    """Rows of the issues at the `needed` places (ascending), by vectorizers learnt from the issues at the
    `sample` places (their order changes only the order of the rows learning makes), in the learnt
    rows' number type."""
    parts, first = learn([text(issues[n]) for n in sample])
    inside = sparse.csr_matrix(sparse.hstack(first, format="csr"))
    dtype = inside.dtype.type
    del first
    blocks = [
        _rows(parts, [text(issues[n]) for n in needed if n < sample.start], dtype),
        sparse.csr_matrix(inside[[n - sample.start for n in needed if n in sample]]),
        _rows(parts, [text(issues[n]) for n in needed if n >= sample.stop], dtype),
    ]
    del inside
    return Rows(vstack_freeing([block for block in blocks if block is not None], dtype), np.array(needed, dtype=int))


def _rows(parts: list[Part], texts: list[str], dtype: type[np.floating]) -> sparse.csr_matrix | None:
    return stacked_rows(parts, texts, dtype=dtype) if texts else None


def _plain(texts: list[str]) -> tuple[list[Part], list[sparse.spmatrix]]:
    """The baseline's vectorizer: scikit-learn's TF-IDF as it comes, learnt from every text."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    parts: list[Part] = [(TfidfVectorizer(), None)]
    return parts, learnt(parts, texts, sample=len(texts))
