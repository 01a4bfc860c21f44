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


class ProjectLabels(list[str]):
    """The dataset's labels, able to say which of them a phrase of the project's own words means."""

    def __init__(self, names: list[str], database: Path | None = None, counts: dict[str, int] | None = None) -> None:
        super().__init__(names)
        self.database = database
        self.counts = counts or {}
        """How many issues carry each label."""
        self._meanings: dict[str, str | None] = {}
        self._lock = threading.Lock()

    def meaning(self, phrase: str) -> str | None:
        """The label most of whose issues say `phrase` (and few others do), or None."""
        words = re.findall(r"[a-z0-9]+", phrase.casefold())
        if not words or self.database is None:
            return None
        key = " ".join(words)
        with self._lock:
            if key in self._meanings:
                return self._meanings[key]
        found = _meaning(self.database, key)
        with self._lock:
            self._meanings[key] = found
        return found


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
