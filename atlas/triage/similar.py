"""Issues like a given one: FTS5's BM25 finds candidates, TF-IDF cosine and shared signatures rank them.

The candidates come from the index with the issue's most telling words (highest TF-IDF), so a
query reads short posting lists whatever the backlog's size; only those few issues are read and
vectorised. Advisory only: nothing here changes an issue.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from atlas.dataset_read import connect
from atlas.triage.corpus import Issue
from atlas.triage.model import TextModel
from atlas.triage.project import Project
from atlas.triage.signatures import signature

QUERY_TERMS = 14
CANDIDATES = 40
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
    vector = model.vectors([issue.text]).getrow(0)
    order = np.argsort(-vector.data)
    words = [str(model.vocabulary[vector.indices[i]]) for i in order]
    chosen = [w for w in words if " " not in w and not w.isdigit()][:QUERY_TERMS]
    chosen += sorted(signature(issue.text).codes)
    phrases = []
    for word in chosen:
        phrase = '"' + " ".join(word.replace('"', " ").replace(".", " ").replace("-", " ").split()) + '"'
        if phrase != '""' and phrase not in phrases:
            phrases.append(phrase)
    return phrases


def candidates(
    project: Project, issue: Issue, *, limit: int = CANDIDATES, before: str | None = None, text_only: bool = False
) -> list[tuple[int, float]]:
    """(id, bm25) of the best matches other than `issue` (filed before `before`; title and body only when asked)."""
    terms = query_terms(project.model(), issue)
    if not terms:
        return []
    match = " OR ".join(terms)
    if text_only:
        match = "{title body} : (" + match + ")"
    where, params = "", [match, issue.id]
    if before is not None:
        where, params = " AND i.created_at < ?", [*params, before]
    with connect(project.corpus.data, project.corpus.home) as conn:
        rows = conn.execute(
            "SELECT issues_fts.rowid, bm25(issues_fts, 10.0, 4.0, 1.0) FROM issues_fts"
            " JOIN issues i ON i.id = issues_fts.rowid"
            f" WHERE issues_fts MATCH ? AND issues_fts.rowid != ?{where} ORDER BY rank LIMIT ?",
            [*params, limit],
        ).fetchall()
    return [(int(rowid), float(score)) for rowid, score in rows]


def rank(project: Project, issue: Issue, found: list[tuple[int, float]]) -> list[Match]:
    """The candidates scored (cosine, relative BM25, shared codes and frames), best first."""
    if not found:
        return []
    model = project.model()
    others = project.corpus.many([issue_id for issue_id, _ in found])
    ids = [issue_id for issue_id, _ in found if issue_id in others]
    vectors = model.vectors([issue.text, *(others[i].text for i in ids)])
    cosine = np.asarray((vectors[1:] @ vectors[0].T).todense()).ravel()
    best = min(score for _, score in found) or -1.0
    bm25 = {issue_id: score / best for issue_id, score in found}
    mine = signature(issue.text)
    matches = []
    for position, issue_id in enumerate(ids):
        other = others[issue_id]
        codes, frames = mine.shared(signature(other.text))
        shared = min(1.0, (len(codes) + 2 * len(frames)) / 3)
        score = WEIGHT_COSINE * cosine[position] + WEIGHT_BM25 * bm25[issue_id] + WEIGHT_SIGNATURE * shared
        words = shared_words(model, vectors, position + 1)
        matches.append(
            Match(other.id, other.title, other.state, other.labels, float(score), words, tuple(codes), tuple(frames))
        )
    return sorted(matches, key=lambda m: -m.score)


def shared_words(model: TextModel, vectors: object, row: int, count: int = 5) -> tuple[str, ...]:
    mine, theirs = vectors.getrow(0), vectors.getrow(row)  # type: ignore[attr-defined]
    product = mine.multiply(theirs).tocsr()
    order = np.argsort(-product.data)[:count]
    return tuple(str(model.vocabulary[product.indices[i]]) for i in order)


def similar(project: Project, issue: Issue, limit: int = 5) -> list[Match]:
    """The `limit` most similar issues, open ones first, each group best first."""
    best = rank(project, issue, candidates(project, issue))[:limit]
    return sorted(best, key=lambda m: (m.state != "open", -m.score))
