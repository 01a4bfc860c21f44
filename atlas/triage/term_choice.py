"""How strongly a label group's regression leans on its telling terms, and whether it reads the signals of how an
issue is written, chosen per project by cross-validation.

The naive Bayes term weights (`term_weights.py`) can be taken at their square root or whole. Whole,
they let a few telling terms decide: on the NLBSE'24 benchmark's training half that helped most
projects (tensorflow's questions, bitcoin's bugs), while on a small project's history the same full
weights let chance words decide (Orbit's `type` group fell below its plain baseline). So each group
chooses for itself: its newest CHOICE_MAX taught issues are cut into FOLDS stratified folds, each
fold predicted by regressions fitted on the others at each power, with and without the signal columns
(`text_signals.py`), and the reading whose predictions score the best macro-F1 is kept (the square root
without signals on a tie). A group with fewer than CHOICE_MIN taught issues keeps the square root without
signals: too few to tell (with the signals always read, Orbit's `type` group fell below its plain baseline
in its replay, 0.56 against 0.61).

The choice reads a copy of those rows alone, over the terms they hold (CHOICE_MAX rows: a few MB),
so its time and memory are bounded however large the project.
"""

from __future__ import annotations

from typing import Any

import numpy as np
from scipy import sparse

from atlas.triage.term_weights import FLOOR, log_count_ratios, presence, scaled_columns

POWERS = (0.5, 1.0)
"""The candidate roots of the term weights, the default first (it wins a tie)."""
Reading = tuple[float, bool]
"""The power of the term weights, and whether the signal columns are read."""
READINGS: tuple[Reading, ...] = tuple((power, signals) for signals in (False, True) for power in POWERS)
"""The candidate readings, the default first (it wins a tie)."""
FOLDS = 3
CHOICE_MIN = 240
"""Taught issues a group needs before it chooses: eighty a fold. With fewer, the folds are too small to tell
the powers apart (Orbit's `comp` group, 141 issues in eight labels, chose one power in one fold of its replay
and the other in the next, and its replayed macro-F1 fell from 0.89 to 0.83)."""
CHOICE_MAX = 300
"""The newest taught issues the choice reads: bounds its cost (each power is fitted FOLDS times)."""


def fit_scaled(
    x: sparse.csr_matrix,
    label_of_row: np.ndarray,
    classes: list[str],
    weights: np.ndarray,
    c: float,
    power: float,
    muted: np.ndarray | None = None,
) -> tuple[Any, np.ndarray]:
    """A logistic regression of the rows `x` scaled by the term weights of the rows that teach (`label_of_row`:
    each row's index in `classes`, -1 for none; `weights`: each row's sample weight, 0 for none), and those
    term weights; the columns `muted` marks weigh next to nothing. `x` is scaled in place and restored."""
    from sklearn.linear_model import LogisticRegression

    term_weights = log_count_ratios(presence(x, label_of_row, len(classes)), power)
    if muted is not None:
        term_weights[muted] = FLOOR
    classifier = LogisticRegression(C=c, max_iter=2000)
    with scaled_columns(x, term_weights):
        classifier.fit(x, [classes[max(n, 0)] for n in label_of_row], sample_weight=weights)
    return classifier, term_weights


def chosen_reading(
    x: sparse.csr_matrix,
    label_of_row: np.ndarray,
    classes: list[str],
    weights: np.ndarray,
    c: float,
    newest_first: np.ndarray,
    signals: np.ndarray,
) -> Reading:
    """The reading that predicts this group's newest taught rows best in cross-validation (`newest_first`: the
    rows' places, the newest issue's first; `signals`: which of `x`'s columns are signals)."""
    taught = newest_first[label_of_row[newest_first] >= 0][:CHOICE_MAX]
    if len(taught) < CHOICE_MIN:
        return READINGS[0]
    rows = sparse.csr_matrix(x[taught])
    # Terms none of these rows holds get no weight in any fold's regression: left out, they would only
    # lengthen every step of its solver, which works on every column of every label.
    columns = np.unique(rows.indices)
    rows, mask = sparse.csr_matrix(rows[:, columns]), signals[columns]
    labels, sample_weights = label_of_row[taught], weights[taught]
    if np.sum(np.bincount(labels) >= FOLDS) < 2:  # no two labels in every fold's training rows
        return READINGS[0]
    folds = fold_of_rows(labels)
    readings = READINGS if mask.any() else READINGS[: len(POWERS)]
    scores = [
        _cross_validated(rows, labels, classes, sample_weights, folds, c, (power, None if read else mask))
        for power, read in readings
    ]
    return readings[int(np.argmax(scores))]  # the first of equal scores


def fold_of_rows(labels: np.ndarray, folds: int = FOLDS) -> np.ndarray:
    """Each row's fold: the rows of each label dealt out in turn, so every fold holds each label's share."""
    found = np.zeros(len(labels), dtype=int)
    for label in np.unique(labels):
        mine = np.flatnonzero(labels == label)
        found[mine] = np.arange(len(mine)) % folds
    return found


def _cross_validated(
    rows: sparse.csr_matrix,
    labels: np.ndarray,
    classes: list[str],
    weights: np.ndarray,
    folds: np.ndarray,
    c: float,
    scaling: tuple[float, np.ndarray | None],
) -> float:
    """Macro-F1 of every row predicted by the regression fitted on the other folds (the held fold given no weight),
    its term weights at the power `scaling` gives, the columns it marks muted."""
    from sklearn.metrics import f1_score

    guess = np.empty(len(labels), dtype=int)
    for fold in range(int(folds.max()) + 1):
        held = folds == fold
        learning = np.where(held, -1, labels)
        classifier, term_weights = fit_scaled(rows, learning, classes, np.where(held, 0.0, weights), c, *scaling)
        scores = np.asarray(rows[held] @ (classifier.coef_ * term_weights).T) + classifier.intercept_
        if scores.shape[1] == 1:  # two labels: one column, the second label's score
            scores = np.column_stack([-scores[:, 0], scores[:, 0]])
        index = {str(label): n for n, label in enumerate(classes)}
        order = np.array([index[str(label)] for label in classifier.classes_])
        guess[held] = order[scores.argmax(axis=1)]
    return float(f1_score(labels, guess, average="macro"))
