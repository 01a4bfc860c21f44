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
    """The logins of the project's issue authors, each looked up when a word may be one (a question naming no one
    pays nothing, and one naming someone pays for that name, not for every author of a large project)."""

    def __init__(self, database: Path | None = None, logins: list[str] | None = None) -> None:
        self.database = database
        self._logins: dict[str, str | None] = {} if logins is None else {name.casefold(): name for name in logins}
        """Each name asked about: the login as the project spells it, or None for no author of that name."""
        self._titled: dict[str, int] = {}
        """How many titles hold each word asked about, read once."""
        self._lock = threading.Lock()

    def login(self, name: str) -> str | None:
        """The login as the project spells it when `name` is one of its authors (case forgiven), else None."""
        key = name.casefold()
        with self._lock:
            if key in self._logins:
                return self._logins[key]
        found = _author(self.database, name)
        with self._lock:
            self._logins[key] = found
        return found

    def person(self, name: str) -> str | None:
        """The login, when `name` is one of the authors and few titles hold it as a word: `lhoestq issues` names a
        person, `python issues` a topic even where someone's login is `python`. The titles are asked first: a word
        many hold (`Compare issues`) is no name, whoever's login it may be."""
        key = name.casefold()
        with self._lock:
            titled = self._titled.get(key)
        if titled is None:
            titled = _titles_holding(self.database, name)
            with self._lock:
                self._titled[key] = titled
        return self.login(name) if titled < TITLES_OF_A_WORD else None


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


AUTHOR_LOOKUP = "SELECT author FROM issues WHERE author = ? COLLATE NOCASE LIMIT 1"
"""One author by name, case forgiven: a search of the data's index on it (`issues_by_author`), whatever its size."""


def _author(database: Path | None, name: str) -> str | None:
    """The login of an author of that name (case forgiven), as the data spells it; None when no issue has one."""
    if database is None or not name:
        return None
    try:
        with reading(database) as conn:
            row = conn.execute(AUTHOR_LOOKUP, (name,)).fetchone()
    except (sqlite3.Error, OSError):  # unreadable data: nobody is known, and `from X` stays words
        return None
    return str(row[0]) if row and row[0] else None
