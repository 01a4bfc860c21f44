"""The text model: TF-IDF of words and word pairs, and a logistic regression per label group.

Fitted on the project's labelled issues (the newest TRAIN_MAX of them, so memory and time stay
bounded however long the backlog), it gives each group's labels a probability, the words that
decided it, and a vector for similarity. scikit-learn fits it; applying it needs only numpy and
the vocabulary, so a cached model (`cache.py`) loads without unpickling anything.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass

import numpy as np
from scipy import sparse

from atlas.triage.corpus import Issue
from atlas.triage.groups import LabelGroup

TRAIN_MAX = 20_000
"""The newest labelled issues a model learns from: recent history says most about new reports."""
VOCAB_MAX = 60_000
REGULARISATION = 30.0
"""Logistic regression's C: larger trusts the words more (sharper probabilities, more labels above the threshold)."""
TOKEN = r"(?u)\b[A-Za-z_][\w.]*[\w]\b|\b[A-Z]+-\d+\b"
"""Words, dotted names (`orbit.lease`) and error codes (`ORB-1101`); bare numbers say nothing."""
_DIGITS = re.compile(r"\d+")


def normalise(text: str) -> str:
    """Lower case except error codes; ids and counts fold to one token each."""
    return _DIGITS.sub("0", text)


@dataclass
class GroupModel:
    group: LabelGroup
    classes: list[str]
    coef: np.ndarray
    intercept: np.ndarray

    def probabilities(self, x: sparse.csr_matrix) -> np.ndarray:
        """One row of class probabilities per row of `x`."""
        scores = np.asarray(x @ self.coef.T) + self.intercept
        if len(self.classes) == 2 and scores.shape[1] == 1:
            p = 1.0 / (1.0 + np.exp(-scores[:, 0]))
            return np.column_stack([1.0 - p, p])
        scores -= scores.max(axis=1, keepdims=True)
        exp = np.exp(scores)
        return np.asarray(exp / exp.sum(axis=1, keepdims=True))

    def deciding_words(self, x: sparse.csr_matrix, label: str, vocabulary: np.ndarray, count: int = 4) -> list[str]:
        """The words of one issue that pushed most towards `label`."""
        row = x.getrow(0)
        if not row.nnz:
            return []
        index = self.classes.index(label)
        weights = self.coef[0] if self.coef.shape[0] == 1 else self.coef[index]
        sign = -1.0 if self.coef.shape[0] == 1 and index == 0 else 1.0
        contribution = row.data * weights[row.indices] * sign
        order = np.argsort(-contribution)[:count]
        return [str(vocabulary[row.indices[i]]) for i in order if contribution[i] > 0]


@dataclass
class TextModel:
    vocabulary: np.ndarray
    idf: np.ndarray
    groups: list[GroupModel]
    _index: dict[str, int] | None = None

    def vectors(self, texts: Iterable[str]) -> sparse.csr_matrix:
        """Sublinear TF-IDF rows, L2-normalised: what the classifiers and the cosine read."""
        from sklearn.feature_extraction.text import CountVectorizer

        if self._index is None:
            self._index = {str(term): i for i, term in enumerate(self.vocabulary)}
        counts = CountVectorizer(vocabulary=self._index, **VECTOR_OPTIONS).transform([normalise(t) for t in texts])
        counts = sparse.csr_matrix(counts, dtype=np.float64)
        counts.data = 1.0 + np.log(counts.data)
        weighted = sparse.csr_matrix(counts.multiply(self.idf.reshape(1, -1)))
        norms = np.sqrt(np.asarray(weighted.multiply(weighted).sum(axis=1))).ravel()
        norms[norms == 0] = 1.0
        return sparse.csr_matrix(sparse.diags(1.0 / norms) @ weighted)

    def features(self, texts: Iterable[str]) -> sparse.csr_matrix:
        """What the classifiers read."""
        return self.vectors(texts)

    def group(self, name: str) -> GroupModel | None:
        return next((g for g in self.groups if g.group.name == name), None)


VECTOR_OPTIONS: dict[str, object] = {
    "token_pattern": TOKEN,
    "ngram_range": (1, 2),
    "lowercase": True,
    "stop_words": "english",
}


def training_label(issue: Issue, group: LabelGroup) -> str | None:
    """The one label of `group` an issue teaches, or None (none, or several: ambiguous)."""
    present = group.present(issue.labels)
    return present[0] if len(present) == 1 else None


def fit(issues: list[Issue], groups: list[LabelGroup], *, c: float = REGULARISATION) -> TextModel:
    """A model of `issues` (newest first, at most TRAIN_MAX are read) for each group with two labels taught."""
    from threadpoolctl import threadpool_limits

    # One thread: BLAS's own threads only fight each other (and other programs) over these small problems.
    with threadpool_limits(1):
        return _fit(issues[:TRAIN_MAX], groups, c)


def _fit(chosen: list[Issue], groups: list[LabelGroup], c: float) -> TextModel:
    from sklearn.feature_extraction.text import TfidfVectorizer

    texts = [normalise(issue.text) for issue in chosen]
    min_df = 2 if len(texts) >= 1000 else 1
    vectorizer = TfidfVectorizer(sublinear_tf=True, min_df=min_df, max_features=VOCAB_MAX, **VECTOR_OPTIONS)
    x = vectorizer.fit_transform(texts) if texts else None
    vocabulary = np.array(vectorizer.get_feature_names_out() if texts else [], dtype=str)
    idf = np.asarray(vectorizer.idf_ if texts else [], dtype=np.float64)
    models = (
        [m for m in (_fit_group(x, chosen, group, c) for group in groups) if m is not None] if x is not None else []
    )
    return TextModel(vocabulary, idf, models)


def _fit_group(x: sparse.csr_matrix, issues: list[Issue], group: LabelGroup, c: float) -> GroupModel | None:
    from sklearn.linear_model import LogisticRegression

    rows, labels = [], []
    for row, issue in enumerate(issues):
        label = training_label(issue, group)
        if label is not None:
            rows.append(row)
            labels.append(label)
    if len(set(labels)) < 2:
        return None
    classifier = LogisticRegression(C=c, class_weight="balanced", max_iter=2000)
    classifier.fit(x[rows], labels)
    return GroupModel(
        group,
        [str(label) for label in classifier.classes_],
        np.asarray(classifier.coef_, dtype=np.float32),
        np.asarray(classifier.intercept_, dtype=np.float32),
    )
