"""The tracker journal in the shared database: the same check-and-record as the local file, for a team.

`locked()` is one transaction holding a transaction-level advisory lock: every process's check (who
commented, how much a rule has used) and its record are one step, on every machine. A record's
(dataset, key, action) is unique, so even a write outside the lock cannot be recorded twice. A named
lock (`issue_lock`: an issue's, or a rule's run) is a session-level advisory lock, held across a
network call.
"""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import psycopg
from psycopg.types.json import Jsonb

from atlas.foundation.errors import PermanentToolError
from atlas.state.postgres.database import SharedDatabase

JOURNAL_LOCK = 0x61746C6173_02
"""The journal's advisory lock (`atlas`, then 2)."""
RECORD_COLUMNS = "SELECT record FROM atlas_tracker_actions"


def _lock_id(name: str) -> int:
    """A signed 64-bit advisory lock id for one issue's name."""
    return int.from_bytes(hashlib.sha256(f"atlas-issue:{name}".encode()).digest()[:8], "big", signed=True)


class PgJournal:
    """`atlas.tracker.store.Journal` on PostgreSQL.

    A thread keeps one connection for as long as it holds any lock (an issue's, a rule's, the
    journal's transaction): locks taken inside one another share it, so a write holding three
    locks costs the pool one connection, and the pool cannot run dry of connections its own
    lock holders wait for."""

    skipped = 0

    def __init__(self, database: SharedDatabase) -> None:
        self.database = database
        self.where = database.shown
        self._held = threading.local()

    @contextmanager
    def _conn(self) -> Iterator[psycopg.Connection[Any]]:
        """The connection this thread holds (under a lock), else one of the pool for as long as this lasts."""
        held: psycopg.Connection[Any] | None = getattr(self._held, "conn", None)
        if held is not None:
            yield held
            return
        with self.database.connection() as conn:
            self._held.conn = conn
            try:
                yield conn
            finally:
                self._held.conn = None

    def read(self) -> list[dict[str, Any]]:
        with self._conn() as conn:
            rows = conn.execute(f"{RECORD_COLUMNS} ORDER BY id").fetchall()
        return [row[0] for row in rows if isinstance(row[0], dict)]

    def with_key(self, key: str) -> list[dict[str, Any]]:
        with self._conn() as conn:
            rows = conn.execute(f"{RECORD_COLUMNS} WHERE key = %s ORDER BY id", (key,)).fetchall()
        return [row[0] for row in rows if isinstance(row[0], dict)]

    @contextmanager
    def locked(self) -> Iterator[None]:
        if getattr(self._held, "in_transaction", False):
            yield  # already held by this thread: one transaction
            return
        with self._conn() as conn, conn.transaction():
            conn.execute("SELECT pg_advisory_xact_lock(%s)", (JOURNAL_LOCK,))
            self._held.in_transaction = True
            try:
                yield
            finally:
                self._held.in_transaction = False

    def append(self, record: dict[str, Any]) -> None:
        if not getattr(self._held, "in_transaction", False):
            raise PermanentToolError("a journal record is written only under the journal's lock; nothing was written")
        with self._conn() as conn:
            conn.execute(
                "INSERT INTO atlas_tracker_actions (dataset, key, action, issue_id, person, machine, record)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT (dataset, key, action) DO NOTHING",
                (
                    str(record.get("dataset", "")),
                    str(record.get("key", "")),
                    str(record["action"]),
                    int(record["issue_id"]),
                    str(record.get("person", "")),
                    str(record.get("machine", "")),
                    Jsonb(record),
                ),
            )

    @contextmanager
    def issue_lock(self, name: str) -> Iterator[None]:
        with self._conn() as conn:
            conn.execute("SELECT pg_advisory_lock(%s)", (_lock_id(name),))
            try:
                yield
            finally:
                conn.execute("SELECT pg_advisory_unlock(%s)", (_lock_id(name),))
