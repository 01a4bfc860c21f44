"""The similarity index: every issue read three ways as TF-IDF rows, to compare a report with all of them at once.

Built from the text alone (the newest INDEX_MAX issues), so a label or a comment approved through
Atlas never rebuilds it: only a new version of the data does. The three readings: the title; the
title and body as the reporter wrote them, without the project's form lines and hidden comments
(`boilerplate.py`), stop words dropped; and the plain TF-IDF of the whole text that `--eval`
uses as its baseline. Numbers are kept, as versions and ids tell reports apart. How the three are
weighed is the project's ranker (`rankers.py`), chosen when the index is built by replaying the
project's known duplicates. scikit-learn builds it; querying needs numpy and scipy only, and a
stored index loads without unpickling anything.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse

from atlas.foundation.stop_words import ENGLISH_STOP_WORDS
from atlas.triage import boilerplate, rankers
from atlas.triage.cache import UNREADABLE, open_arrays, save_arrays
from atlas.triage.corpus import Issue
from atlas.triage.model import TermCounter, weighted
from atlas.triage.terms import word_terms

INDEX_MAX = 20_000
"""The newest issues compared with every query; older ones are reached through the full-text index."""
VOCAB_MAX = 100_000
TOKEN = r"(?u)\b\w\w+\b"
"""Words and numbers of two characters or more: a version or an error number tells reports apart."""
TEXT_LIMIT = 4000
PREFIX = "index-"
FORMAT = 2
MATRICES = ("titles", "texts", "plain")

Query = tuple[sparse.csr_matrix, sparse.csr_matrix, sparse.csr_matrix]
"""An issue's rows in the three readings: title, text without form lines, plain text."""


@dataclass
class SimilarityIndex:
    vocabulary: np.ndarray
    idf: np.ndarray
    common: frozenset[str]
    """The project's form lines (`boilerplate.line_key`), dropped from every body."""
    stop_words: frozenset[str]
    ids: np.ndarray
    created: np.ndarray
    titles: sparse.csr_matrix
    texts: sparse.csr_matrix
    plain_vocabulary: np.ndarray
    plain_idf: np.ndarray
    plain: sparse.csr_matrix
    ranker: str = rankers.DEFAULT
    _counters: dict[str, TermCounter] = field(default_factory=dict, repr=False)
    _rows: dict[int, int] = field(default_factory=dict, repr=False)

    def row(self, issue_id: int) -> int | None:
        if not self._rows and len(self.ids):
            self._rows = {int(i): n for n, i in enumerate(self.ids)}
        return self._rows.get(issue_id)

    def stored(self, row: int) -> Query:
        return self.titles.getrow(row), self.texts.getrow(row), self.plain.getrow(row)

    def vectors(self, issues: list[Issue]) -> Query:
        """The rows of `issues` in the three readings, as if they were indexed."""
        if not self._counters:
            self._counters["words"] = TermCounter(self.vocabulary, word_terms(TOKEN, self.stop_words, (1, 1)))
            self._counters["plain"] = TermCounter(self.plain_vocabulary, word_terms(TOKEN, (), (1, 1)))
        words, plain = self._counters["words"], self._counters["plain"]
        titles, texts = zip(*(read(issue, self.common) for issue in issues), strict=True) if issues else ((), ())
        return (
            weighted(words.counts(list(titles)), self.idf),
            weighted(words.counts(list(texts)), self.idf),
            weighted(plain.counts([issue.text for issue in issues]), self.plain_idf, sublinear=False),
        )

    def readings(self, rows: Query, query: Query) -> np.ndarray:
        """The (3, len(rows)) cosines of each of `rows` with one issue's `query`, one line per reading."""
        return np.vstack([np.asarray((r @ q.T).toarray()).ravel() for r, q in zip(rows, query, strict=True)])

    def scores(self, query: Query, rows: Query | None = None) -> np.ndarray:
        """The score of every indexed issue (or of `rows`) against one issue's query, by the project's ranker."""
        mine = rows if rows is not None else (self.titles, self.texts, self.plain)
        weights = np.asarray(rankers.RANKERS.get(self.ranker, rankers.RANKERS[rankers.DEFAULT]))
        return np.asarray(weights @ self.readings(mine, query)).ravel()

    def using(self, ranker: str) -> SimilarityIndex:
        return replace(self, ranker=ranker, _counters=self._counters, _rows=self._rows)


def read(issue: Issue, common: frozenset[str]) -> tuple[str, str]:
    """An issue's title, and its text (the title, then the body without its form lines)."""
    body = boilerplate.strip(issue.body, common)[:TEXT_LIMIT]
    return issue.title, f"{issue.title}\n{body}"


def build(issues: list[Issue], pairs: list[tuple[Issue, list[Issue]]] | None = None) -> SimilarityIndex:
    """The index of `issues` (newest first; at most INDEX_MAX are read), ranking as its known duplicates choose."""
    chosen = issues[:INDEX_MAX]
    common = boilerplate.learn(issue.body for issue in chosen)
    if not chosen:
        return _empty(common)
    from sklearn.feature_extraction.text import TfidfVectorizer

    titles, texts = zip(*(read(issue, common) for issue in chosen), strict=True)
    options: dict[str, Any] = {"token_pattern": TOKEN, "max_features": VOCAB_MAX, "dtype": np.float32}
    evidence = TfidfVectorizer(stop_words="english", sublinear_tf=True, **options)
    baseline = TfidfVectorizer(**options)
    try:
        text_rows = evidence.fit_transform(texts)
        plain_rows = baseline.fit_transform([issue.text for issue in chosen])
    except ValueError:  # no word of two letters in any issue
        return _empty(common)
    index = SimilarityIndex(
        np.array(evidence.get_feature_names_out(), dtype=str),
        np.asarray(evidence.idf_, dtype=np.float32),
        common,
        ENGLISH_STOP_WORDS,
        np.array([issue.id for issue in chosen], dtype=np.int64),
        np.array([issue.created_at for issue in chosen], dtype=str),
        sparse.csr_matrix(evidence.transform(titles), dtype=np.float32),
        sparse.csr_matrix(text_rows, dtype=np.float32),
        np.array(baseline.get_feature_names_out(), dtype=str),
        np.asarray(baseline.idf_, dtype=np.float32),
        sparse.csr_matrix(plain_rows, dtype=np.float32),
    )
    return index.using(rankers.choose(replay(index, pairs or [])))


def replay(index: SimilarityIndex, pairs: list[tuple[Issue, list[Issue]]]) -> dict[str, rankers.Ranks]:
    """Each ranker's ranks of the known duplicates' originals among the indexed issues filed before them."""
    rows: list[tuple[int, Sequence[int]]] = [
        (duplicate, [o for o in map(index.row, (x.id for x in originals)) if o is not None])
        for duplicate, originals in ((index.row(d.id), originals) for d, originals in pairs)
        if duplicate is not None
    ]
    indexed = [(duplicate, originals) for duplicate, originals in rows if originals]
    everything = (index.titles, index.texts, index.plain)
    return rankers.replay(lambda row: index.readings(everything, index.stored(row)), index.created, indexed)


def _empty(common: frozenset[str]) -> SimilarityIndex:
    nothing = sparse.csr_matrix((0, 0), dtype=np.float32)
    no_terms, no_weights = np.array([], dtype=str), np.array([], dtype=np.float32)
    return SimilarityIndex(
        no_terms, no_weights, common, frozenset(), np.array([], dtype=np.int64), np.array([], dtype=str),
        nothing, nothing, no_terms, no_weights, nothing,
    )  # fmt: skip


def save(home: Path, key: str, index: SimilarityIndex) -> None:
    arrays: dict[str, Any] = {
        "header": np.array(json.dumps({"format": FORMAT, "key": key, "ranker": index.ranker})),
        "vocabulary": index.vocabulary,
        "idf": index.idf,
        "plain_vocabulary": index.plain_vocabulary,
        "plain_idf": index.plain_idf,
        "common": np.array(sorted(index.common), dtype=str),
        "stop_words": np.array(sorted(index.stop_words), dtype=str),
        "ids": index.ids,
        "created": index.created,
    }
    for name in MATRICES:
        matrix = getattr(index, name)
        arrays[f"{name}_data"], arrays[f"{name}_indices"], arrays[f"{name}_indptr"] = (
            matrix.data, matrix.indices, matrix.indptr,
        )  # fmt: skip
    save_arrays(home, PREFIX, key, arrays)


def load(home: Path, key: str) -> SimilarityIndex | None:
    """The index stored under `key`, or None when there is none that loads and checks out."""
    try:
        with open_arrays(home, PREFIX, key) as arrays:
            header = json.loads(str(arrays["header"]))
            known = header.get("ranker") in rankers.RANKERS
            if (header.get("format"), header.get("key")) != (FORMAT, key) or not known:
                return None
            ids = arrays["ids"]
            widths = {"titles": len(arrays["vocabulary"]), "texts": len(arrays["vocabulary"])}
            widths["plain"] = len(arrays["plain_vocabulary"])
            matrices = {name: _matrix(arrays, name, (len(ids), widths[name])) for name in MATRICES}
            found = SimilarityIndex(
                arrays["vocabulary"], arrays["idf"],
                frozenset(str(x) for x in arrays["common"]), frozenset(str(x) for x in arrays["stop_words"]),
                ids, arrays["created"], matrices["titles"], matrices["texts"],
                arrays["plain_vocabulary"], arrays["plain_idf"], matrices["plain"], str(header["ranker"]),
            )  # fmt: skip
    except UNREADABLE:
        return None
    checks = (len(found.vocabulary), len(found.plain_vocabulary), len(found.created))
    if checks != (len(found.idf), len(found.plain_idf), len(found.ids)):
        return None
    return found


def _matrix(arrays: Any, name: str, shape: tuple[int, int]) -> sparse.csr_matrix:
    parts = (arrays[f"{name}_data"], arrays[f"{name}_indices"], arrays[f"{name}_indptr"])
    matrix = sparse.csr_matrix(parts, shape=shape)
    matrix.check_format(full_check=True)  # an edited file must not index past its arrays
    return matrix
