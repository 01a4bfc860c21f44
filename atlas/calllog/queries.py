"""Reading the call log: the latest calls, per-tool statistics, sessions, and a session as a replay script."""

from __future__ import annotations

import json
import os
import sqlite3
from collections.abc import Iterable
from typing import Any, TypedDict, Unpack

from atlas.calllog.store import CallLogError, Store
from atlas.foundation.errors import ErrorKind


class CallFilters(TypedDict, total=False):
    """`atlas log`'s filters, the same for a local log and the team's: each one left out matches all."""

    tool: str | None
    kind: ErrorKind | None
    session: str | None
    since: float | None
    errors_only: bool


class Queries(Store):
    """The read side of `CallLog`; every method raises `CallLogError` when the file cannot be read."""

    def calls(self, limit: int | None = 20, **filters: Unpack[CallFilters]) -> list[dict[str, Any]]:
        """The latest calls matching the filters, newest last, in the `atlas log --json` shape."""
        where, params = _filters(**filters)
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
            result.append(tool_stats(name, percentiles, kinds, retries))
        return result

    def _stats_from_indexes(self, tool: str | None) -> list[dict[str, Any]]:
        """`stats()` of the whole log (or one tool) from its summary: the same cost at 1M calls as at 10k."""
        from atlas.calllog import summary as log_summary

        if self._conn is None and not os.path.lexists(self.path):
            return []  # nothing logged yet; do not create a file just to read it
        with self._lock:
            try:
                with self._write() as conn:  # one transaction: the summary and the index agree
                    log_summary.refresh(conn)
                    result = []
                    for summary in log_summary.summaries(conn, tool):
                        ranks = [_rank(summary.calls, pct) for pct in (50, 95, 100)]
                        percentiles = [log_summary.ms_at(conn, summary, rank) for rank in ranks]
                        result.append(tool_stats(summary.name, percentiles, summary.kinds, summary.retries))
                    return result
            except (sqlite3.Error, OSError) as exc:
                raise CallLogError(f"the call log {self.path} cannot be read: {exc}") from None

    def calls_per_question(
        self, tool: str | None = None, session: str | None = None, since: float | None = None
    ) -> dict[str, Any]:
        """Calls per question: `questions`, `p50`, `p95`, `max`, and the same for each source (`sources`)."""
        from atlas.calllog import per_question

        if tool is not None or session is not None or since is not None:
            where, params = _filters(tool=tool, session=session, since=since)
            sql = f"SELECT session, turn, {per_question.SOURCE} AS source FROM calls{where}"
            return per_question.from_rows(self._query(sql, params))
        if self._conn is None and not os.path.lexists(self.path):
            return per_question.from_rows([])
        with self._lock:
            try:
                with self._write() as conn:
                    per_question.refresh(conn)
                    return per_question.from_summary(conn)
            except (sqlite3.Error, OSError) as exc:
                raise CallLogError(f"the call log {self.path} cannot be read: {exc}") from None

    def export_script(self, session: str) -> dict[str, Any]:
        """A logged session as a replay script: each round's calls in request order, then the answer."""
        calls = self._query(
            "SELECT turn, round, name, arguments FROM calls WHERE session = ? ORDER BY turn, round, position, id",
            (session,),
        )
        answers = self._query("SELECT turn, answer FROM turns WHERE session = ? ORDER BY turn, id", (session,))
        if not calls and not answers:
            raise CallLogError(f"no session {session!r} in the call log {self.path}")
        return replay_script(calls, answers)

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
    kind: ErrorKind | None = None,
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


def replay_script(calls: Iterable[Any], answers: Iterable[Any]) -> dict[str, Any]:
    """A session's calls (turn, round, name, arguments; in request order) and answers (turn, answer) as
    a replay script: each round's calls, then the turn's answer."""
    rounds: dict[int, dict[int, list[dict[str, Any]]]] = {}
    for row in calls:
        batch = rounds.setdefault(row["turn"], {}).setdefault(row["round"], [])
        batch.append({"name": row["name"], "arguments": parse_arguments(row["arguments"])})
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


def parse_arguments(text: str) -> Any:
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
        "arguments": parse_arguments(row["arguments"]),
        "kind": logged_kind(row["kind"]),
        "ms": row["ms"],
        "attempts": row["attempts"],
        "message": row["message"],
        "approved": None if row["approved"] is None else bool(row["approved"]),
        "leaked_threads": row["leaked_threads"],
        "trace_id": row["trace_id"],
        "span_id": row["span_id"],
        "decided_by": row["decided_by"],
    }


def logged_kind(text: str) -> ErrorKind:
    """A kind read back from the file; text that names no kind (a foreign or damaged row) reads as unknown."""
    try:
        return ErrorKind(text)
    except ValueError:
        return ErrorKind.UNKNOWN


def _rank(count: int, pct: float) -> int:
    """The nearest rank (1-based) of the `pct` percentile among `count` sorted values."""
    return max(1, int(-(-count * pct // 100)))


def tool_stats(name: str, percentiles: list[float], kinds: dict[str, int], retries: int) -> dict[str, Any]:
    p50, p95, most = percentiles
    by_kind: dict[ErrorKind, int] = {}
    for text, count in kinds.items():
        kind = logged_kind(text)
        by_kind[kind] = by_kind.get(kind, 0) + count
    return {
        "name": name,
        "calls": sum(by_kind.values()),
        "p50_ms": p50,
        "p95_ms": p95,
        "max_ms": most,
        "kinds": dict(sorted(by_kind.items())),
        "retries": retries,
        "denials": by_kind.get(ErrorKind.DENIED, 0),
    }
