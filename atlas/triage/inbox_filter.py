"""The inbox narrowed to a topic, a label and a first day (`atlas inbox --about streaming --label bug --since
2025-01-01`): the open issues with every word (as `search_issues` matches them), carrying the label as Atlas's own
writes left it, opened on or after the day."""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass
from datetime import date
from pathlib import Path

from atlas.dataset.read import connect
from atlas.dataset.source import dataset_identity
from atlas.foundation.errors import PermanentToolError, ToolError
from atlas.orbit.fts_match import all_words_match, search_terms
from atlas.orbit.search_filters import has_label, issues_matching, label_overlay
from atlas.tracker.journal import MockTracker

SAID_MAX = 60
"""The most characters of the words a heading repeats."""


@dataclass(frozen=True)
class InboxFilter:
    about: str = ""
    """Words every issue listed has, in its title, body or comments."""
    since: date | None = None
    """The first day an issue listed may have been opened."""
    label: str = ""
    """A label every issue listed carries, as the project spells it (case aside)."""

    def __bool__(self) -> bool:
        return bool(search_terms(self.about)) or self.since is not None or bool(self.label.strip())

    def describe(self) -> str:
        """What the filter keeps, for a heading: `about streaming, opened since 2025-01-01`."""
        words = " ".join(self.about.split())
        words = words if len(words) <= SAID_MAX else words[: SAID_MAX - 1] + "…"
        said = [f"about {words}"] if search_terms(self.about) else []
        said += [f"labelled {' '.join(self.label.split())[:SAID_MAX]}"] if self.label.strip() else []
        return ", ".join(said + ([f"opened since {self.since.isoformat()}"] if self.since else []))

    def issue_ids(self, data: Path, home: Path) -> frozenset[int] | None:
        """The open issues the filter keeps; None when it keeps every one. A label on no issue is a
        `PermanentToolError` that names the nearest labels (as `search_issues` says it)."""
        if not self:
            return None
        terms = search_terms(self.about)
        where, params = " AND i.state = 'open'", list[object]()
        if self.since is not None:
            where, params = where + " AND i.created_at >= ?", [self.since.isoformat()]
        with connect(data, home) as conn:
            match = all_words_match(conn, terms) if terms else None
            if self.label.strip():
                has, values = self._labelled(conn, data, home)
                where, params = f"{where} AND ({has})", [*params, *values]
            source, values = issues_matching(match, where, params)
            return frozenset(row[0] for row in conn.execute(f"SELECT i.id {source}", values))

    def _labelled(self, conn: sqlite3.Connection, data: Path, home: Path) -> tuple[str, list[object]]:
        """The condition that an issue carries the label, Atlas's own label writes applied."""
        try:
            changes = MockTracker(home, dataset_identity(data)).label_changes_by_issue()
        except ToolError:
            changes = {}  # an unreadable journal: the labels as the data has them (as `search_issues` reads them)
        overlay, unknown = label_overlay(conn, [self.label], changes)
        if unknown:
            raise PermanentToolError(unknown)
        ((label, (added, removed)),) = overlay.items()
        has, values = has_label(label, added, removed)
        return has, list(values)
