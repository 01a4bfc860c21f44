"""The call log: every tool call and every answered question, in SQLite at `$ATLAS_HOME/log.db`.

Writes never raise: a log that cannot be written (read-only folder, full disk, corrupt file)
costs one warning on stderr, and the answer still comes. Several processes may write at once
(a chat and an `ask`): WAL, a busy timeout, `BEGIN IMMEDIATE` and a short retry keep them from
meeting "database is locked". Reads (`atlas log`) raise `CallLogError`, shown as one line.
"""

from __future__ import annotations

import json
import os
import random
import sqlite3
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from contextlib import contextmanager, suppress
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, TypeVar

from atlas.errors import AtlasError, is_busy, printable
from atlas.statefiles import connect_sqlite

T = TypeVar("T")

FILENAME = "log.db"
BUSY_TIMEOUT_MS = 5000
WRITE_ATTEMPTS = 4
QUICK_BUSY_S = 0.5

# Each entry moves the schema one `user_version` up; append, never edit.
MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE calls (
        id INTEGER PRIMARY KEY,
        ts REAL NOT NULL,
        session TEXT NOT NULL,
        turn INTEGER NOT NULL,
        round INTEGER NOT NULL,
        position INTEGER NOT NULL DEFAULT 0,
        call_id TEXT NOT NULL,
        name TEXT NOT NULL,
        arguments TEXT NOT NULL,
        kind TEXT NOT NULL,
        ms REAL NOT NULL,
        attempts INTEGER NOT NULL,
        message TEXT,
        approved INTEGER,
        leaked_threads INTEGER NOT NULL DEFAULT 0
    );
    CREATE INDEX calls_ts ON calls (ts);
    CREATE INDEX calls_name_kind ON calls (name, kind);
    CREATE INDEX calls_session ON calls (session, turn, round, position);
    CREATE TABLE turns (
        id INTEGER PRIMARY KEY,
        ts REAL NOT NULL,
        session TEXT NOT NULL,
        turn INTEGER NOT NULL,
        question TEXT NOT NULL,
        answer TEXT NOT NULL,
        model TEXT NOT NULL,
        rounds INTEGER NOT NULL,
        input_tokens INTEGER NOT NULL,
        output_tokens INTEGER NOT NULL,
        cost_usd REAL NOT NULL,
        ms REAL NOT NULL
    );
    CREATE INDEX turns_session ON turns (session, turn);
    """,
    # For `stats()` over the whole log: percentiles by stepping into (name, ms), retries from the few retried calls.
    """
    CREATE INDEX calls_name_ms ON calls (name, ms);
    CREATE INDEX calls_retried ON calls (name, attempts) WHERE attempts > 1;
    """,
)


class CallLogError(AtlasError):
    """The call log cannot be read."""


@dataclass(frozen=True)
class CallRecord:
    """How one tool call ended; `arguments` is the parsed object, or the raw text when it was not one."""

    round: int
    call_id: str
    name: str
    arguments: dict[str, Any] | str
    kind: str
    ms: float
    attempts: int
    message: str | None = None
    approved: bool | None = None
    leaked_threads: int = 0
    position: int = 0
    """Where the call stood in its model response (request order)."""
    ts: float = field(default_factory=time.time)


class CallLog:
    """One SQLite connection, opened on first use and reused for every write and query."""

    def __init__(self, path: Path | str, *, busy_timeout_s: float = BUSY_TIMEOUT_MS / 1000) -> None:
        self.path = Path(path)
        self.busy_timeout_s = busy_timeout_s
        self._conn: sqlite3.Connection | None = None
        self._lock = threading.Lock()
        self._warned = False

    @classmethod
    def at_home(cls, home: Path | str) -> CallLog:
        return cls(Path(home) / FILENAME)

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
            self._retry(lambda: self._migrate(conn))
        except BaseException:
            conn.close()
            raise
        self._conn = conn
        return conn

    @staticmethod
    def _migrate(conn: sqlite3.Connection) -> None:
        if conn.execute("PRAGMA user_version").fetchone()[0] >= len(MIGRATIONS):
            return
        conn.execute("BEGIN IMMEDIATE")
        try:
            # Read again under the write lock: another process may have migrated meanwhile.
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
                for statement in script.split(";"):
                    if statement.strip():
                        conn.execute(statement)
                conn.execute(f"PRAGMA user_version = {number}")
            conn.execute("COMMIT")
        except BaseException:
            with suppress(sqlite3.Error):
                conn.execute("ROLLBACK")
            raise

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
                time.sleep(random.uniform(0.01, 0.05) * attempt)
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
        where, why = printable(self.path), printable(exc)
        print(f"atlas: warning: the call log {where} cannot be written ({why}); calls are not logged", file=sys.stderr)

    def close(self) -> None:
        with self._lock:
            if self._conn is not None:
                self._conn.close()
                self._conn = None

    # -- writes ---------------------------------------------------------------------------

    def record_call(self, record: CallRecord, *, session: str, turn: int) -> None:
        """Log one finished call; never raises."""
        self.record_calls([record], session=session, turn=turn)

    def record_calls(self, records: Sequence[CallRecord], *, session: str, turn: int) -> None:
        """Log finished calls in one transaction (a batch of thousands costs one commit); never raises."""
        if not records:
            return
        self._write_safely(
            "INSERT INTO calls (ts, session, turn, round, position, call_id, name, arguments, kind, ms, attempts,"
            " message, approved, leaked_threads) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [_call_row(record, session, turn) for record in records],
        )

    def record_turn(
        self,
        *,
        session: str,
        turn: int,
        question: str,
        answer: str,
        model: str,
        rounds: int,
        input_tokens: int = 0,
        output_tokens: int = 0,
        cost_usd: float = 0.0,
        ms: float = 0.0,
        ts: float | None = None,
    ) -> None:
        """Log one answered question; never raises."""
        self._write_safely(
            "INSERT INTO turns (ts, session, turn, question, answer, model, rounds, input_tokens, output_tokens,"
            " cost_usd, ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    time.time() if ts is None else ts,
                    session,
                    turn,
                    question,
                    answer,
                    model,
                    rounds,
                    input_tokens,
                    output_tokens,
                    cost_usd,
                    ms,
                )
            ],
        )

    # -- reads ----------------------------------------------------------------------------

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

    def calls(
        self,
        limit: int | None = 20,
        tool: str | None = None,
        kind: str | None = None,
        session: str | None = None,
        since: float | None = None,
        errors_only: bool = False,
    ) -> list[dict[str, Any]]:
        """The latest calls matching the filters, newest last, in the `atlas log --json` shape."""
        where, params = _filters(tool=tool, kind=kind, session=session, since=since, errors_only=errors_only)
        sql = f"SELECT * FROM calls{where} ORDER BY id DESC"
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [_call_dict(row) for row in reversed(self._query(sql, params))]

    def questions(self, sessions: Iterable[str]) -> dict[tuple[str, int], str]:
        """The question of every answered turn of these sessions, by (session, turn)."""
        wanted = sorted(set(sessions))
        found: dict[tuple[str, int], str] = {}
        for start in range(0, len(wanted), _IN_CHUNK):
            chunk = wanted[start : start + _IN_CHUNK]
            marks = ",".join("?" * len(chunk))
            rows = self._query(f"SELECT session, turn, question FROM turns WHERE session IN ({marks})", chunk)
            found.update({(row["session"], row["turn"]): row["question"] for row in rows})
        return found

    def stats(
        self, tool: str | None = None, session: str | None = None, since: float | None = None
    ) -> list[dict[str, Any]]:
        """Per tool: calls, p50/p95/max ms, counts by kind, retries (extra attempts) and denials."""
        if session is None and since is None:
            return self._stats_from_indexes(tool)
        where, params = _filters(tool=tool, session=session, since=since)
        rows = self._query(f"SELECT name, kind, ms, attempts FROM calls{where} ORDER BY name, id", params)
        by_tool: dict[str, list[sqlite3.Row]] = {}
        for row in rows:
            by_tool.setdefault(row["name"], []).append(row)
        result = []
        for name, tool_rows in by_tool.items():
            durations = sorted(float(row["ms"]) for row in tool_rows)
            kinds: dict[str, int] = {}
            for row in tool_rows:
                kinds[row["kind"]] = kinds.get(row["kind"], 0) + 1
            percentiles = [durations[_rank(len(durations), pct) - 1] for pct in (50, 95, 100)]
            retries = sum(max(0, int(row["attempts"]) - 1) for row in tool_rows)
            result.append(_tool_stats(name, percentiles, kinds, retries))
        return result

    def _stats_from_indexes(self, tool: str | None) -> list[dict[str, Any]]:
        """`stats()` of the whole log (or one tool) without loading its rows: 100,000 calls in tens of ms."""
        where, params = _filters(tool=tool)
        also = " AND " if where else " WHERE "
        counted = self._query(f"SELECT name, kind, COUNT(*) AS n FROM calls{where} GROUP BY name, kind", params)
        retried = self._query(
            f"SELECT name, SUM(attempts - 1) AS extra FROM calls{where}{also}attempts > 1 GROUP BY name", params
        )
        retries = {row["name"]: int(row["extra"]) for row in retried}
        by_tool: dict[str, dict[str, int]] = {}
        for row in counted:
            by_tool.setdefault(row["name"], {})[row["kind"]] = int(row["n"])
        result = []
        for name in sorted(by_tool):
            calls = sum(by_tool[name].values())
            percentiles = [self._ms_at(name, _rank(calls, pct), calls) for pct in (50, 95, 100)]
            result.append(_tool_stats(name, percentiles, by_tool[name], retries.get(name, 0)))
        return result

    def _ms_at(self, name: str, rank: int, count: int) -> float:
        """The `rank`-th smallest ms of a tool's `count` calls, stepping into (name, ms) from the nearer end.

        Calls are only ever appended, so a rank counted a moment ago is still inside the index.
        """
        if rank <= count - rank:
            sql, offset = "SELECT ms FROM calls WHERE name = ? ORDER BY ms LIMIT 1 OFFSET ?", rank - 1
        else:
            sql, offset = "SELECT ms FROM calls WHERE name = ? ORDER BY ms DESC LIMIT 1 OFFSET ?", count - rank
        return float(self._query(sql, (name, offset))[0]["ms"])

    def export_script(self, session: str) -> dict[str, Any]:
        """A logged session as a replay script: each round's calls in request order, then the answer."""
        calls = self._query(
            "SELECT turn, round, name, arguments FROM calls WHERE session = ? ORDER BY turn, round, position, id",
            (session,),
        )
        answers = self._query("SELECT turn, answer FROM turns WHERE session = ? ORDER BY turn, id", (session,))
        if not calls and not answers:
            raise CallLogError(f"no session {session!r} in the call log {self.path}")
        rounds: dict[int, dict[int, list[dict[str, Any]]]] = {}
        for row in calls:
            batch = rounds.setdefault(row["turn"], {}).setdefault(row["round"], [])
            batch.append({"name": row["name"], "arguments": _parse_arguments(row["arguments"])})
        texts: dict[int, str] = {}
        for row in answers:
            texts.setdefault(row["turn"], row["answer"])
        turns: list[dict[str, Any]] = []
        for turn in sorted(set(rounds) | set(texts)):
            for number in sorted(rounds.get(turn, {})):
                turns.append({"calls": rounds[turn][number]})
            if turn in texts:
                turns.append({"text": texts[turn]})
        return {"turns": turns}

    def sessions(self, limit: int | None = 20) -> list[dict[str, Any]]:
        """Sessions with calls or turns, most recent last: session, first_ts, last_ts, calls, turns."""
        sql = (
            "SELECT session, MIN(ts) AS first_ts, MAX(ts) AS last_ts, SUM(is_call) AS calls,"
            " SUM(1 - is_call) AS turns FROM (SELECT session, ts, 1 AS is_call FROM calls"
            " UNION ALL SELECT session, ts, 0 FROM turns) GROUP BY session ORDER BY last_ts DESC"
        )
        params: list[Any] = []
        if limit is not None:
            sql += " LIMIT ?"
            params.append(limit)
        return [dict(row) for row in reversed(self._query(sql, params))]

    def latest_session(self) -> str | None:
        """The session that logged something last, if any."""
        found = self.sessions(limit=1)
        return str(found[0]["session"]) if found else None


def _filters(
    *,
    tool: str | None = None,
    kind: str | None = None,
    session: str | None = None,
    since: float | None = None,
    errors_only: bool = False,
) -> tuple[str, list[Any]]:
    clauses: list[str] = []
    params: list[Any] = []
    for column, value in (("name", tool), ("kind", kind), ("session", session)):
        if value is not None:
            clauses.append(f"{column} = ?")
            params.append(value)
    if since is not None:
        clauses.append("ts >= ?")
        params.append(since)
    if errors_only:
        clauses.append("kind != 'ok'")
    return (" WHERE " + " AND ".join(clauses) if clauses else ""), params


def _call_row(record: CallRecord, session: str, turn: int) -> tuple[Any, ...]:
    arguments = record.arguments if isinstance(record.arguments, str) else json.dumps(record.arguments, default=str)
    return (
        record.ts,
        session,
        turn,
        record.round,
        record.position,
        record.call_id,
        record.name,
        arguments,
        record.kind,
        record.ms,
        record.attempts,
        record.message,
        None if record.approved is None else int(record.approved),
        record.leaked_threads,
    )


def _parse_arguments(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # broken, or nested too deeply to read: the raw text
        return text


_IN_CHUNK = 500
"""Sessions per `IN (...)` query: well under SQLite's limit on bound parameters."""


def _call_dict(row: sqlite3.Row) -> dict[str, Any]:
    return {
        "ts": row["ts"],
        "session": row["session"],
        "turn": row["turn"],
        "round": row["round"],
        "call_id": row["call_id"],
        "name": row["name"],
        "arguments": _parse_arguments(row["arguments"]),
        "kind": row["kind"],
        "ms": row["ms"],
        "attempts": row["attempts"],
        "message": row["message"],
        "approved": None if row["approved"] is None else bool(row["approved"]),
        "leaked_threads": row["leaked_threads"],
    }


def _rank(count: int, pct: float) -> int:
    """The nearest rank (1-based) of the `pct` percentile among `count` sorted values."""
    return max(1, int(-(-count * pct // 100)))


def _tool_stats(name: str, percentiles: list[float], kinds: dict[str, int], retries: int) -> dict[str, Any]:
    p50, p95, most = percentiles
    return {
        "name": name,
        "calls": sum(kinds.values()),
        "p50_ms": p50,
        "p95_ms": p95,
        "max_ms": most,
        "kinds": dict(sorted(kinds.items())),
        "retries": retries,
        "denials": kinds.get("denied", 0),
    }
