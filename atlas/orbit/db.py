"""Read-only access to the Orbit issues db, with SQLite's failures translated at this one edge.

Both the read tools and the mock tracker look issues up through here, so "busy" always means
a TransientToolError and a broken or missing db always a PermanentToolError.
"""

from __future__ import annotations

import sqlite3
import threading
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Annotated

from pydantic import Field

from atlas.dataset import ensure_db, jsonl_path
from atlas.errors import SOURCE_BROKEN_HINT, DataError, PermanentToolError, TransientToolError, is_busy

MAX_ISSUE_ID = 2**63 - 1
"""SQLite's largest integer: a bigger id cannot name an issue, and binding one overflows."""

IssueId = Annotated[int, Field(ge=1, le=MAX_ISSUE_ID, description="The issue's number, e.g. 41 for #41.")]
"""The argument type of every tool that takes an issue id: bounded where the model's input is checked."""

BUSY_TIMEOUT_S = 0.25
"""Short on purpose: the executor retries transient failures with backoff; a long wait here
would only eat the call's own deadline."""

_resolved: dict[tuple[Path, Path], tuple[tuple[int, int] | None, Path]] = {}
_resolved_lock = threading.Lock()


@dataclass(frozen=True)
class IssueBrief:
    """What a side effect needs to know about its target issue."""

    id: int
    title: str
    labels: list[str]


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
            raise PermanentToolError(f"the Orbit dataset cannot be read: {exc}", hint=SOURCE_BROKEN_HINT) from None
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


def no_such_issue(conn: sqlite3.Connection, issue_id: int) -> LookupError:
    """The first sentence is for a person (the offline answer shows only it), the rest for the model."""
    count, low, high = conn.execute("SELECT count(*), min(id), max(id) FROM issues").fetchone()
    extent = f"{count:,} issues, #{low}–#{high}" if count else "no issues"
    return LookupError(
        f"There is no issue #{issue_id} in the Orbit dataset ({extent}). "
        "Use only issue ids the user gave or a search returned; do not guess ids."
    )


def labels_of(conn: sqlite3.Connection, issue_ids: Iterable[int]) -> dict[int, list[str]]:
    """Each issue's labels from the dataset, in a stable order."""
    ids = list(issue_ids)
    found: dict[int, list[str]] = {issue_id: [] for issue_id in ids}
    if not ids:
        return found
    marks = ",".join("?" * len(ids))
    rows = conn.execute(
        "SELECT il.issue_id, l.name FROM issue_labels il JOIN labels l ON l.id = il.label_id "
        f"WHERE il.issue_id IN ({marks}) ORDER BY l.name",
        ids,
    )
    for issue_id, name in rows:
        found[issue_id].append(name)
    return found


def issue_brief(data: Path, home: Path, issue_id: int) -> IssueBrief:
    """Title and dataset labels of an existing issue; LookupError when there is none."""
    with connect(data, home) as conn:
        row = conn.execute("SELECT id, title FROM issues WHERE id = ?", (issue_id,)).fetchone()
        if row is None:
            raise no_such_issue(conn, issue_id)
        return IssueBrief(id=row["id"], title=row["title"], labels=labels_of(conn, [issue_id])[issue_id])
