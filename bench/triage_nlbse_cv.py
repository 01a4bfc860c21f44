"""Cross-validation on the NLBSE'24 training half alone: how each text model and each average of them would do.

`python -m bench.triage_nlbse_cv DIR` (DIR as for `python -m bench nlbse`): each project's training half,
5-fold stratified, twice with different shuffles. Every model is fitted on the same features of each
fold (Atlas's word and character TF-IDF, and the title's character n-grams), and every average of the
probabilities of one, two or three of them is scored by macro-F1, averaged over the projects as the
benchmark's authors average them. "shipped" is Atlas's regression as its fit makes it: the word and
character rows and the signals of how an issue is written (`text_signals.py`), the power of the term
weights and whether to read the signals chosen on each fold's training rows (`term_choice.py`); "power
chosen" is the model before the signals (the power alone chosen), "square root" and "whole term weights"
it at each power, "signals 0.3" (and 0.1, 1) the signals read by every group at that value. The test half
is never read here: it is read once, for the choice this makes, by `python -m bench nlbse`.

`--shuffle N` and `--only NAME` (each repeatable) run one shuffle or some models only: the machine is shared.
"""

from __future__ import annotations

import argparse
import itertools
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

import numpy as np
from scipy import sparse

from atlas.triage.corpus import TEXT_LIMIT
from atlas.triage.model import CHAR_OPTIONS, CHAR_TEXT, VECTOR_OPTIONS, normalise, one_thread
from atlas.triage.term_choice import chosen_reading, fit_scaled, fold_of_rows
from atlas.triage.term_weights import POWER, log_count_ratios, presence
from atlas.triage.text_signals import signal_rows
from bench.triage_nlbse import LABELS, Row, read_benchmark

CLASSES = np.array(sorted(LABELS))
SHUFFLES = (0, 1)
FOLDS = 5
Probabilities = dict[str, np.ndarray]


def _balanced(y: np.ndarray) -> np.ndarray:
    found, counts = np.unique(y, return_counts=True)
    share = dict(zip(found, len(y) / (len(found) * counts), strict=True))
    return np.array([share[label] for label in y])


def _regression(
    x: sparse.csr_matrix, y: np.ndarray, xt: sparse.csr_matrix, c: float, weighted: bool, power: float = POWER
) -> np.ndarray:
    from sklearn.linear_model import LogisticRegression

    terms = np.ones(x.shape[1], dtype=np.float32)
    if weighted:  # Atlas's naive Bayes term weights
        terms = log_count_ratios(presence(x, np.searchsorted(CLASSES, y), len(CLASSES)), power)
    model = LogisticRegression(C=c, max_iter=2000).fit(x.multiply(terms).tocsr(), y, sample_weight=_balanced(y))
    return np.asarray(model.predict_proba(xt.multiply(terms).tocsr()))


def _text(row: Row) -> str:
    """The row as Atlas's model reads an issue (`Issue.text`), normalised."""
    return normalise(f"{row.title}\n{row.title}\n{row.body[:TEXT_LIMIT]}")


def _views(train: list[Row], test: list[Row]) -> dict[str, tuple[sparse.csr_matrix, sparse.csr_matrix]]:
    from sklearn.feature_extraction.text import TfidfVectorizer

    text = _text

    def view(vectorizer: TfidfVectorizer, cut: Callable[[Row], str]) -> tuple[sparse.csr_matrix, sparse.csr_matrix]:
        return vectorizer.fit_transform([cut(r) for r in train]).tocsr(), vectorizer.transform([cut(r) for r in test])

    words = view(TfidfVectorizer(sublinear_tf=True, dtype=np.float32, **VECTOR_OPTIONS), text)  # type: ignore[arg-type]
    chars = view(
        TfidfVectorizer(sublinear_tf=True, min_df=2, dtype=np.float32, **CHAR_OPTIONS),  # type: ignore[arg-type]
        lambda r: text(r)[:CHAR_TEXT],
    )
    title = view(
        TfidfVectorizer(sublinear_tf=True, dtype=np.float32, analyzer="char_wb", ngram_range=(2, 5)),
        lambda r: normalise(r.title),
    )
    both = (sparse.hstack([words[0], chars[0]]).tocsr(), sparse.hstack([words[1], chars[1]]).tocsr())
    with_title = (sparse.hstack([both[0], title[0]]).tocsr(), sparse.hstack([both[1], title[1]]).tocsr())
    return {"words": words, "chars": chars, "title": title, "both": both, "with_title": with_title}


def models(train: list[Row], test: list[Row], only: frozenset[str] = frozenset()) -> Probabilities:
    """Each model's probabilities for the test rows, fitted on the training rows alone (`only`: those named; all
    when empty)."""
    y = np.array([row.label for row in train])
    views = _views(train, test)
    (x, xt), (w, wt) = views["both"], views["words"]
    labels = np.searchsorted(CLASSES, y)

    def power(x: sparse.csr_matrix, c: float = 30.0) -> float:
        # The power of the term weights as Atlas's fit chooses it, on this fold's training rows alone.
        none = np.zeros(x.shape[1], dtype=bool)
        return chosen_reading(x, labels, list(CLASSES), _balanced(y), c, np.arange(len(y)), none)[0]

    def chosen(x: sparse.csr_matrix, xt: sparse.csr_matrix, c: float = 30.0) -> np.ndarray:
        return _regression(x, y, xt, c, True, power(x, c))

    def signals_chosen() -> np.ndarray:
        # The power and whether to read the signals as Atlas's fit chooses them, on this fold's training rows.
        rows = sparse.hstack([x, signal_rows([_text(r) for r in train])]).tocsr()
        held = sparse.hstack([xt, signal_rows([_text(r) for r in test])]).tocsr()
        mask = np.arange(rows.shape[1]) >= x.shape[1]
        weights = _balanced(y)
        found, read = chosen_reading(rows, labels, list(CLASSES), weights, 30.0, np.arange(len(y)), mask)
        model, terms = fit_scaled(rows, labels, list(CLASSES), weights, 30.0, found, None if read else mask)
        return np.asarray(model.predict_proba(held.multiply(terms).tocsr()))

    def with_signals(scale: float) -> Callable[[], np.ndarray]:
        def fit() -> np.ndarray:
            rows = sparse.hstack([x, signal_rows([_text(r) for r in train], scale)]).tocsr()
            held = sparse.hstack([xt, signal_rows([_text(r) for r in test], scale)]).tocsr()
            return chosen(rows, held)

        return fit

    candidates: dict[str, Callable[[], np.ndarray]] = {
        "power chosen": lambda: chosen(x, xt),
        "square root": lambda: _regression(x, y, xt, 30.0, True),
        "whole term weights": lambda: _regression(x, y, xt, 30.0, True, 1.0),
        "words": lambda: _regression(w, y, wt, 30.0, True),
        "chars": lambda: _regression(*views["chars"][:1], y, views["chars"][1], 30.0, True),
        "no term weights": lambda: _regression(x, y, xt, 30.0, False),
        "title block": lambda: _regression(*views["with_title"][:1], y, views["with_title"][1], 30.0, True),
        "title alone": lambda: _regression(*views["title"][:1], y, views["title"][1], 10.0, False),
        "class offsets": lambda: _offset(x, y, xt, power(x)),
        "shipped": signals_chosen,
        "signals 0.1": with_signals(0.1),
        "signals 0.3": with_signals(0.3),
        "signals 1": with_signals(1.0),
        **_others(x, y, xt, w, wt),
    }
    return {name: fit() for name, fit in candidates.items() if not only or name in only}


def _offset(x: sparse.csr_matrix, y: np.ndarray, xt: sparse.csr_matrix, power: float) -> np.ndarray:
    """The regression's probabilities shifted by per-class offsets of their logs: those whose out-of-fold predictions
    of the training rows (3 stratified folds) score the best macro-F1 (the smallest shift on a tie)."""
    from sklearn.metrics import f1_score

    labels = np.searchsorted(CLASSES, y)
    folds = fold_of_rows(labels)
    logs = np.zeros((len(y), len(CLASSES)))
    for fold in range(int(folds.max()) + 1):
        held = folds == fold
        logs[held] = np.log(_regression(x[~held], y[~held], x[held], 30.0, True, power) + 1e-12)
    grid = np.linspace(-1.0, 1.0, 21)
    best, shift = -1.0, np.zeros(len(CLASSES))
    for a, b in sorted(itertools.product(grid, grid), key=lambda pair: abs(pair[0]) + abs(pair[1])):
        trial = np.array([0.0, a, b])
        score = float(f1_score(labels, (logs + trial).argmax(axis=1), average="macro"))
        if score > best + 1e-9:
            best, shift = score, trial
    found = np.log(_regression(x, y, xt, 30.0, True, power) + 1e-12) + shift
    return np.asarray(np.exp(found) / np.exp(found).sum(axis=1, keepdims=True))


def _others(
    x: sparse.csr_matrix, y: np.ndarray, xt: sparse.csr_matrix, w: sparse.csr_matrix, wt: sparse.csr_matrix
) -> dict[str, Callable[[], np.ndarray]]:
    from sklearn.calibration import CalibratedClassifierCV
    from sklearn.linear_model import SGDClassifier
    from sklearn.naive_bayes import ComplementNB
    from sklearn.svm import LinearSVC

    svm = CalibratedClassifierCV(LinearSVC(C=0.5, class_weight="balanced"), cv=3)
    sgd = SGDClassifier(loss="modified_huber", class_weight="balanced", random_state=0, max_iter=50)
    return {
        "svm": lambda: np.asarray(svm.fit(x, y).predict_proba(xt)),
        "sgd": lambda: np.asarray(sgd.fit(x, y).predict_proba(xt)),
        "complement nb": lambda: np.asarray(
            ComplementNB(alpha=0.3).fit((w > 0).astype(np.float32), y).predict_proba(wt > 0)
        ),
    }


Run = tuple[str, np.ndarray, Probabilities]


def cross_validate(
    folder: Path, shuffles: tuple[int, ...] = SHUFFLES, only: frozenset[str] = frozenset()
) -> dict[int, list[Run]]:
    """Each shuffle's runs: every fold of every project, with each model's probabilities of its held rows."""
    from sklearn.model_selection import StratifiedKFold

    runs: dict[int, list[Run]] = {seed: [] for seed in shuffles}
    for repo, rows in sorted(read_benchmark(folder).items()):
        train = [row for row in rows if row.split == "train"]
        y = np.array([row.label for row in train])
        for seed in shuffles:
            for fit, held in StratifiedKFold(FOLDS, shuffle=True, random_state=seed).split(np.zeros(len(y)), y):
                found = models([train[i] for i in fit], [train[i] for i in held], only)
                runs[seed].append((repo, y[held], found))
    return runs


def scores(runs: list[Run], most: int = 3) -> list[tuple[float, tuple[str, ...]]]:
    """Mean macro-F1 over the projects of every average of up to `most` models, best first."""
    from sklearn.metrics import f1_score

    found = []
    for size in range(1, most + 1):
        for combo in itertools.combinations(runs[0][2], size):
            per: dict[str, list[float]] = {}
            for repo, truth, probabilities in runs:
                guess = CLASSES[sum(probabilities[name] for name in combo).argmax(axis=1)]
                per.setdefault(repo, []).append(float(f1_score(truth, guess, average="macro")))
            found.append((statistics.mean(statistics.mean(v) for v in per.values()), combo))
    return sorted(found, reverse=True)


def main(arguments: list[str]) -> None:
    """`DIR [--shuffle N]... [--only NAME]...`: every model and shuffle unless told which."""
    parser = argparse.ArgumentParser(prog="python -m bench.triage_nlbse_cv")
    parser.add_argument("folder", type=Path)
    parser.add_argument("--shuffle", type=int, action="append", help="a shuffle to run (default: 0 and 1)")
    parser.add_argument("--only", action="append", default=[], help="a model to fit (default: all)")
    parser.add_argument("--most", type=int, default=3, help="the most models an average takes")
    options = parser.parse_args(arguments)
    with one_thread():
        runs = cross_validate(options.folder, tuple(options.shuffle or SHUFFLES), frozenset(options.only))
    for seed, found in runs.items():
        print(f"shuffle {seed}:")
        for score, combo in scores(found, options.most):
            print(f"{score:.4f}  {' + '.join(combo)}")


if __name__ == "__main__":
    main(sys.argv[1:])
