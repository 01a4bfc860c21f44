"""The similarity index: every issue's title and text as TF-IDF rows, to compare a report with all of them at once.

Built from the text alone (the newest INDEX_MAX issues), so a label or a comment approved through
Atlas never rebuilds it: only a new version of the data does. Each issue is read as the reporter
wrote it: the project's form lines and hidden comments are dropped first (`boilerplate.py`), and
numbers are kept, as versions and ids tell reports apart. A report's score against another is the
mean of the cosines of their titles and of their texts: the title is what its reporter chose to
say first. scikit-learn builds it; querying needs numpy and scipy only, and a stored index loads
without unpickling anything.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import numpy as np
from scipy import sparse

from atlas.triage import boilerplate
from atlas.triage.cache import open_arrays, save_arrays
from atlas.triage.corpus import Issue
from atlas.triage.model import TermCounter, weighted
from atlas.triage.terms import word_terms

INDEX_MAX = 20_000
"""The newest issues compared with every query; older ones are reached through the full-text index."""
VOCAB_MAX = 100_000
TOKEN = r"(?u)\b\w\w+\b"
"""Words and numbers of two characters or more: a version or an error number tells reports apart."""
TEXT_LIMIT = 4000
TITLE_WEIGHT = 0.5
"""The title's share of a score; the text (title and body) has the rest."""
PREFIX = "index-"
FORMAT = 1


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
    _counter: TermCounter | None = field(default=None, repr=False)
    _rows: dict[int, int] = field(default_factory=dict, repr=False)

    def row(self, issue_id: int) -> int | None:
        if not self._rows and len(self.ids):
            self._rows = {int(i): n for n, i in enumerate(self.ids)}
        return self._rows.get(issue_id)

    def vectors(self, issues: list[Issue]) -> tuple[sparse.csr_matrix, sparse.csr_matrix]:
        """The title rows and the text rows of `issues` (their stored rows when indexed)."""
        if self._counter is None:
            self._counter = TermCounter(self.vocabulary, word_terms(TOKEN, self.stop_words, (1, 1)))
        titles, texts = zip(*(read(issue, self.common) for issue in issues), strict=True) if issues else ((), ())
        title_rows = weighted(self._counter.counts(list(titles)), self.idf)
        text_rows = weighted(self._counter.counts(list(texts)), self.idf)
        return title_rows, text_rows

    def scores(self, title: sparse.csr_matrix, text: sparse.csr_matrix) -> np.ndarray:
        """The score of every indexed issue against one issue's title row and text row."""
        found = TITLE_WEIGHT * (self.titles @ title.T) + (1 - TITLE_WEIGHT) * (self.texts @ text.T)
        return np.asarray(sparse.csr_matrix(found).toarray()).ravel()


def read(issue: Issue, common: frozenset[str]) -> tuple[str, str]:
    """An issue's title, and its text (the title, then the body without its form lines)."""
    body = boilerplate.strip(issue.body, common)[:TEXT_LIMIT]
    return issue.title, f"{issue.title}\n{body}"


def build(issues: list[Issue]) -> SimilarityIndex:
    """The index of `issues` (newest first; at most INDEX_MAX are read)."""
    chosen = issues[:INDEX_MAX]
    common = boilerplate.learn(issue.body for issue in chosen)
    if not chosen:
        return _empty(common)
    from sklearn.feature_extraction.text import ENGLISH_STOP_WORDS, TfidfVectorizer

    titles, texts = zip(*(read(issue, common) for issue in chosen), strict=True)
    vectorizer = TfidfVectorizer(
        token_pattern=TOKEN,
        stop_words="english",
        sublinear_tf=True,
        min_df=1,
        max_features=VOCAB_MAX,
        dtype=np.float32,
    )
    try:
        text_rows = vectorizer.fit_transform(texts)
    except ValueError:  # no word of two letters in any issue
        return _empty(common)
    return SimilarityIndex(
        np.array(vectorizer.get_feature_names_out(), dtype=str),
        np.asarray(vectorizer.idf_, dtype=np.float32),
        common,
        frozenset(ENGLISH_STOP_WORDS),
        np.array([issue.id for issue in chosen], dtype=np.int64),
        np.array([issue.created_at for issue in chosen], dtype=str),
        sparse.csr_matrix(vectorizer.transform(titles), dtype=np.float32),
        sparse.csr_matrix(text_rows, dtype=np.float32),
    )


def _empty(common: frozenset[str]) -> SimilarityIndex:
    nothing = sparse.csr_matrix((0, 0), dtype=np.float32)
    return SimilarityIndex(
        np.array([], dtype=str), np.array([], dtype=np.float32), common, frozenset(),
        np.array([], dtype=np.int64), np.array([], dtype=str), nothing, nothing,
    )  # fmt: skip


def save(home: Path, key: str, index: SimilarityIndex) -> None:
    arrays: dict[str, Any] = {
        "header": np.array(json.dumps({"format": FORMAT, "key": key})),
        "vocabulary": index.vocabulary,
        "idf": index.idf,
        "common": np.array(sorted(index.common), dtype=str),
        "stop_words": np.array(sorted(index.stop_words), dtype=str),
        "ids": index.ids,
        "created": index.created,
    }
    for name, matrix in (("titles", index.titles), ("texts", index.texts)):
        arrays[f"{name}_data"], arrays[f"{name}_indices"], arrays[f"{name}_indptr"] = (
            matrix.data, matrix.indices, matrix.indptr,
        )  # fmt: skip
    save_arrays(home, PREFIX, key, arrays)


def load(home: Path, key: str) -> SimilarityIndex | None:
    """The index stored under `key`, or None when there is none that loads and checks out."""
    try:
        with open_arrays(home, PREFIX, key) as arrays:
            header = json.loads(str(arrays["header"]))
            if header.get("format") != FORMAT or header.get("key") != key:
                return None
            vocabulary, idf, ids = arrays["vocabulary"], arrays["idf"], arrays["ids"]
            shape = (len(ids), len(vocabulary))
            matrices = [
                sparse.csr_matrix(
                    (arrays[f"{name}_data"], arrays[f"{name}_indices"], arrays[f"{name}_indptr"]), shape=shape
                )
                for name in ("titles", "texts")
            ]
            for matrix in matrices:
                matrix.check_format(full_check=True)  # an edited file must not index past its arrays
            found = SimilarityIndex(
                vocabulary,
                idf,
                frozenset(str(x) for x in arrays["common"]),
                frozenset(str(x) for x in arrays["stop_words"]),
                ids,
                arrays["created"],
                matrices[0],
                matrices[1],
            )
    except (OSError, ValueError, KeyError, TypeError, AttributeError, json.JSONDecodeError):
        return None
    if len(vocabulary) != len(idf) or len(found.created) != len(ids):
        return None
    return found
