"""The planner's vocabulary kept between runs, made again only when the data it was learned from changes.

Learning a project's words (every doc parsed into sections and indexed for full-text search, the
newest titles read) was a tenth of an offline `atlas ask`, every run, for data that rarely changes.
The first run keeps what it learned in the user's cache folder (beside the compiled patterns): one
SQLite file per data folder (for the last few folders), holding the sections' full-text index and,
in a table of its own, the rest as JSON with the stamp it was learned under (each source file's
path, size and mtime, and those of the code that learned it). A later run whose stamp matches opens
that file read-only instead.

The file is only a cache, read and never trusted: one that is missing, unreadable, of another
stamp or malformed is learned over. As with the patterns, nothing is written when
`PYTHONDONTWRITEBYTECODE` (`-B`) is set.
"""

from __future__ import annotations

import contextlib
import hashlib
import json
import os
import sqlite3
import sys
from pathlib import Path
from typing import Any

from atlas.foundation import statefiles
from atlas.foundation.caches import cache_folder

FORMAT = 1
KEPT_FILES = 8
"""The most data folders whose vocabularies are kept; writing one more removes the least recently written."""
TABLE = "atlas_vocabulary"
"""The table beside the index holding the stamp and the rest of the vocabulary."""

Stamp = list[Any]


def kept_file(data: Path) -> Path:
    """Where the vocabulary of `data` is kept: one file per data folder."""
    digest = hashlib.sha256(os.fsencode(data.absolute())).hexdigest()[:16]
    return cache_folder() / f"vocabulary-{digest}.db"


def read_kept(path: Path, stamp: Stamp) -> tuple[dict[str, Any], sqlite3.Connection] | None:
    """The kept vocabulary's JSON part and its index (open read-only), when the file holds `stamp`; else None."""
    try:
        statefiles.check_regular(path)
        if os.path.islink(path):
            return None
    except OSError:
        return None
    connection = None
    try:
        connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True, check_same_thread=False)
        row = connection.execute(f"SELECT stamp, body FROM {TABLE}").fetchone()
        if row is None or row[0] != _stamp_text(stamp):
            connection.close()
            return None
        body = json.loads(row[1])
        if not isinstance(body, dict):
            raise ValueError("the kept vocabulary is not an object")
        return body, connection
    except (sqlite3.Error, ValueError, TypeError, RecursionError):
        if connection is not None:
            connection.close()
        return None


def keep(path: Path, stamp: Stamp, body: dict[str, Any], index: sqlite3.Connection) -> None:
    """Write the index and `body` under `stamp`, whole or not at all; silently, as a cache does."""
    if sys.dont_write_bytecode:
        return
    with contextlib.suppress(OSError, sqlite3.Error):
        path.parent.mkdir(mode=0o700, parents=True, exist_ok=True)
        with statefiles.replacing_at(path) as temporary, contextlib.closing(sqlite3.connect(temporary)) as disk:
            index.backup(disk)
            disk.execute(f"CREATE TABLE {TABLE} (stamp TEXT NOT NULL, body TEXT NOT NULL)")
            disk.execute(f"INSERT INTO {TABLE} VALUES (?, ?)", (_stamp_text(stamp), json.dumps(body)))
            disk.commit()
        _prune(path.parent)


def _prune(folder: Path) -> None:
    """Leave the `KEPT_FILES` most recently written vocabularies: data folders come and go (a test's,
    a clone's), and each kept file is a few hundred kilobytes."""
    kept = sorted(folder.glob("vocabulary-*.db"), key=lambda path: path.stat().st_mtime_ns, reverse=True)
    for path in kept[KEPT_FILES:]:
        path.unlink(missing_ok=True)


def _stamp_text(stamp: Stamp) -> str:
    return json.dumps([FORMAT, stamp], separators=(",", ":"))
