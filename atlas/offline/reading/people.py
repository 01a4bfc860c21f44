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
        self._titled: dict[str, int] = {}
        """How many titles hold each login asked about, read once."""
        self._lock = threading.Lock()

    def login(self, name: str) -> str | None:
        """The login as the project spells it when `name` is one of its authors (case forgiven), else None."""
        with self._lock:
            if self._logins is None:
                self._logins = _authors(self.database)
            return self._logins.get(name.casefold())

    def person(self, name: str) -> str | None:
        """The login, when `name` is one of the authors and few titles hold it as a word: `lhoestq issues` names a
        person, `python issues` a topic even where someone's login is `python`."""
        login = self.login(name)
        if login is None:
            return None
        with self._lock:
            titled = self._titled.get(login)
        if titled is None:
            titled = _titles_holding(self.database, login)
            with self._lock:
                self._titled[login] = titled
        return login if titled < TITLES_OF_A_WORD else None


TITLES_OF_A_WORD = 3
"""Titles holding a name from which it is read as a word of the topic rather than a login."""


def _titles_holding(database: Path | None, word: str) -> int:
    """How many titles hold the word (up to `TITLES_OF_A_WORD`), by the issues' full-text index."""
    if database is None:
        return 0
    phrase = '"' + word.replace('"', '""') + '"'
    try:
        with reading(database) as conn:
            found = conn.execute(
                "SELECT count(*) FROM (SELECT 1 FROM issues_fts WHERE issues_fts MATCH ? LIMIT ?)",
                (f"title : {phrase}", TITLES_OF_A_WORD),
            ).fetchone()
    except (sqlite3.Error, OSError):  # no index to ask: the name is taken as the person's
        return 0
    return int(found[0])


def _authors(database: Path | None) -> dict[str, str]:
    if database is None:
        return {}
    try:
        with reading(database) as conn:
            rows = conn.execute("SELECT DISTINCT author FROM issues WHERE author IS NOT NULL").fetchall()
    except (sqlite3.Error, OSError):  # unreadable data: nobody is known, and `from X` stays words
        return {}
    return {str(name).casefold(): str(name) for (name,) in rows if name}
