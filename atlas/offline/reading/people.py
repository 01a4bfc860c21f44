"""The people who filed the project's issues, so a bare name after `from` or `by` is read as an author.

`open stuff from lhoestq`: with no `@`, a word after `from` is only an author when the project knows
someone of that login; `issues from yesterday` or `bugs from the CLI` name nobody. The logins are read
from the data on first need, never listed here.
"""

from __future__ import annotations

import sqlite3
import threading
from pathlib import Path

from atlas.offline.reading.project_db import reading


class ProjectPeople:
    """The logins of the project's issue authors, loaded on first use (a question naming no one pays nothing)."""

    def __init__(self, database: Path | None = None, logins: list[str] | None = None) -> None:
        self.database = database
        self._logins: dict[str, str] | None = None if logins is None else {name.casefold(): name for name in logins}
        self._lock = threading.Lock()

    def login(self, name: str) -> str | None:
        """The login as the project spells it when `name` is one of its authors (case forgiven), else None."""
        with self._lock:
            if self._logins is None:
                self._logins = _authors(self.database)
            return self._logins.get(name.casefold())


def _authors(database: Path | None) -> dict[str, str]:
    if database is None:
        return {}
    try:
        with reading(database) as conn:
            rows = conn.execute("SELECT DISTINCT author FROM issues WHERE author IS NOT NULL").fetchall()
    except (sqlite3.Error, OSError):  # unreadable data: nobody is known, and `from X` stays words
        return {}
    return {str(name).casefold(): str(name) for (name,) in rows if name}
