"""Issues like a given one: FTS5 finds candidates, TF-IDF cosine (and BM25) and shared signatures rank them.

The candidates come from the index with the issue's most telling words (highest TF-IDF). Up to
EXACT_MAX issues, BM25 ranks every issue that shares one of them. Above, that would score every
posting of each common word (1.4 s at 100,000 issues), so the candidates are instead the newest
issues that share two of the six most telling words (or an error code): FTS5 walks its posting
lists newest first and stops at the limit, so a query costs the same whatever the backlog's size,
and cosine and signatures rank them. Only those few issues are read and vectorised. Advisory
only: nothing here changes an issue.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from atlas.dataset_read import connect
from atlas.triage.corpus import Issue
from atlas.triage.model import TextModel
from atlas.triage.project import Project
from atlas.triage.signatures import signature

QUERY_TERMS = 14
CANDIDATES = 40
EXACT_MAX = 5_000
"""Issues (by the highest number) up to which every match is BM25-ranked."""
PAIR_TERMS = 6
WEIGHT_COSINE, WEIGHT_BM25, WEIGHT_SIGNATURE = 0.6, 0.25, 0.15


@dataclass(frozen=True)
class Match:
    id: int
    title: str
    state: str
    labels: tuple[str, ...]
    score: float
    words: tuple[str, ...]
    codes: tuple[str, ...]
    frames: tuple[str, ...]

    def as_dict(self) -> dict[str, object]:
        return {
            "id": self.id,
            "title": self.title,
            "state": self.state,
            "labels": list(self.labels),
            "score": round(self.score, 3),
            "shared_words": list(self.words),
            "shared_codes": list(self.codes),
            "shared_stack_lines": list(self.frames),
        }


def query_terms(model: TextModel, issue: Issue) -> list[str]:
    """The issue's most telling words, and its error codes, as FTS5 phrases."""
    words, codes = telling_phrases(model, issue)
    return words + codes


def telling_phrases(model: TextModel, issue: Issue) -> tuple[list[str], list[str]]:
    """The most telling words (best first) and the error codes not among them, as FTS5 phrases."""
    vector = model.vectors([issue.text]).getrow(0)
    order = np.argsort(-vector.data)
    words = [str(model.vocabulary[vector.indices[i]]) for i in order]
    chosen = [_phrase(w) for w in words if " " not in w and not w.isdigit()][:QUERY_TERMS]
    words = list(dict.fromkeys(p for p in chosen if p != '""'))
    codes = [p for p in dict.fromkeys(_phrase(c) for c in sorted(signature(issue.text).codes)) if p not in words]
    return words, [p for p in codes if p != '""']


def _phrase(word: str) -> str:
    return '"' + " ".join(word.replace('"', " ").replace(".", " ").replace("-", " ").split()) + '"'


def candidates(
    project: Project, issue: Issue, *, limit: int = CANDIDATES, before: str | None = None, text_only: bool = False
) -> list[tuple[int, float]]:
    """(id, bm25) of the best matches other than `issue` (filed before `before`; title and body only when asked).

    Above EXACT_MAX issues the bm25 is 0.0 for every candidate: they come newest first, unranked."""
    words, codes = telling_phrases(project.model(), issue)
    if not words and not codes:
        return []
    with connect(project.corpus.data, project.corpus.home) as conn:
        size = int(conn.execute("SELECT coalesce(max(id), 0) FROM issues").fetchone()[0])
        exact = size <= EXACT_MAX
        match = " OR ".join(words + codes) if exact else _pairs(words, codes)
        if text_only:
            match = "{title body} : (" + match + ")"
        where, params = "", [match, issue.id]
        if before is not None:
            where, params = " AND i.created_at < ?", [*params, before]
        join = " JOIN issues i ON i.id = issues_fts.rowid" if before is not None else ""
        if exact:
            sql = (
                "SELECT issues_fts.rowid, bm25(issues_fts, 10.0, 4.0, 1.0) FROM issues_fts"
                f"{join} WHERE issues_fts MATCH ? AND issues_fts.rowid != ?{where} ORDER BY rank LIMIT ?"
            )
        else:
            sql = (
                f"SELECT issues_fts.rowid, 0.0 FROM issues_fts{join}"
                f" WHERE issues_fts MATCH ? AND issues_fts.rowid != ?{where} ORDER BY issues_fts.rowid DESC LIMIT ?"
            )
        rows = conn.execute(sql, [*params, limit]).fetchall()
    return [(int(rowid), float(score)) for rowid, score in rows]


def _pairs(words: list[str], codes: list[str]) -> str:
    """Issues sharing two of the most telling words, or an error code: selective, and read lazily by FTS5."""
    top = words[:PAIR_TERMS]
    clauses = [f"({a} AND {b})" for n, a in enumerate(top) for b in top[n + 1 :]]
    return " OR ".join(clauses + codes) or " OR ".join(top)


def rank(project: Project, issue: Issue, found: list[tuple[int, float]]) -> list[Match]:
    """The candidates scored (cosine, relative BM25, shared codes and frames), best first."""
    if not found:
        return []
    model = project.model()
    others = project.corpus.many([issue_id for issue_id, _ in found])
    ids = [issue_id for issue_id, _ in found if issue_id in others]
    vectors = model.vectors([issue.text, *(others[i].text for i in ids)])
    # One elementwise product of every candidate with the issue: its row sums are the cosines, its
    # largest entries the shared words (one sparse operation, not two per candidate).
    product = sparse.csr_matrix(vectors[1:].multiply(vectors[0]))
    cosine = np.asarray(product.sum(axis=1)).ravel()
    best = min(score for _, score in found) or -1.0
    bm25 = {issue_id: score / best for issue_id, score in found}
    # Unranked candidates (a large backlog) have no BM25: the other weights then share the whole score.
    scale = 1.0 if any(score for _, score in found) else 1.0 / (1.0 - WEIGHT_BM25)
    mine = signature(issue.text)
    matches = []
    for position, issue_id in enumerate(ids):
        other = others[issue_id]
        codes, frames = mine.shared(signature(other.text))
        shared = min(1.0, (len(codes) + 2 * len(frames)) / 3)
        score = scale * (WEIGHT_COSINE * cosine[position] + WEIGHT_BM25 * bm25[issue_id] + WEIGHT_SIGNATURE * shared)
        words = shared_words(model, product, position)
        matches.append(
            Match(other.id, other.title, other.state, other.labels, float(score), words, tuple(codes), tuple(frames))
        )
    return sorted(matches, key=lambda m: -m.score)


def shared_words(model: TextModel, product: sparse.csr_matrix, row: int, count: int = 5) -> tuple[str, ...]:
    """The words of one row of the product that weigh most in the cosine."""
    start, end = product.indptr[row], product.indptr[row + 1]
    data, indices = product.data[start:end], product.indices[start:end]
    order = np.argsort(-data)[:count]
    return tuple(str(model.vocabulary[indices[i]]) for i in order if data[i] > 0)


def similar(project: Project, issue: Issue, limit: int = 5) -> list[Match]:
    """The `limit` most similar issues, open ones first, each group best first."""
    best = rank(project, issue, candidates(project, issue))[:limit]
    return sorted(best, key=lambda m: (m.state != "open", -m.score))
