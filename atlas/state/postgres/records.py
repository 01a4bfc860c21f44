"""The shared database's other records: applied plan items, each person's inbox mark, the call log."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from atlas.state.postgres.database import SharedDatabase


def applied(database: SharedDatabase, checksum: str) -> dict[int, str]:
    """Item number → when it was applied, for one plan, by anyone in the team."""
    with database.connection() as conn:
        rows = conn.execute("SELECT item, ts FROM atlas_applied_items WHERE plan = %s", (checksum,)).fetchall()
    return {int(item): str(ts) for item, ts in rows}


def record_applied(database: SharedDatabase, checksum: str, items: list[int], ts: str, who: dict[str, str]) -> None:
    with database.connection() as conn:
        conn.cursor().executemany(
            "INSERT INTO atlas_applied_items (plan, item, ts, person, machine) VALUES (%s, %s, %s, %s, %s)"
            " ON CONFLICT (plan, item) DO NOTHING",
            [(checksum, n, ts, who["person"], who["machine"]) for n in items],
        )


def last_seen(database: SharedDatabase, dataset: str, person: str) -> str | None:
    with database.connection() as conn:
        row = conn.execute(
            "SELECT newest FROM atlas_inbox_seen WHERE dataset = %s AND person = %s", (dataset, person)
        ).fetchone()
    return None if row is None else str(row[0])


def remember_seen(database: SharedDatabase, dataset: str, person: str, newest: str) -> None:
    with database.connection() as conn:
        conn.execute(
            "INSERT INTO atlas_inbox_seen (dataset, person, newest) VALUES (%s, %s, %s)"
            " ON CONFLICT (dataset, person) DO UPDATE SET newest = excluded.newest",
            (dataset, person, newest),
        )


CALL_COLUMNS = (
    "ts", "session", "turn", "call_id", "name", "arguments", "kind", "ms", "attempts", "message", "approved",
    "decided_by", "person", "machine",
)  # fmt: skip


def record_calls(database: SharedDatabase, rows: Sequence[dict[str, Any]]) -> None:
    """Finished calls, once each (a call pushed again is the same row)."""
    placeholders = ", ".join(["%s"] * len(CALL_COLUMNS))
    with database.connection() as conn:
        conn.cursor().executemany(
            f"INSERT INTO atlas_calls ({', '.join(CALL_COLUMNS)}) VALUES ({placeholders})"
            " ON CONFLICT (session, turn, call_id, ts) DO NOTHING",
            [tuple(row.get(column) for column in CALL_COLUMNS) for row in rows],
        )


def latest_calls(
    database: SharedDatabase, *, limit: int, filters: dict[str, Any], person: str | None = None
) -> list[dict[str, Any]]:
    """The latest calls matching `atlas log`'s filters, oldest first (of one person when named)."""
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
    where = f"WHERE {' AND '.join(conditions)}" if conditions else ""
    with database.connection() as conn:
        cursor = conn.execute(
            f"SELECT {', '.join(CALL_COLUMNS)} FROM atlas_calls {where} ORDER BY ts DESC, id DESC LIMIT %s",
            (*params, limit),
        )
        rows = cursor.fetchall()
    return [dict(zip(CALL_COLUMNS, row, strict=True)) for row in reversed(rows)]


def granted_rules(database: SharedDatabase) -> list[tuple[str, str, str, str]]:
    """Every rule granted in the team, oldest first: (name, its TOML, who granted it, on which machine)."""
    with database.connection() as conn:
        rows = conn.execute("SELECT name, rule, person, machine FROM atlas_granted_rules ORDER BY id").fetchall()
    return [(str(name), str(rule), str(person), str(machine)) for name, rule, person, machine in rows]


def add_granted_rule(database: SharedDatabase, name: str, rule: str, ts: str, who: dict[str, str]) -> None:
    with database.connection() as conn:
        conn.execute(
            "INSERT INTO atlas_granted_rules (name, rule, ts, person, machine) VALUES (%s, %s, %s, %s, %s)",
            (name, rule, ts, who["person"], who["machine"]),
        )


def remove_granted_rule(database: SharedDatabase, name: str) -> bool:
    with database.connection() as conn:
        return conn.execute("DELETE FROM atlas_granted_rules WHERE name = %s", (name,)).rowcount > 0
