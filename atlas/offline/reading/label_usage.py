"""A project's words for its labels, learned from how the labels are used.

"feature requests" on a project whose label is `enhancement`, "docs issues" where it is
`documentation`: no label is named by those words, but most issues carrying the label say them,
and far more often than the rest of the backlog does. The data's own full-text index answers,
per phrase, how many issues of each label contain it; nothing here lists any project's words.
"""

from __future__ import annotations

import math
import re
import sqlite3
import threading
from collections.abc import Sequence
from contextlib import closing
from pathlib import Path

MIN_ISSUES = 3
"""A label on fewer issues, or a phrase in fewer of them, proves nothing about what the label means."""
MIN_SHARE = 0.5
"""Most of the label's issues must say the phrase..."""
MIN_LIFT = 3.0
"""...and say it at least this many times as often as the backlog as a whole."""
MIN_COVER = 0.1
"""A label on fewer than this share of the issues that say its name is not how the project files that topic:
`about streaming` where `streaming` is on 17 of the 338 issues saying it is a search for the word."""


_ANY_ISSUE = frozenset({"issue", "issues", "ticket", "tickets", "report", "reports", "one", "ones", "open", "closed"})
"""Words for any issue, which no label means (`open vision issues vs open speech issues`)."""


class ProjectLabels(list[str]):
    """The dataset's labels, able to say which of them a phrase of the project's own words means."""

    def __init__(self, names: list[str], database: Path | None = None, counts: dict[str, int] | None = None) -> None:
        super().__init__(names)
        self.database = database
        self.counts = counts or {}
        """How many issues carry each label."""
        self._meanings: dict[str, str | None] = {}
        self._covers: dict[str, bool] = {}
        self._lock = threading.Lock()

    def meaning(self, phrase: str) -> str | None:
        """The label most of whose issues say `phrase` (and few others do), or None."""
        words = re.findall(r"[a-z0-9]+", phrase.casefold())
        if not words or self.database is None or set(words) <= _ANY_ISSUE:
            return None  # `open issues`: words for any issue name no kind of them
        key = " ".join(words)
        with self._lock:
            if key in self._meanings:
                return self._meanings[key]
        found = _meaning(self.database, key)
        with self._lock:
            self._meanings[key] = found
        return found

    def files_topic(self, label: str) -> bool:
        """Whether the label is on enough of the issues that say its name to stand for the topic; True when the
        words are rare or the index cannot tell."""
        with self._lock:
            if label in self._covers:
                return self._covers[label]
        found = self.database is None or _covers(self.database, label)
        with self._lock:
            self._covers[label] = found
        return found


def files_topic(labels: Sequence[str], label: str) -> bool:
    """Whether `label` stands for its topic's words on this project (True when the labels came without an index)."""
    return labels.files_topic(label) if isinstance(labels, ProjectLabels) else True


def issues_carrying(labels: Sequence[str], label: str) -> int:
    """How many issues carry `label` (0 when the labels came without their counts)."""
    return labels.counts.get(label, 0) if isinstance(labels, ProjectLabels) else 0


def example_label(labels: Sequence[str]) -> str:
    """A label to show in an example: the project's most used one, quoted when it has spaces."""
    counts = labels.counts if isinstance(labels, ProjectLabels) else {}
    name = max(labels, key=lambda label: counts.get(label, 0), default="bug")
    return f'"{name}"' if " " in name else name


def _meaning(database: Path, phrase: str) -> str | None:
    query = f'"{phrase}"'
    try:
        with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=0)) as conn:
            total = conn.execute("SELECT count(*) FROM issues").fetchone()[0]
            saying = conn.execute("SELECT count(*) FROM issues_fts WHERE issues_fts MATCH ?", (query,)).fetchone()[0]
            if not total or saying < MIN_ISSUES:
                return None
            rows = conn.execute(
                "SELECT l.name, count(*), (SELECT count(*) FROM issue_labels x WHERE x.label_id = l.id)"
                " FROM issues_fts f JOIN issue_labels il ON il.issue_id = f.rowid JOIN labels l ON l.id = il.label_id"
                " WHERE issues_fts MATCH ? GROUP BY l.id",
                (query,),
            ).fetchall()
    except sqlite3.Error:  # no index, a locked or broken db: the words stay words
        return None
    base = saying / total
    scored = []
    for name, said, carrying in rows:
        share = said / carrying
        if carrying >= MIN_ISSUES and said >= MIN_ISSUES and share >= MIN_SHARE and share >= MIN_LIFT * base:
            scored.append((share * math.log(share / base), str(name)))
    return max(scored)[1] if scored else None


def _covers(database: Path, label: str) -> bool:
    words = re.findall(r"[a-z0-9]+", label.rpartition(":")[2].casefold())
    if not words:
        return True
    query = '"' + " ".join(words) + '"'
    try:
        with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=0)) as conn:
            saying, carrying = conn.execute(
                "SELECT count(*), count(l.id) FROM issues_fts f LEFT JOIN issue_labels il ON il.issue_id = f.rowid"
                " AND il.label_id = (SELECT id FROM labels WHERE name = ?) LEFT JOIN labels l ON l.id = il.label_id"
                " WHERE issues_fts MATCH ?",
                (label, query),
            ).fetchone()
    except sqlite3.Error:  # no index, a locked or broken db: the label stands
        return True
    return bool(saying < MIN_ISSUES or carrying >= MIN_COVER * saying)
