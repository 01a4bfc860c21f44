"""The per-group choice of the term weights' power: stratified folds, each fold predicted by a regression
of the other folds alone, the best power kept (the default on a tie or with too few issues), the rows
left as they were."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse

from atlas.triage import term_choice, term_weights

CLASSES = ["bug", "feature", "question"]


def problem(count: int, seed: int = 4) -> tuple[sparse.csr_matrix, np.ndarray, np.ndarray]:
    """Rows of noise terms and a telling term per label (seen in most of its rows, sometimes in another's);
    every fifth row teaches nothing. Returns the rows, each row's label index (-1: none) and its weight."""
    rng = np.random.default_rng(seed)
    labels = np.where(np.arange(count) % 5 == 4, -1, rng.integers(0, 3, size=count))
    dense = (rng.random((count, 40)) < 0.15) * rng.random((count, 40))
    for row, label in enumerate(labels):
        telling = label if label >= 0 and rng.random() < 0.7 else rng.integers(0, 3)
        dense[row, telling] = 1.0
    weights = np.where(labels >= 0, 1.0, 0.0)
    return sparse.csr_matrix(dense, dtype=np.float32), labels, weights


def test_folds_deal_each_label_out_evenly() -> None:
    labels = np.array([0, 0, 0, 0, 0, 0, 1, 1, 1, 2, 2, 0])
    folds = term_choice.fold_of_rows(labels)
    for label in (0, 1, 2):
        counts = np.bincount(folds[labels == label], minlength=3)
        assert counts.max() - counts.min() <= 1


def test_each_fold_is_predicted_by_a_regression_of_the_other_folds_alone() -> None:
    from sklearn.linear_model import LogisticRegression
    from sklearn.metrics import f1_score

    x, labels, weights = problem(150)
    taught = labels >= 0
    rows, taught_labels = x[taught], labels[taught]
    folds = term_choice.fold_of_rows(taught_labels)
    found = term_choice._cross_validated(rows, taught_labels, CLASSES, weights[taught], folds, 30.0, (1.0, None))
    guess = np.empty(len(taught_labels), dtype=int)
    for fold in range(term_choice.FOLDS):
        held = folds == fold
        counts = term_weights.presence(rows[~held], taught_labels[~held], 3)
        scale = term_weights.log_count_ratios(counts, 1.0)
        alone = LogisticRegression(C=30.0, max_iter=2000).fit(rows[~held] @ sparse.diags(scale), taught_labels[~held])
        guess[held] = alone.predict(rows[held] @ sparse.diags(scale))
    assert found == pytest.approx(f1_score(taught_labels, guess, average="macro"), abs=0.02)
    assert found > 0.5  # the telling terms are learnt


def no_signals(x: sparse.csr_matrix) -> np.ndarray:
    return np.zeros(x.shape[1], dtype=bool)


def test_the_best_power_is_kept_the_default_on_a_tie(monkeypatch: pytest.MonkeyPatch) -> None:
    x, labels, weights = problem(400)
    newest = np.arange(x.shape[0])[::-1]
    scores = {0.5: 0.70, 1.0: 0.75}
    monkeypatch.setattr(term_choice, "_cross_validated", lambda *args: scores[args[-1][0]])
    assert term_choice.chosen_reading(x, labels, CLASSES, weights, 30.0, newest, no_signals(x)) == (1.0, False)
    scores[1.0] = 0.70
    assert term_choice.chosen_reading(x, labels, CLASSES, weights, 30.0, newest, no_signals(x)) == (0.5, False)


def with_signal(count: int, telling: bool) -> tuple[sparse.csr_matrix, np.ndarray, np.ndarray, np.ndarray]:
    """The problem's rows with a last, signal column: set on most questions' rows when `telling`, at random if not."""
    x, labels, weights = problem(count)
    rng = np.random.default_rng(9)
    shown = (labels == 2) & (rng.random(count) < 0.9) if telling else rng.random(count) < 0.3
    rows = sparse.hstack([x, sparse.csr_matrix(shown.reshape(-1, 1) * 0.3)], format="csr", dtype=np.float32)
    return rows, labels, weights, np.arange(rows.shape[1]) == rows.shape[1] - 1


def test_a_group_reads_the_signals_when_they_predict_its_rows_better() -> None:
    x, labels, weights, signals = with_signal(500, telling=True)
    newest = np.arange(500)[::-1]
    assert term_choice.chosen_reading(x, labels, CLASSES, weights, 30.0, newest, signals)[1] is True
    # Muted, a signal column weighs next to nothing in the model; read, it tells questions.
    for muted, size in ((signals, 1e-3), (None, 1.0)):
        model, scale = term_choice.fit_scaled(x, labels, CLASSES, weights, 30.0, 0.5, muted)
        coef = model.coef_ * scale
        assert (abs(coef[2, -1]) < size) == (muted is not None) and (coef[2, -1] > size) == (muted is None)


def test_without_signal_columns_only_the_powers_are_tried(monkeypatch: pytest.MonkeyPatch) -> None:
    x, labels, weights = problem(400)
    tried: list[tuple[float, object]] = []
    monkeypatch.setattr(term_choice, "_cross_validated", lambda *args: tried.append(args[-1]) or 0.0)
    term_choice.chosen_reading(x, labels, CLASSES, weights, 30.0, np.arange(400), no_signals(x))
    assert [power for power, _ in tried] == list(term_choice.POWERS)
    x, labels, weights, signals = with_signal(400, telling=False)
    tried.clear()
    term_choice.chosen_reading(x, labels, CLASSES, weights, 30.0, np.arange(400), signals)
    assert len(tried) == len(term_choice.READINGS)
    assert sum(muted is None for _, muted in tried) == len(term_choice.POWERS)


def test_too_few_issues_keep_the_default_and_the_rows_are_left_as_they_were(monkeypatch: pytest.MonkeyPatch) -> None:
    # 224 taught: fewer than CHOICE_MIN. Scored by their power, the readings would pick the largest.
    monkeypatch.setattr(term_choice, "_cross_validated", lambda *args: args[-1][0])
    x, labels, weights, signals = with_signal(280, telling=True)
    assert term_choice.chosen_reading(x, labels, CLASSES, weights, 30.0, np.arange(280), signals) == (0.5, False)
    x, labels, weights, signals = with_signal(400, telling=True)
    before = x.copy()
    monkeypatch.undo()
    found = term_choice.chosen_reading(x, labels, CLASSES, weights, 30.0, np.arange(400), signals)
    assert found in term_choice.READINGS
    assert abs(x - before).max() == 0


def test_the_choice_reads_the_newest_taught_rows_only(monkeypatch: pytest.MonkeyPatch) -> None:
    x, labels, weights = problem(500)
    read: list[sparse.csr_matrix] = []
    monkeypatch.setattr(term_choice, "_cross_validated", lambda rows, *args: read.append(rows) or 0.0)
    newest = np.arange(500)[::-1]  # the last row is the newest issue's
    term_choice.chosen_reading(x, labels, CLASSES, weights, 30.0, newest, no_signals(x))
    expected = x[[n for n in newest if labels[n] >= 0][: term_choice.CHOICE_MAX]]
    assert len(read) == len(term_choice.POWERS)
    # The same rows, over the terms they hold.
    assert np.allclose(read[0].sum(axis=1), expected.sum(axis=1))
    assert read[0].shape == (term_choice.CHOICE_MAX, len(np.unique(expected.indices)))
