"""The call log's SQLite file: one connection, write transactions that wait their turn, reads that raise one error.

Writes never raise: a log that cannot be written (read-only folder, full disk, corrupt file)
costs one warning on stderr, and the answer still comes. Several processes may write at once
(a chat and an `ask`): WAL, a busy timeout, `BEGIN IMMEDIATE` and a short retry keep them from
meeting "database is locked". Reads raise `CallLogError`, shown as one line.
"""

from __future__ import annotations

import os
import random
import sqlite3
import threading
import time
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager, suppress
from pathlib import Path
from typing import Any, TypeVar

from atlas.calllog.schema import migrate
from atlas.foundation.errors import AtlasError, is_busy
from atlas.foundation.notices import warn
from atlas.foundation.sanitize import clean_line
from atlas.foundation.statefiles import connect_sqlite

T = TypeVar("T")
_JITTER = random.Random()
"""The retries' own generator: never the process's global `random` state, which others may be drawing from."""

FILENAME = "log.db"
BUSY_TIMEOUT_MS = 5000
WRITE_ATTEMPTS = 4
QUICK_BUSY_S = 0.5


class CallLogError(AtlasError):
    """The call log cannot be read."""


class Store:
    """One SQLite connection, opened on first use and reused for every write and query."""

    def __init__(self, path: Path | str, *, busy_timeout_s: float = BUSY_TIMEOUT_MS / 1000) -> None:
        self.path = Path(path)
        self.busy_timeout_s = busy_timeout_s
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self._warned = False

    # -- connection and schema ------------------------------------------------------------

    def _connect(self) -> sqlite3.Connection:
        if self._conn is not None:
            return self._conn
        self.path.parent.mkdir(parents=True, exist_ok=True)
        # Autocommit mode: transactions are opened explicitly with BEGIN IMMEDIATE, so a writer
        # takes the lock up front and waits (busy_timeout) instead of failing on upgrade.
        # Through `statefiles`: never a database, or a -wal/-shm/-journal file, that a link points to.
        conn = connect_sqlite(self.path, timeout=self.busy_timeout_s, isolation_level=None, check_same_thread=False)
        try:
            conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout_s * 1000)}")
            self._retry(lambda: conn.execute("PRAGMA journal_mode = WAL").fetchone())
            conn.execute("PRAGMA synchronous = NORMAL")
            self._retry(lambda: migrate(conn))
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        return conn

    def _retry(self, action: Callable[[], T]) -> T:
        """Retry a busy error that came back at once (SQLite skips the busy handler in some races);
        one that already waited out the busy timeout is not retried, so a write never blocks long."""
        for attempt in range(1, WRITE_ATTEMPTS + 1):
            started = time.monotonic()
            try:
                return action()
            except sqlite3.OperationalError as exc:
                waited = time.monotonic() - started >= min(QUICK_BUSY_S, self.busy_timeout_s / 2)
                if not is_busy(exc) or waited or attempt == WRITE_ATTEMPTS:
                    raise
                time.sleep(_JITTER.uniform(0.01, 0.05) * attempt)
        raise AssertionError("unreachable")

    @contextmanager
    def _write(self) -> Iterator[sqlite3.Connection]:
        conn = self._connect()
        self._retry(lambda: conn.execute("BEGIN IMMEDIATE"))
        try:
            yield conn
            # Inside the try: a COMMIT that fails (full disk) may leave the transaction open, holding
            # the write lock against every other writer and failing each later BEGIN here.
            conn.execute("COMMIT")
        except BaseException:
            with suppress(sqlite3.Error):  # keep the original error, not the failed rollback's
                conn.execute("ROLLBACK")
            raise

    def _write_safely(self, sql: str, rows: Sequence[Sequence[Any]]) -> None:
        # Lone surrogates (a model's unpaired "\ud83d" escape) have no UTF-8 form: kept as that text.
        storable = [
            [p.encode("utf-8", "backslashreplace").decode("utf-8") if isinstance(p, str) else p for p in params]
            for params in rows
        ]
        with self._lock:
            try:
                with self._write() as conn:
                    for params in storable:  # one transaction: a batch costs one commit
                        conn.execute(sql, params)
            except Exception as exc:  # a log that cannot be written must never cost the answer
                self._warn_once(exc)

    def _warn_once(self, exc: BaseException) -> None:
        if self._warned:
            return
        self._warned = True
        where, why = clean_line(self.path), clean_line(exc)
        warn(f"the call log {where} cannot be written ({why}); calls are not logged")

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    def _query(self, sql: str, params: Sequence[Any] = ()) -> list[sqlite3.Row]:
        if self._conn is None and not os.path.lexists(self.path):
            return []  # nothing logged yet; do not create a file just to read it
        with self._lock:
            try:
                conn = self._connect()
                cursor = conn.execute(sql, params)
                cursor.row_factory = sqlite3.Row
                return list(cursor.fetchall())
            except (sqlite3.Error, OSError) as exc:
                raise CallLogError(f"the call log {self.path} cannot be read: {exc}") from None
