"""The inbox's order, read from the open issues' labels and dates alone: most severe first, then oldest
(`urgent`, the usual one), or by date alone when asked: the newest or the oldest opened first.

An issue's place depends on nothing else, so the order of every open issue costs one read of two
small columns and their labels, kept in the state folder until the labels change (`label_cache`),
and the reasons to look at an issue (its thread, read issue by issue) are worked out only for the
issues a reader gets to: `atlas inbox -n 20` reads about twenty threads, whatever the size of the
backlog. An issue's severity depends only on its set of labels, and a project has few distinct
sets, so each set is judged once.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator
from typing import Literal

from atlas.dataset.read import connect
from atlas.triage import label_cache
from atlas.triage.groups import LabelGroup
from atlas.triage.project import Project
from atlas.triage.severity import Severity, scale, severity_of, sort_key

OPEN_MAX = 200_000
"""The newest open issues the inbox considers."""
FIRST_PAGE = 64
LAST_PAGE = 4096
"""Issues whose reasons are read at once: few for the first rows, then more and more for a whole listing."""

_OPEN_WITH_LABELS = (
    "SELECT i.id, i.created_at, (SELECT json_group_array(l.name) FROM issue_labels il"
    " JOIN labels l ON l.id = il.label_id WHERE il.issue_id = i.id)"
    " FROM issues i WHERE i.state = 'open' ORDER BY i.created_at DESC, i.id DESC LIMIT ?"
)
"""Each open issue's labels as one JSON array: SQLite groups them, and a label may hold any character."""

_OPEN_BY_DATE = "SELECT i.id FROM issues i WHERE i.state = 'open' ORDER BY i.created_at {way}, i.id {way} LIMIT ?"
InboxOrder = Literal["urgent", "newest", "oldest"]
INBOX_ORDERS: tuple[InboxOrder, ...] = ("urgent", "newest", "oldest")

SeverityOf = Callable[[Iterable[str]], Severity]


def severity_judge(groups: list[LabelGroup]) -> SeverityOf:
    """`severity_of(groups, labels)`, judged once for each distinct set of labels."""
    judged: dict[tuple[str, ...], Severity] = {}

    def severity(labels: Iterable[str]) -> Severity:
        key = tuple(sorted(set(labels)))
        found = judged.get(key)
        if found is None:
            found = judged[key] = severity_of(groups, key)
        return found

    return severity


def open_in_order(project: Project, severity: SeverityOf) -> list[int]:
    """The open issues' ids in the inbox's order (severity, then filed, then id), labels as Atlas left them:
    kept in the state folder with the version of the labels, read from the data when that changes."""
    home, key = project.corpus.home, project.label_key
    kept = label_cache.load_order(home, key) if key else None
    if kept is None:
        kept = read_order(project, severity)
        if key:
            label_cache.save_order(home, key, kept)
    return kept


def open_by_date(project: Project, *, newest: bool) -> list[int]:
    """The open issues' ids by the date they were opened, the newest or the oldest first (then by id)."""
    corpus = project.corpus
    with connect(corpus.data, corpus.home) as conn:
        rows = conn.execute(_OPEN_BY_DATE.format(way="DESC" if newest else "ASC"), (OPEN_MAX,)).fetchall()
    return [issue_id for (issue_id,) in rows]


def read_order(project: Project, severity: SeverityOf) -> list[int]:
    """The order of `open_in_order`, read from every open issue's labels and date."""
    corpus = project.corpus
    order = scale(project.groups)
    by_labels: dict[str, float] = {}  # the same labels, as SQLite wrote them, sort the same
    keyed: list[tuple[float, str, int]] = []
    with connect(corpus.data, corpus.home) as conn:
        for issue_id, created_at, labels in conn.execute(_OPEN_WITH_LABELS, (OPEN_MAX,)):
            change = corpus.changes.get(issue_id)
            if change is not None:
                key = sort_key(severity(change.applied_to(json.loads(labels))), order)
            elif (key := by_labels.get(labels, -1.0)) < 0:
                key = by_labels[labels] = sort_key(severity(json.loads(labels)), order)
            keyed.append((key, created_at, issue_id))
    keyed.sort()
    return [issue_id for _, _, issue_id in keyed]


def pages(ids: list[int]) -> Iterator[list[int]]:
    """`ids` in pages that double from FIRST_PAGE to LAST_PAGE."""
    start, size = 0, FIRST_PAGE
    while start < len(ids):
        yield ids[start : start + size]
        start, size = start + size, min(size * 2, LAST_PAGE)
