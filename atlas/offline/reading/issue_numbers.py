"""Which numbers are the project's issues, and the day its data ends, read from the data on first need.

`1104: renewals late or just noise?`: said first with a colon, a number is an issue (`41: label it bug`); where the
project has no issue of that number and its docs have an error code of it, it is the code. `the last 6 months of
the data`: days counted back from the data's last day, not from today (an export ends when it was taken).
"""

from __future__ import annotations

import sqlite3
import threading
from datetime import date
from pathlib import Path

from atlas.offline.reading.project_db import reading


class ProjectIssues:
    """The numbers of the project's issues, loaded on first use (a question with no bare number pays nothing)."""

    def __init__(self, database: Path | None = None, numbers: list[int] | None = None) -> None:
        self.database = database
        self._numbers: frozenset[int] | None = None if numbers is None else frozenset(numbers)
        self._last_day: date | None = None
        self._last_day_read = False
        self._lock = threading.Lock()

    def last_day(self) -> date | None:
        """The day of the data's last issue or comment; None when its data cannot tell."""
        with self._lock:
            if not self._last_day_read:
                self._last_day, self._last_day_read = _last_day(self.database), True
            return self._last_day

    def has(self, number: int) -> bool | None:
        """Whether the project has an issue of this number; None when its data cannot tell (none, or unreadable)."""
        with self._lock:
            if self._numbers is None:
                self._numbers = _numbers(self.database)
            return None if not self._numbers else number in self._numbers


def _numbers(database: Path | None) -> frozenset[int]:
    if database is None:
        return frozenset()
    try:
        with reading(database) as conn:
            rows = conn.execute("SELECT id FROM issues").fetchall()
    except (sqlite3.Error, OSError):  # unreadable data: no number is known not to be an issue
        return frozenset()
    return frozenset(int(number) for (number,) in rows)


def _last_day(database: Path | None) -> date | None:
    if database is None:
        return None
    try:
        with reading(database) as conn:
            newest = conn.execute(
                "SELECT max(day) FROM (SELECT max(created_at) AS day FROM issues"
                " UNION ALL SELECT max(created_at) FROM comments)"
            ).fetchone()[0]
        return date.fromisoformat(str(newest)[:10]) if newest else None
    except (sqlite3.Error, OSError, ValueError):  # unreadable data, or a day it does not write as ISO: none known
        return None
