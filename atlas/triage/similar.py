"""Issues like a given one, ranked by evidence: the similarity index's score, plus shared error codes and frames.

Every issue in the similarity index (`index.py`: the newest 20,000) is scored against the report
at once, by the project's ranker (`rankers.py`): the cosines of the titles, of the texts read
without the project's form lines, and of the plain texts, weighed as its known duplicates chose.
Open or closed is shown, never ranked on: an old closed report of the same bug is the best answer.
In a longer backlog the older issues that share the report's most telling words join through
FTS5, which walks its posting lists newest first and stops at a limit, so a query costs the same
whatever the backlog's size. A best score below CLOSE is "nothing close". Advisory only: nothing
here changes an issue.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from scipy import sparse

from atlas.dataset.read import connect
from atlas.triage.corpus import Issue
from atlas.triage.index import Query
from atlas.triage.model import TextModel
from atlas.triage.project import Project
from atlas.triage.signatures import signature

QUERY_TERMS = 14
CANDIDATES = 40
POOL = 50
SIGNATURE_BONUS = 0.1
"""Added to a score when the two issues share error codes or stack frames (in full at one frame)."""
CLOSE = 0.2
"""A best score below this is nothing close: words in common, not the same report."""
EXACT_MAX = 5_000
"""Issues (by the highest number) up to which every match is BM25-ranked."""
PAIR_TERMS = 6


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
    title_likeness: float = 0.0
    """The cosine of the two titles alone: 0 when they share no word that tells (only a pasted log or listing does)."""

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


def nearest(project: Project, issue: Issue, *, limit: int = POOL, before: str | None = None) -> list[Match]:
    """The issues most like `issue` (filed before `before` when given), best first, by evidence alone.

    Every indexed issue is scored at once; in a backlog longer than the index, the older issues
    that share its most telling words join through the full-text index."""
    index = project.index()
    row = index.row(issue.id)
    query = index.stored(row) if row is not None else index.vectors([issue])
    scores = index.scores(query)
    keep = index.ids != issue.id
    if before is not None:
        keep &= index.created < before
    chosen = np.flatnonzero(keep)
    best = chosen[np.argsort(-scores[chosen], kind="stable")[:limit]]
    found = {int(index.ids[n]): float(scores[n]) for n in best if scores[n] > 0}
    if project.corpus.count() > len(index.ids):
        found.update(_older(project, issue, before, set(found), query))
    return _matches(project, issue, found, query)[:limit]


def _older(project: Project, issue: Issue, before: str | None, seen: set[int], query: Query) -> dict[int, float]:
    """Issues older than the index that share the issue's telling words, scored as the index scores."""
    index = project.index()
    found = candidates(project, issue, before=before, text_only=True)
    ids = [i for i, _ in found if i not in seen and index.row(i) is None]
    others = project.corpus.many(ids)
    ids = [i for i in ids if i in others]
    if not ids:
        return {}
    scores = index.scores(query, index.vectors([others[i] for i in ids]))
    return {i: float(score) for i, score in zip(ids, scores, strict=True) if score > 0}


def _matches(project: Project, issue: Issue, found: dict[int, float], query: Query) -> list[Match]:
    """The found issues as matches: a shared error code or stack frame adds to the score; what they share named."""
    if not found:
        return []
    index = project.index()
    others = project.corpus.many(list(found))
    ids = [i for i in found if i in others]
    titles, texts, _ = index.vectors([others[i] for i in ids])
    # One elementwise product of every match with the issue: its largest entries are the shared words.
    product = sparse.csr_matrix(texts.multiply(query[1]))
    likeness = np.asarray((titles @ query[0].T).toarray()).ravel()
    mine = signature(issue.text)
    matches = []
    for position, issue_id in enumerate(ids):
        other = others[issue_id]
        codes, frames = mine.shared(signature(other.text))
        shared = min(1.0, (len(codes) + 2 * len(frames)) / 3)
        score = found[issue_id] + SIGNATURE_BONUS * shared
        words = shared_words(index.vocabulary, product, position)
        found_codes, found_frames, alike = tuple(codes), tuple(frames), float(likeness[position])
        matches.append(
            Match(other.id, other.title, other.state, other.labels, score, words, found_codes, found_frames, alike)
        )
    return sorted(matches, key=lambda m: (-m.score, m.id))


def shared_words(vocabulary: np.ndarray, product: sparse.csr_matrix, row: int, count: int = 5) -> tuple[str, ...]:
    """The words of one row of the product that weigh most in the cosine."""
    start, end = product.indptr[row], product.indptr[row + 1]
    data, indices = product.data[start:end], product.indices[start:end]
    order = np.argsort(-data)[:count]
    return tuple(str(vocabulary[indices[i]]) for i in order if data[i] > 0)


def similar(project: Project, issue: Issue, limit: int = 5) -> list[Match]:
    """The `limit` most similar issues, best first: open or closed is a column, not a rank."""
    return nearest(project, issue, limit=limit)


def nothing_close(matches: list[Match]) -> bool:
    """True when even the best match scores too low to be worth a person's reading."""
    return not matches or matches[0].score < CLOSE
