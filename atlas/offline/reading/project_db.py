"""The project's database, opened for the planner's reads of its words, people and numbers.

Read only, never through a link, and never waited on when locked (timeout 0): the planner must not stall a question
the tools may answer. Each caller says what an unreadable database means for it (no one known, no label, …).
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterator
from contextlib import closing, contextmanager
from pathlib import Path

from atlas.foundation import statefiles


@contextmanager
def reading(database: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection to `database`; raises `OSError` (not a regular file) or `sqlite3.Error`."""
    statefiles.check_regular(database)
    with closing(sqlite3.connect(f"file:{database}?mode=ro", uri=True, timeout=0)) as conn:
        yield conn
