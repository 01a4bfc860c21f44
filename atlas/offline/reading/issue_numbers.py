"""Which numbers are the project's issues, so a bare number that is none of them can be read as what else it names.

`1104: renewals late or just noise?`: said first with a colon, a number is an issue (`41: label it bug`); where the
project has no issue of that number and its docs have an error code of it, it is the code. The numbers are read
from the data on first need.
"""

from __future__ import annotations

import sqlite3
import threading
from contextlib import closing
from pathlib import Path

from atlas.foundation import statefiles


class ProjectIssues:
    """The numbers of the project's issues, loaded on first use (a question with no bare number pays nothing)."""

    def __init__(self, database: Path | None = None, numbers: list[int] | None = None) -> None:
        self.database = database
        self._numbers: frozenset[int] | None = None if numbers is None else frozenset(numbers)
        self._lock = threading.Lock()

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
        statefiles.check_regular(database)
        with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=0)) as conn:
            rows = conn.execute("SELECT id FROM issues").fetchall()
    except (sqlite3.Error, OSError):  # unreadable data: no number is known not to be an issue
        return frozenset()
    return frozenset(int(number) for (number,) in rows)
