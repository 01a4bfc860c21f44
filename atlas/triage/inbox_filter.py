"""The inbox narrowed to a topic and a first day (`atlas inbox --about streaming --since 2025-01-01`): the open
issues with every word (as `search_issues` matches them) opened on or after the day."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import date
from pathlib import Path

from atlas.dataset.read import connect
from atlas.orbit.issues import match_terms, search_terms
from atlas.orbit.search_filters import issues_matching

SAID_MAX = 60
"""The most characters of the words a heading repeats."""


@dataclass(frozen=True)
class InboxFilter:
    about: str = ""
    """Words every issue listed has, in its title, body or comments."""
    since: date | None = None
    """The first day an issue listed may have been opened."""

    def __bool__(self) -> bool:
        return bool(search_terms(self.about)) or self.since is not None

    def describe(self) -> str:
        """What the filter keeps, for a heading: `about streaming, opened since 2025-01-01`."""
        words = " ".join(self.about.split())
        words = words if len(words) <= SAID_MAX else words[: SAID_MAX - 1] + "…"
        said = [f"about {words}"] if search_terms(self.about) else []
        return ", ".join(said + ([f"opened since {self.since.isoformat()}"] if self.since else []))

    def issue_ids(self, data: Path, home: Path) -> frozenset[int] | None:
        """The open issues the filter keeps; None when it keeps every one."""
        if not self:
            return None
        terms = search_terms(self.about)
        match = " AND ".join(match_terms(terms)) if terms else None
        where, params = " AND i.state = 'open'", []
        if self.since is not None:
            where, params = where + " AND i.created_at >= ?", [self.since.isoformat()]
        source, values = issues_matching(match, where, params)
        with connect(data, home) as conn:
            return frozenset(row[0] for row in conn.execute(f"SELECT i.id {source}", values))
