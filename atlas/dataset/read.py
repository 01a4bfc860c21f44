"""Read-only connections to a data folder's issues db, with SQLite's failures translated at this one edge.

The read tools and the tracker's label checks look issues up through here, so "busy" always
means a TransientToolError and a broken or missing db always a PermanentToolError.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from atlas.dataset.ensure import ensure_db, jsonl_path
from atlas.dataset.source import comments_recorded
from atlas.foundation import statefiles
from atlas.foundation.config import dataset_name
from atlas.foundation.errors import SOURCE_BROKEN_HINT, DataError, PermanentToolError, TransientToolError, is_busy

BUSY_TIMEOUT_S = 0.25
"""Short on purpose: the executor retries transient failures with backoff; a long wait here
would only eat the call's own deadline."""

_resolved: dict[tuple[Path, Path], tuple[tuple[int, int] | None, Path]] = {}
_resolved_lock = threading.Lock()


def _jsonl_signature(data: Path) -> tuple[int, int] | None:
    try:
        stat = jsonl_path(data).stat()
    except OSError:
        return None
    return (stat.st_mtime_ns, stat.st_size)


def db_for(data: Path, home: Path) -> Path:
    """The db for a data folder; hashing the JSONL happens again only when the JSONL changes."""
    key = (data, home)
    signature = _jsonl_signature(data)
    with _resolved_lock:
        cached = _resolved.get(key)
        if cached and cached[0] == signature and cached[1].is_file():
            return cached[1]
        try:
            path = ensure_db(data, home)
        except DataError as exc:
            raise PermanentToolError(
                f"the data of {dataset_name(data)} cannot be read: {exc}", hint=SOURCE_BROKEN_HINT
            ) from None
        _resolved[key] = (signature, path)
        return path


def translate(exc: sqlite3.Error) -> Exception:
    """SQLite's error as a tool error: busy/locked may pass, anything else will not."""
    if is_busy(exc):
        return TransientToolError(f"the issues database is busy ({exc}); try again shortly")
    return PermanentToolError(f"the issues database failed: {exc}", hint=SOURCE_BROKEN_HINT)


@contextmanager
def connect(data: Path, home: Path) -> Iterator[sqlite3.Connection]:
    """A read-only connection; SQLite errors leave it as Transient/PermanentToolError."""
    path = db_for(data, home)
    try:
        statefiles.check_regular(path)
    except OSError as exc:
        raise PermanentToolError(f"the issues database cannot be read: {exc}", hint=SOURCE_BROKEN_HINT) from None
    try:
        conn = sqlite3.connect(f"{path.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_TIMEOUT_S)
    except sqlite3.Error as exc:
        raise translate(exc) from exc
    conn.row_factory = sqlite3.Row
    try:
        yield conn
    except sqlite3.Error as exc:
        raise translate(exc) from exc
    finally:
        conn.close()


def comments_known(conn: sqlite3.Connection, data: Path) -> bool:
    """Whether the data holds the issues' comments. An import that did not record it knows them when it
    holds any: a whole backlog without one comment is an export that carried none."""
    recorded = comments_recorded(data)
    if recorded is not None:
        return recorded
    return conn.execute("SELECT 1 FROM comments LIMIT 1").fetchone() is not None
