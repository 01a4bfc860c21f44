"""A dataset on disk (the bundled demo or a project of one's own): a fresh `orbit.db` for `issues.jsonl`.

`python -m atlas.dataset [DATA_DIR]` rebuilds the committed db. At run time `ensure_db()` uses
the db beside the JSONL when its stamp matches the JSONL (size and mtime, checked in O(1); when
only the mtime moved, as after a checkout, the SHA-256 stored at build time decides, once), and
otherwise builds one: in the data folder, or in the state folder when that is read-only. Only
one process builds a given db at a time; the others wait for it and use its result.
"""

from __future__ import annotations

import contextlib
import fcntl
import hashlib
import json
import os
import sqlite3
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import IO, Protocol

from atlas.dataset.build import SCHEMA_VERSION, Progress, build_db
from atlas.dataset.records import COMMENT_FIELDS, ISSUE_FIELDS, LABEL_PREFIXES, STATES, file_sha256, read_issues
from atlas.dataset.source import Project, project_of
from atlas.foundation import statefiles
from atlas.foundation.errors import DataError, is_busy
from atlas.foundation.notices import warn
from atlas.foundation.sanitize import write_line

__all__ = [
    "COMMENT_FIELDS",
    "ISSUE_FIELDS",
    "LABEL_PREFIXES",
    "SCHEMA_VERSION",
    "STATES",
    "build_db",
    "db_path",
    "ensure_db",
    "file_sha256",
    "jsonl_path",
    "read_issues",
    "stored_digest",
]

BUSY_WAIT_S = 0.25
"""How long a freshness check waits for a db that another process holds locked."""
LOCK_WAIT_S = 300.0
"""How long to wait for another process's build of the same db before giving up."""
VERIFIED_FILE = "dataset-verified.json"
VERIFIED_LIMIT = 4 * statefiles.MiB
"""The most Atlas reads of what it remembers verifying (one short line per dataset)."""
"""In the state folder: JSONL stamps whose content was found to match their db's stored hash."""


def jsonl_path(data: Path) -> Path:
    return data / "issues" / "issues.jsonl"


def db_path(data: Path) -> Path:
    return data / "issues" / "orbit.db"


def require_dataset(data: Path) -> None:
    """Refuse to start without a readable dataset: one error naming it, not a failure per tool call."""
    named = "ORBIT_DATA" if os.environ.get("ORBIT_DATA", "").strip() else "the bundled dataset (ORBIT_DATA unset)"
    if not data.is_dir():
        raise DataError(f"the dataset folder {data} does not exist ({named}); set ORBIT_DATA to a dataset folder")
    for path in (db_path(data), jsonl_path(data)):
        try:
            statefiles.check_regular(path)  # a FIFO or a device: named, never waited on
        except FileNotFoundError:
            pass
        except statefiles.RefusedFile as exc:
            raise DataError(str(exc)) from None
    sources = [path for path in (db_path(data), jsonl_path(data)) if path.is_file()]
    if not sources:
        raise DataError(f"the dataset folder {data} has neither issues/orbit.db nor issues/issues.jsonl ({named})")
    if not any(os.access(path, os.R_OK) for path in sources):
        raise DataError(f"the dataset in {data} cannot be read: permission denied ({named})")


def _read_meta(db: Path) -> dict[str, str]:
    try:
        statefiles.check_regular(db)
    except OSError as exc:  # as SQLite would fail on it, for the callers that handle SQLite's errors
        raise sqlite3.DatabaseError(str(exc)) from None
    conn = sqlite3.connect(f"{db.resolve().as_uri()}?mode=ro", uri=True, timeout=BUSY_WAIT_S)
    try:
        (version,) = conn.execute("PRAGMA user_version").fetchone()
        meta = {str(key): str(value) for key, value in conn.execute("SELECT key, value FROM meta")}
    finally:
        conn.close()
    return meta | {"user_version": str(version)}


def stored_digest(db: Path) -> str | None:
    """The SHA-256 of the JSONL a db was built from, or None when it is missing or unreadable."""
    if not db.is_file():
        return None
    try:
        return _read_meta(db).get("jsonl_sha256")
    except sqlite3.Error:
        return None


def db_freshness(db: Path, jsonl: Path, home: Path) -> bool | None:
    """Whether `db` was built from `jsonl` as it is now (O(1) unless only its mtime moved); None when busy."""
    return _freshness(db, jsonl, jsonl.stat(), home)


def _freshness(db: Path, jsonl: Path, stat: os.stat_result, home: Path) -> bool | None:
    """Whether the db was built from this JSONL; None when another process holds it locked."""
    if not db.is_file():
        return False
    try:
        meta = _read_meta(db)
    except sqlite3.Error as exc:
        return None if is_busy(exc) else False
    if meta["user_version"] != str(SCHEMA_VERSION) or meta.get("jsonl_size") != str(stat.st_size):
        return False
    if meta.get("jsonl_mtime_ns") == str(stat.st_mtime_ns):
        return True
    # Same size, other mtime (a checkout, a copy, a `touch`): the content decides, hashed once.
    return _same_content(jsonl, stat, meta.get("jsonl_sha256", ""), home)


def _same_content(jsonl: Path, stat: os.stat_result, digest: str, home: Path) -> bool:
    remembered = _load_verified(home)
    key = str(jsonl.resolve())
    if remembered is not None and remembered.get(key) == [stat.st_size, stat.st_mtime_ns, digest]:
        return True
    try:
        same = file_sha256(jsonl) == digest
    except OSError:
        return False
    if same and remembered is not None:
        _save_verified(home, {**remembered, key: [stat.st_size, stat.st_mtime_ns, digest]})
    return same


def _load_verified(home: Path) -> dict[str, object] | None:
    """What was verified before; None when the file is one Atlas will neither read nor replace (a
    link, a FIFO, a device, too large: a cloned state folder's), said once in a warning."""
    try:
        raw = statefiles.read_bytes(home / VERIFIED_FILE, limit=VERIFIED_LIMIT)
    except statefiles.RefusedFile as exc:
        warn(f"{exc}; the dataset is checked without it")
        return None
    except OSError:
        return {}
    try:
        loaded = json.loads((raw or b"{}").decode("utf-8"))
    except (ValueError, RecursionError):
        return {}
    return loaded if isinstance(loaded, dict) else {}


def _save_verified(home: Path, verified: dict[str, object]) -> None:
    """Best effort, atomically (a temp file renamed over the old one, never a write through a link)."""
    with contextlib.suppress(OSError):
        statefiles.replace_file(home / VERIFIED_FILE, json.dumps(verified).encode("utf-8"))


def _home_copy(home: Path, jsonl: Path) -> Path:
    """Where the state folder keeps the db of a JSONL whose own folder cannot take one."""
    return home / f"orbit-{hashlib.sha256(str(jsonl.resolve()).encode()).hexdigest()[:16]}.db"


class ShownProgress(Protocol):
    """A `Progress` a person sees (`atlas.ui.build_progress.BuildProgress`): a context that takes it
    down however the build ends, with the stage it last showed and the stream it shows it on."""

    stage: str
    stream: IO[str]

    def __call__(self, done: int, total: int, stage: str) -> None: ...

    def __enter__(self) -> object: ...

    def __exit__(self, *exc: object) -> None: ...


def ready_dataset(data: Path, home: Path, progress: ShownProgress) -> Project:
    """A readable dataset (`require_dataset`), its issues db built now when missing or stale (in O(1)
    when fresh), shown by `progress`: before any tool runs, never under a tool call's deadline. The
    project it holds, for the session to tell every question without reading the folder again.

    A db that cannot be built is not fatal here: the issue tools report it to the model, which can
    still answer from the docs.
    """
    require_dataset(data)
    with progress:
        try:
            ensure_db(data, home, progress)
        except DataError as exc:
            if progress.stage:
                write_line(f"atlas: the issues db was not built: {exc}", file=progress.stream, flush=True)
            progress.stage = ""  # the tools say why to the model
    return project_of(data)


def ensure_db(data: Path, home: Path, progress: Progress | None = None) -> Path:
    """A db built from the data folder's current JSONL, building one only when needed."""
    jsonl, db = jsonl_path(data), db_path(data)
    try:
        stat = jsonl.stat()
    except FileNotFoundError:
        if db.is_file():
            return db  # a db shipped alone is taken as it is
        raise DataError(f"no dataset at {data} (expected issues/issues.jsonl or issues/orbit.db)") from None
    except OSError as exc:
        raise DataError(f"cannot read {jsonl}: {exc}") from None
    fresh = _freshness(db, jsonl, stat, home)
    if fresh:
        return db
    cached = _home_copy(home, jsonl)
    if _freshness(cached, jsonl, stat, home):
        return cached
    # A db another process holds locked is not replaced under it: the state folder gets the build.
    if fresh is False and os.access(db.parent, os.W_OK) and (not db.exists() or os.access(db, os.W_OK)):
        try:
            return _build_once(jsonl, db, home, progress)
        except (OSError, sqlite3.Error):
            pass  # fall back to the state folder (a read-only or full data folder)
    try:
        return _build_once(jsonl, cached, home, progress)
    except (OSError, sqlite3.Error) as exc:
        raise DataError(f"cannot build the issues db from {jsonl}: {exc}") from None


def _build_once(jsonl: Path, target: Path, home: Path, progress: Progress | None) -> Path:
    """Build `target` unless another process, holding the lock first, just built it."""
    target.parent.mkdir(parents=True, exist_ok=True)
    with _folder_lock(target.parent, progress):
        stat = jsonl.stat()
        if _freshness(target, jsonl, stat, home):
            return target
        return build_db(jsonl, target, progress)


@contextlib.contextmanager
def _folder_lock(folder: Path, progress: Progress | None) -> Iterator[None]:
    """An exclusive lock on the folder itself, released by the kernel however the process ends.

    A lock on the folder (not on a lock file, as filelock would take) leaves nothing behind in a
    data folder that may be a git checkout, and works in a read-only folder too.
    """
    fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    try:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            if progress is not None:
                progress(0, 0, "waiting for another process to finish building it")
            _wait_for_lock(fd, folder)
        yield
    finally:
        os.close(fd)  # closing the descriptor releases the lock


def _wait_for_lock(fd: int, folder: Path) -> None:
    give_up = time.monotonic() + LOCK_WAIT_S
    while True:
        time.sleep(0.05)
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return
        except BlockingIOError:
            if time.monotonic() > give_up:
                raise DataError(
                    f"another process has been building the issues db in {folder} for {LOCK_WAIT_S:.0f} s"
                ) from None


def main(argv: list[str]) -> int:
    from atlas.foundation.config import bundled_data_dir

    data = Path(argv[0]) if argv else bundled_data_dir()
    try:
        target = build_db(jsonl_path(data), db_path(data))
    except DataError as exc:
        write_line(f"error: {exc}", err=True)
        return 1
    write_line(f"built {target} from {jsonl_path(data)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
