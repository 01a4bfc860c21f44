"""The shared database's other records: applied plan items, each person's inbox mark, the call log's writes
(its reads are in `calls.py`), granted rules."""

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
    "decided_by", "person", "machine", "round", "position",
)  # fmt: skip
TURN_COLUMNS = ("ts", "session", "turn", "question", "answer", "person", "machine")


def insert_once(table: str, columns: Sequence[str], key: str = "") -> str:
    """The statement that writes a row of `columns` into `table` unless it is there (by `key`, or any
    unique constraint): a row pushed or recorded again is the same row."""
    marks = ", ".join(["%s"] * len(columns))
    conflict = f" ON CONFLICT {key} DO NOTHING" if key else " ON CONFLICT DO NOTHING"
    return f"INSERT INTO {table} ({', '.join(columns)}) VALUES ({marks}){conflict}"


def row_of(record: dict[str, Any], columns: Sequence[str]) -> tuple[Any, ...]:
    return tuple(record.get(column) for column in columns)


def record_calls(database: SharedDatabase, rows: Sequence[dict[str, Any]]) -> None:
    """Finished calls, once each (a call pushed again is the same row)."""
    with database.connection() as conn:
        conn.cursor().executemany(
            insert_once("atlas_calls", CALL_COLUMNS, "(session, turn, call_id, ts)"),
            [row_of(row, CALL_COLUMNS) for row in rows],
        )


def record_turns(database: SharedDatabase, rows: Sequence[dict[str, Any]]) -> None:
    """Answered questions, once each."""
    with database.connection() as conn:
        conn.cursor().executemany(
            insert_once("atlas_turns", TURN_COLUMNS, "(session, turn, ts)"), [row_of(row, TURN_COLUMNS) for row in rows]
        )


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
