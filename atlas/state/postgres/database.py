"""The shared database: a pool of connections opened once per process, checked at start.

Opening it connects and brings its tables up to date; when that fails (the server is down, the
password is wrong, the database does not exist) the command stops with one line naming the database
without its credentials, before anything is written: Atlas never falls back to local files, which
would split the team's truth in two. Once a connection is lost mid-run, every later write of the
process fails at once as `unavailable` (the executor's kind), and what was committed before stays;
a process that runs on (`atlas mcp serve`, a chat) looks again after `LOST_RECHECK_S`, and goes on
once the database is back.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any, NoReturn

import psycopg
from psycopg_pool import ConnectionPool, PoolTimeout

from atlas.foundation.errors import AtlasError, TransientToolError, UnavailableToolError
from atlas.foundation.redact import redact_secrets
from atlas.foundation.sanitize import clean_line
from atlas.state.postgres.migrations import migrate
from atlas.state.settings import shown_url, url_credentials

CONNECT_TIMEOUT_S = 3
"""How long one connection attempt may take before the database counts as unreachable."""
POOL_WAIT_S = 5.0
"""How long a write waits for a free connection of the pool (or a new one) before it fails."""
LOST_RECHECK_S = 30.0
"""How long a lost database is taken as still lost (every write failing at once) before it is tried again."""
POOL_SIZE = 8
"""The executor runs a few side effects at once; each holds a connection for one short transaction (two
on GitHub: the issue's lock across the network call, and the journal's)."""

_opened: dict[str, SharedDatabase] = {}
_opened_lock = threading.Lock()


class StateUnreachable(AtlasError):
    """The shared database could not be opened at start: nothing was written anywhere."""


class SharedDatabase:
    """One database URL's pool, for the whole process."""

    def __init__(self, url: str) -> None:
        self.url = url
        self.shown = clean_line(shown_url(url))
        self.lost: str | None = None
        """Why the connection was lost mid-run: until `LOST_RECHECK_S` later, every use fails at once."""
        self._lost_at = 0.0
        self._secrets = url_credentials(url)
        self.pool = ConnectionPool(
            url,
            min_size=1,
            max_size=POOL_SIZE,
            kwargs={"connect_timeout": CONNECT_TIMEOUT_S, "application_name": "atlas", "autocommit": True},
            timeout=POOL_WAIT_S,
            reconnect_timeout=POOL_WAIT_S,
            open=False,
            name="atlas-state",
        )

    def redacted(self, exc: BaseException) -> str:
        """An error's text with no credential in it, on one line."""
        text = str(exc).strip().splitlines()[0] if str(exc).strip() else type(exc).__name__
        return clean_line(redact_secrets(text, self._secrets))

    def open(self) -> None:
        """Connect and migrate now; a StateUnreachable with one line when it cannot."""
        try:
            # A first connection made here, not by the pool's thread, so its failure is ours to tell.
            with psycopg.connect(self.url, connect_timeout=CONNECT_TIMEOUT_S, autocommit=True) as conn:
                migrate(conn)
        except psycopg.Error as exc:
            raise StateUnreachable(self._why(exc)) from None
        self.pool.open(wait=False)

    def _why(self, exc: psycopg.Error) -> str:
        reason = self.redacted(exc).removeprefix("connection failed: ")
        hint = ""
        if "does not exist" in reason and "database" in reason:
            hint = " (create it first, e.g. `createdb`: Atlas creates its tables, not the database)"
        return f"the shared state {self.shown} cannot be used: {reason}{hint}; nothing was written"

    @contextmanager
    def connection(self) -> Iterator[psycopg.Connection[Any]]:
        """A connection of the pool; a lost database is an UnavailableToolError, now and for the rest of the run."""
        if self.lost is not None:
            self._recheck()
        try:
            with self.pool.connection() as conn:
                yield conn
        except PoolTimeout as exc:
            if self._reachable():  # every connection busy, the server fine: try again later
                raise TransientToolError(f"the shared state {self.shown} is busy; try again") from None
            self._lose(exc)
        except (psycopg.OperationalError, psycopg.InterfaceError) as exc:
            self._lose(exc)

    def _recheck(self) -> None:
        """Still lost: fail at once; once `LOST_RECHECK_S` has passed, try the server, and drop the
        pool's connections that died with it when it is back."""
        assert self.lost is not None
        if time.monotonic() - self._lost_at < LOST_RECHECK_S:
            raise UnavailableToolError(self.lost)
        if not self._reachable():
            self._lost_at = time.monotonic()
            raise UnavailableToolError(self.lost)
        self.pool.check()
        self.lost = None

    def _reachable(self) -> bool:
        try:
            with psycopg.connect(self.url, connect_timeout=CONNECT_TIMEOUT_S):
                return True
        except psycopg.Error:
            return False

    def _lose(self, exc: BaseException) -> NoReturn:
        self.lost = f"the shared state {self.shown} is unreachable ({self.redacted(exc)}); nothing was written"
        self._lost_at = time.monotonic()
        raise UnavailableToolError(self.lost) from None

    def close(self) -> None:
        self.pool.close(timeout=1.0)


def shared_database(url: str) -> SharedDatabase:
    """The process's one pool for `url`, opened (connected, migrated) on first use."""
    with _opened_lock:
        database = _opened.get(url)
        if database is None:
            database = SharedDatabase(url)
            database.open()
            _opened[url] = database
        return database


def forget_databases() -> None:
    """Close every pool this process opened (for a process that runs many commands, and at exit)."""
    with _opened_lock:
        opened = list(_opened.values())
        _opened.clear()
    for database in opened:
        database.close()
