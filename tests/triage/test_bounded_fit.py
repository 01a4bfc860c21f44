"""The fit's memory bounds: vocabularies from a sample, rows made in chunks, no copy of the rows per group,
and none of it changing what a project smaller than the sample learns."""

from __future__ import annotations

import numpy as np
import pytest
from scipy import sparse

from atlas.triage import model, rows, term_weights
from atlas.triage.corpus import Issue
from atlas.triage.groups import LabelGroup

WORDS = [
    "lease",
    "worker",
    "crash",
    "broker",
    "redis",
    "timeout",
    "config",
    "how",
    "why",
    "docs",
    "install",
    "retry",
    "queue",
    "cron",
    "token",
]


def texts(count: int, seed: int = 3) -> list[str]:
    rng = np.random.default_rng(seed)
    return [" ".join(rng.choice(WORDS, size=int(rng.integers(3, 12)))) for _ in range(count)]


def test_chunked_rows_equal_one_transform_and_the_vocabulary_comes_from_the_sample() -> None:
    from sklearn.feature_extraction.text import TfidfVectorizer

    found = texts(250)
    words, chars = TfidfVectorizer(sublinear_tf=True), TfidfVectorizer(analyzer="char_wb", ngram_range=(2, 3))
    parts: list[rows.Part] = [(words, None), (chars, 6)]
    first = rows.learnt(parts, found, sample=40)
    assert words.vocabulary_ == TfidfVectorizer().fit(found[:40]).vocabulary_  # the sample alone was read
    whole = sparse.hstack([words.transform(found), chars.transform([t[:6] for t in found])]).tocsr()
    # 250 texts: 36 chunks, the last one short; or the sample's rows as the fit made them, then 30 chunks.
    for stacked in (rows.stacked_rows(parts, found, chunk=7), rows.stacked_rows(parts, found, chunk=7, first=first)):
        assert stacked.shape == whole.shape and stacked.dtype == np.float32
        assert abs(stacked - whole).max() < 1e-6
    assert first == []  # the sample's rows were freed once side by side
    assert rows.vstack_freeing([]).shape == (0, 0)


def test_a_group_learns_from_its_labelled_rows_only_as_if_they_were_alone() -> None:
    from sklearn.feature_extraction.text import TfidfVectorizer
    from sklearn.linear_model import LogisticRegression

    found = texts(120, seed=5)
    labels: list[str | None] = [("bug" if "crash" in t else "question") if n % 3 else None for n, t in enumerate(found)]
    issues = [
        Issue(n, t, t, "open", "someone", f"2026-01-01T00:00:{n % 60:02d}Z", (label,) if label else ())
        for n, (t, label) in enumerate(zip(found, labels, strict=True))
    ]
    x = sparse.csr_matrix(TfidfVectorizer().fit_transform(found), dtype=np.float32)
    before = x.copy()
    no_signals = np.zeros(x.shape[1], dtype=bool)
    fitted = model._fit_group(x, issues, LabelGroup("kind", ("bug", "question"), True), 30.0, no_signals)
    assert fitted is not None
    assert abs(x - before).max() < 1e-6  # scaled for the fit and restored
    taught = [n for n, label in enumerate(labels) if label]
    # Alone: the labelled rows' naive Bayes weights, their scaled rows, a balanced fit.
    rows_alone = x[taught]
    present = (rows_alone > 0).astype(np.float64)
    weights = []
    for label in ("bug", "question"):
        mine = np.array([labels[n] == label for n in taught])
        inside = np.asarray(present[mine].sum(axis=0)).ravel() + 1.0
        outside = np.asarray(present[~mine].sum(axis=0)).ravel() + 1.0
        weights.append(np.abs(np.log(inside / inside.sum()) - np.log(outside / outside.sum())))
    scale = np.mean(weights, axis=0) ** term_weights.POWER
    alone = LogisticRegression(C=30.0, class_weight="balanced", max_iter=2000)
    alone.fit(rows_alone @ sparse.diags(scale), [labels[n] for n in taught])
    assert fitted.classes == list(alone.classes_)
    expected = alone.coef_ * scale
    assert np.abs(fitted.coef - expected).max() < 1e-3 * max(1.0, float(np.abs(expected).max()))


def marker(n: int) -> str:
    """A word of its own for issue `n` (letters: the model folds digits)."""
    return "zz" + "".join(chr(ord("a") + int(d)) for d in str(n))


def test_a_fit_learns_its_words_from_the_newest_sample_only(monkeypatch: pytest.MonkeyPatch) -> None:
    found = texts(60, seed=7)
    issues = [
        Issue(n, f"{t} {marker(n)}", t, "open", "someone", "2026-01-01T00:00:00Z", ("bug" if n % 2 else "question",))
        for n, t in enumerate(found)
    ]
    monkeypatch.setattr(model, "VOCAB_SAMPLE", 20)
    fitted = model.fit(issues, [LabelGroup("kind", ("bug", "question"), True)])
    assert fitted.groups
    learnt = {str(term) for term in fitted.vocabulary if str(term).startswith("zz") and " " not in str(term)}
    assert learnt == {marker(n) for n in range(20)}  # the older 40 give rows, not words
