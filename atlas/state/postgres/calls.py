"""Reading the team's call log in the shared database: the latest calls, their questions, per-tool
statistics, calls per question and one session's calls in replay order, as `atlas log` shows them
from a local `log.db` (`atlas.calllog.queries`), each optionally one person's (`--mine`)."""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from atlas.state.postgres.database import SharedDatabase
from atlas.state.postgres.records import CALL_COLUMNS

SOURCE = "CASE WHEN strpos(name, '__') > 0 THEN 'mcp:' || split_part(name, '__', 1) ELSE 'atlas' END"
"""A call's source as `atlas.calllog.per_question` names it: `mcp:SERVER` for `SERVER__tool`, else `atlas`."""


def where(filters: dict[str, Any], person: str | None) -> tuple[str, list[Any]]:
    """`atlas log`'s filters (tool, kind, session, since, errors_only) and a person, as a WHERE clause."""
    conditions: list[str] = []
    params: list[Any] = []
    for column, value in (("name", filters.get("tool")), ("kind", filters.get("kind")),
                          ("session", filters.get("session")), ("person", person)):  # fmt: skip
        if value is not None:
            conditions.append(f"{column} = %s")
            params.append(str(value))
    if filters.get("since") is not None:
        conditions.append("ts >= %s")
        params.append(float(filters["since"]))
    if filters.get("errors_only"):
        conditions.append("kind <> 'ok'")
    return (f" WHERE {' AND '.join(conditions)}" if conditions else ""), params


def latest_calls(
    database: SharedDatabase, *, limit: int | None, filters: dict[str, Any], person: str | None = None
) -> list[dict[str, Any]]:
    """The latest calls matching `atlas log`'s filters, oldest first (of one person when named)."""
    clause, params = where(filters, person)
    sql = f"SELECT {', '.join(CALL_COLUMNS)} FROM atlas_calls{clause} ORDER BY ts DESC, id DESC"
    if limit is not None:
        sql += " LIMIT %s"
        params.append(limit)
    with database.connection() as conn:
        rows = conn.execute(sql, params).fetchall()
    return [dict(zip(CALL_COLUMNS, row, strict=True)) for row in reversed(rows)]


def questions(database: SharedDatabase, sessions: Iterable[str]) -> dict[tuple[str, int], str]:
    """The question of every answered turn of these sessions, by (session, turn)."""
    wanted = sorted(set(sessions))
    if not wanted:
        return {}
    with database.connection() as conn:
        rows = conn.execute(
            "SELECT session, turn, question FROM atlas_turns WHERE session = ANY(%s) ORDER BY id", (wanted,)
        ).fetchall()
    return {(str(session), int(turn)): str(question) for session, turn, question in rows}


def tool_stats(database: SharedDatabase, filters: dict[str, Any], person: str | None) -> list[dict[str, Any]]:
    """Per tool: calls, nearest-rank p50/p95 and max ms, counts by kind, retries (the raw parts of
    `atlas log --stats`)."""
    clause, params = where(filters, person)
    with database.connection() as conn:
        tools = conn.execute(
            "SELECT name, percentile_disc(0.5) WITHIN GROUP (ORDER BY ms),"
            " percentile_disc(0.95) WITHIN GROUP (ORDER BY ms), max(ms), sum(greatest(attempts - 1, 0))"
            f" FROM atlas_calls{clause} GROUP BY name ORDER BY name",
            params,
        ).fetchall()
        kinds = conn.execute(f"SELECT name, kind, count(*) FROM atlas_calls{clause} GROUP BY name, kind", params)
        by_tool: dict[str, dict[str, int]] = {}
        for name, kind, count in kinds.fetchall():
            by_tool.setdefault(str(name), {})[str(kind)] = int(count)
    return [
        {"name": str(name), "percentiles": [float(p50), float(p95), float(most)], "kinds": by_tool.get(str(name), {}),
         "retries": int(retries)}
        for name, p50, p95, most, retries in tools
    ]  # fmt: skip


def question_sources(database: SharedDatabase, filters: dict[str, Any], person: str | None) -> list[dict[str, Any]]:
    """One row (session, turn, source) per call: what calls per question are counted from."""
    clause, params = where(filters, person)
    with database.connection() as conn:
        rows = conn.execute(f"SELECT session, turn, {SOURCE} FROM atlas_calls{clause}", params).fetchall()
    return [{"session": session, "turn": turn, "source": source} for session, turn, source in rows]


def answered(database: SharedDatabase, person: str | None) -> list[tuple[str, int]]:
    """Every answered question (session, turn), of one person when named."""
    clause, params = where({}, person)
    with database.connection() as conn:
        rows = conn.execute(f"SELECT DISTINCT session, turn FROM atlas_turns{clause}", params).fetchall()
    return [(str(session), int(turn)) for session, turn in rows]


def session_script(database: SharedDatabase, session: str) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """One session's calls in request order (turn, round, name, arguments) and its answers (turn, answer)."""
    with database.connection() as conn:
        calls = conn.execute(
            "SELECT turn, round, name, arguments FROM atlas_calls WHERE session = %s"
            " ORDER BY turn, round, position, id",
            (session,),
        ).fetchall()
        answers = conn.execute(
            "SELECT turn, answer FROM atlas_turns WHERE session = %s ORDER BY turn, id", (session,)
        ).fetchall()
    return (
        [{"turn": turn, "round": number, "name": name, "arguments": args} for turn, number, name, args in calls],
        [{"turn": turn, "answer": answer} for turn, answer in answers],
    )
