"""The text model: TF-IDF of words and word pairs, and of character n-grams, and a logistic regression per label group.

Each group's regression reads the rows scaled by how much each term tells its labels apart
(`term_weights.py`: naive Bayes log-count ratios, to a power each group chooses by cross-validation
on its own issues: `term_choice.py`), chosen by cross-validation on the training half of the
NLBSE'24 benchmark over the plain rows, averaged word and character models, a calibrated linear SVM
and ridge regression.

Fitted on the project's labelled issues (the newest TRAIN_MAX of them, so memory and time stay
bounded however long the backlog), it gives each group's labels a probability, the words that
decided it, and a vector for similarity. The classifiers also read character n-grams of the
issue's start: they catch what word tokens drop (`how`, `why`, `?`, `crash`/`crashes`/`crashed`,
`TypeError:`), which tells a question from a bug; and, in a group whose cross-validation chooses them,
a few signals of how the issue is written (`text_signals.py`: a question mark in the title, a traceback,
a code block). Similarity reads the words alone. scikit-learn
fits it; applying it needs only numpy, scipy's sparse rows, the vocabularies and the stop words
(`terms.py` cuts texts as scikit-learn did), so a cached model (`cache.py`) loads without
unpickling anything and without importing scikit-learn.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Callable, Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np
from scipy import sparse

from atlas.foundation.stop_words import ENGLISH_STOP_WORDS
from atlas.triage.corpus import Issue
from atlas.triage.groups import LabelGroup
from atlas.triage.rows import VOCAB_SAMPLE, Part, learnt, stacked_rows
from atlas.triage.term_choice import chosen_reading, fit_scaled
from atlas.triage.terms import Analyzer, char_terms, word_terms
from atlas.triage.text_signals import SIGNALS, SignalColumns, signal_rows

TRAIN_MAX = 10_000
"""The newest issues a model learns from: recent history says most about new reports, and the rows of
10,000 issues keep the first fit of a 100,000-issue backlog near 350 MB (20,000 needed over 460 MB)."""
VOCAB_MAX = 60_000
REGULARISATION = 30.0
"""Logistic regression's C: larger trusts the words more (sharper probabilities, more labels above the threshold)."""
TOKEN = r"(?u)\b[A-Za-z_][\w.]*[\w]\b|\b[A-Z]+-\d+\b"
"""Words, dotted names (`orbit.lease`) and error codes (`ORB-1101`); bare numbers say nothing."""
_DIGITS = re.compile(r"\d+")
CHAR_NGRAMS = (2, 5)
CHAR_TEXT = 2000
"""Characters of an issue's text (titles first) its n-grams are read from: the start says what kind it is."""
CHAR_VOCAB_MAX = 60_000


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
        """The words of one issue that pushed most towards `label` (words only: n-grams explain nothing to a person)."""
        row = x.getrow(0)
        words = row.indices < len(vocabulary)
        indices, data = row.indices[words], row.data[words]
        if not len(indices):
            return []
        index = self.classes.index(label)
        weights = self.coef[0] if self.coef.shape[0] == 1 else self.coef[index]
        sign = -1.0 if self.coef.shape[0] == 1 and index == 0 else 1.0
        contribution = data * weights[indices] * sign
        order = np.argsort(-contribution)[:count]
        return [str(vocabulary[indices[i]]) for i in order if contribution[i] > 0]


@dataclass
class TextModel:
    vocabulary: np.ndarray
    idf: np.ndarray
    groups: list[GroupModel]
    chars: np.ndarray = field(default_factory=lambda: np.array([], dtype=str))
    char_idf: np.ndarray = field(default_factory=lambda: np.array([], dtype=np.float64))
    stop_words: frozenset[str] = frozenset()
    """The words the vocabulary was learnt without (scikit-learn's English list, kept with the model)."""
    labels_key: str = ""
    """The version of the labels it learnt (`Project.label_key`): older than the project's after a
    label approved through Atlas, which the model learns at the data's next version."""
    signals: bool = False
    """Whether the classifiers also read how each issue is written (`text_signals.py`), after the n-grams."""
    _counters: dict[str, TermCounter] = field(default_factory=dict, repr=False)

    def vectors(self, texts: Iterable[str]) -> sparse.csr_matrix:
        """Sublinear TF-IDF rows of words and word pairs, L2-normalised: what the cosine reads."""
        counter = self._counter("words", self.vocabulary, lambda: word_terms(TOKEN, self.stop_words, WORD_NGRAMS))
        return weighted(counter.counts([normalise(t) for t in texts]), self.idf)

    def features(self, texts: Iterable[str]) -> sparse.csr_matrix:
        """What the classifiers read: the word rows, then the character n-gram rows (each L2-normalised), then
        the signals of how each text is written."""
        texts = [normalise(t) for t in texts]
        blocks = [self.vectors(texts)]
        if len(self.chars):
            counter = self._counter("chars", self.chars, lambda: char_terms(CHAR_NGRAMS))
            blocks.append(weighted(counter.counts([t[:CHAR_TEXT] for t in texts]), self.char_idf))
        if self.signals:
            blocks.append(signal_rows(texts))
        return sparse.csr_matrix(sparse.hstack(blocks)) if len(blocks) > 1 else blocks[0]

    def _counter(self, name: str, terms: np.ndarray, analyzer: Callable[[], Analyzer]) -> TermCounter:
        # Built once per model: indexing a 60,000-term vocabulary is the costly part.
        if name not in self._counters:
            self._counters[name] = TermCounter(terms, analyzer())
        return self._counters[name]

    def group(self, name: str) -> GroupModel | None:
        return next((g for g in self.groups if g.group.name == name), None)


class TermCounter:
    """Term counts of texts over a fixed vocabulary, with the analyzer the vocabulary was learnt with."""

    def __init__(self, terms: np.ndarray, analyze: Analyzer) -> None:
        self.index = {str(term): i for i, term in enumerate(terms)}
        self.width = len(terms)
        self.analyze = analyze

    def counts(self, texts: list[str]) -> sparse.csr_matrix:
        indptr, indices, values = [0], list[int](), list[int]()
        index = self.index
        for text in texts:
            found: dict[int, int] = {}
            for term in self.analyze(text):
                column = index.get(term)
                if column is not None:
                    found[column] = found.get(column, 0) + 1
            indices.extend(found)
            values.extend(found.values())
            indptr.append(len(indices))
        shape = (len(texts), self.width)
        found_counts = sparse.csr_matrix((np.array(values, dtype=np.float64), indices, indptr), shape=shape)
        found_counts.sort_indices()
        return found_counts


def weighted(counts: sparse.spmatrix, idf: np.ndarray, *, sublinear: bool = True) -> sparse.csr_matrix:
    """TF-IDF rows as scikit-learn weighs them (`sublinear_tf` when asked), L2-normalised."""
    counts = sparse.csr_matrix(counts, dtype=np.float64)
    if sublinear:
        counts.data = 1.0 + np.log(counts.data)
    weighted = sparse.csr_matrix(counts.multiply(idf.reshape(1, -1)))
    norms = np.sqrt(np.asarray(weighted.multiply(weighted).sum(axis=1))).ravel()
    norms[norms == 0] = 1.0
    return sparse.csr_matrix(sparse.diags(1.0 / norms) @ weighted)


WORD_NGRAMS = (1, 2)
VECTOR_OPTIONS: dict[str, object] = {
    "token_pattern": TOKEN,
    "ngram_range": WORD_NGRAMS,
    "lowercase": True,
    "stop_words": "english",
}
CHAR_OPTIONS: dict[str, object] = {"analyzer": "char_wb", "ngram_range": CHAR_NGRAMS, "lowercase": True}


def best_allowed(model: GroupModel, row: np.ndarray, issue: Issue, known: frozenset[str]) -> tuple[str | None, float]:
    """The most likely label the issue may get: known to the project and not removed by a person."""
    for index in np.argsort(-row):
        label = model.classes[int(index)]
        if label in known and label not in issue.removed:
            return label, float(row[int(index)])
    return None, 0.0


def training_label(issue: Issue, group: LabelGroup) -> str | None:
    """The one label of `group` an issue teaches, or None (none, or several: ambiguous)."""
    present = group.present(issue.labels)
    return present[0] if len(present) == 1 else None


@contextmanager
def one_thread() -> Iterator[None]:
    """BLAS and OpenMP on one thread while fitting: their own threads only fight each other (and other
    programs) over these small problems. scikit-learn is imported first, because threadpoolctl limits
    only the libraries already loaded, and importing it loads scipy's own BLAS (which L-BFGS calls at
    every step) and its OpenMP runtime: left out, they fitted with every core spinning, at well over
    twice the CPU time."""
    import sklearn.feature_extraction.text
    import sklearn.linear_model  # noqa: F401
    from threadpoolctl import threadpool_limits

    with threadpool_limits(1):
        yield


def fit(issues: list[Issue], groups: list[LabelGroup], *, c: float = REGULARISATION) -> TextModel:
    """A model of `issues` (newest first, at most TRAIN_MAX are read) for each group with two labels taught."""
    if not issues:  # nothing to learn from: no need to load scikit-learn for that
        return TextModel(np.array([], dtype=str), np.array([], dtype=np.float64), [])
    with one_thread():
        return _fit(issues[:TRAIN_MAX], groups, c)


def _fit(chosen: list[Issue], groups: list[LabelGroup], c: float) -> TextModel:
    texts = [normalise(issue.text) for issue in chosen]
    parts, first = learnt_parts(texts)
    # float32 rows made in chunks over vocabularies of a bounded sample: the fit's memory stays bounded.
    x = stacked_rows(parts, texts, first=first)
    del texts, first
    models = fit_groups(x, chosen, groups, c)
    words = parts[0][0]
    chars = next((part for part, _ in parts[1:] if not isinstance(part, SignalColumns)), None)
    return TextModel(
        np.array(words.get_feature_names_out(), dtype=str),
        np.asarray(words.idf_, dtype=np.float64),
        models,
        np.array(chars.get_feature_names_out() if chars else [], dtype=str),
        np.asarray(chars.idf_ if chars else [], dtype=np.float64),
        ENGLISH_STOP_WORDS,
        signals=True,
    )


def learnt_parts(texts: list[str]) -> tuple[list[Part], list[sparse.spmatrix]]:
    """The model's vectorizers of words and of character n-grams, learnt from the first VOCAB_SAMPLE of
    `texts` (normalised, newest first), then the signals of how a text is written, and their rows of those
    texts; no n-grams when none occurs twice. A ValueError when not one word is left to learn."""
    from sklearn.feature_extraction.text import TfidfVectorizer

    sample = texts[:VOCAB_SAMPLE]
    min_df = 2 if len(sample) >= 1000 else 1
    vectorizer = TfidfVectorizer(
        sublinear_tf=True, min_df=min_df, max_features=VOCAB_MAX, dtype=np.float32, **VECTOR_OPTIONS
    )
    # Character n-grams that occur once teach nothing and would crowd out the rest.
    char_vectorizer = TfidfVectorizer(
        sublinear_tf=True, min_df=2, max_features=CHAR_VOCAB_MAX, dtype=np.float32, **CHAR_OPTIONS
    )
    parts: list[Part] = [(vectorizer, None), (char_vectorizer, CHAR_TEXT)]
    first = learnt(parts[:1], sample)
    try:
        first += learnt(parts[1:], sample)
    except ValueError:  # too few issues for any n-gram to occur twice
        parts = parts[:1]
    parts.append((SignalColumns(), None))
    first.append(signal_rows(sample))
    return parts, first


def fit_groups(
    x: sparse.csr_matrix,
    issues: list[Issue],
    groups: list[LabelGroup],
    c: float = REGULARISATION,
    signals: int = len(SIGNALS),
) -> list[GroupModel]:
    """Each group's classifier of the rows `x` of `issues` (one row each), for the groups with two labels taught
    (the last `signals` columns of `x` are the signals, as `learnt_parts` makes them)."""
    mask = np.arange(x.shape[1]) >= x.shape[1] - signals
    return [m for m in (_fit_group(x, issues, group, c, mask) for group in groups) if m is not None]


def _fit_group(
    x: sparse.csr_matrix, issues: list[Issue], group: LabelGroup, c: float, signals: np.ndarray
) -> GroupModel | None:
    labels = [training_label(issue, group) for issue in issues]
    taught = Counter(label for label in labels if label is not None)
    if len(taught) < 2:
        return None
    # Class-balanced weights on the issues that teach the group, and none on the rest: the same
    # fit as on those rows alone (scikit-learn's "balanced"), without copying them out of `x`.
    share = sum(taught.values()) / len(taught)
    weights = np.array([share / taught[label] if label is not None else 0.0 for label in labels])
    classes = sorted(taught)
    index = {label: n for n, label in enumerate(classes)}
    label_of_row = np.array([index[label] if label is not None else -1 for label in labels])
    # The rows scaled by how much each term tells the group's labels apart (to the power this group's
    # cross-validation chose, the signals muted unless it chose them); the model of the scaled rows,
    # multiplied by the same weights, is the model of the rows themselves.
    newest_first = np.array(
        sorted(range(len(issues)), key=lambda n: (issues[n].created_at, issues[n].id), reverse=True)
    )
    power, read = chosen_reading(x, label_of_row, classes, weights, c, newest_first, signals)
    classifier, term_weights = fit_scaled(x, label_of_row, classes, weights, c, power, None if read else signals)
    return GroupModel(
        group,
        [str(label) for label in classifier.classes_],
        np.asarray(classifier.coef_ * term_weights, dtype=np.float32),
        np.asarray(classifier.intercept_, dtype=np.float32),
    )
