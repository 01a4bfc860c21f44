"""`atlas state push`: a local state folder's history copied into the shared database, once.

Every copied row is keyed as it is in the database (a tracker record by dataset, key and action; an
applied item by plan and item; a call by session, turn, id and time; a question by session, turn and
time), so pushing the same folder again, or two maintainers pushing theirs, adds nothing twice. The
local files are read, never changed.
"""

from __future__ import annotations

import json
import sqlite3
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from psycopg.types.json import Jsonb

from atlas.foundation import statefiles
from atlas.state.postgres.database import SharedDatabase
from atlas.state.postgres.records import CALL_COLUMNS, TURN_COLUMNS, insert_once, row_of


@dataclass(frozen=True)
class Pushed:
    """How many of each were found in the folder, and how many of them were new to the database."""

    found: dict[str, int]
    added: dict[str, int]


def push(database: SharedDatabase, folder: Path, who: dict[str, str], tracker_records: list[dict[str, Any]]) -> Pushed:
    """Copy `tracker_records` (the folder's journal, read by the caller) and the folder's other state."""
    applied = _applied(folder)
    calls, turns = _log(folder, who)
    found = {"tracker actions": len(tracker_records), "applied plan items": len(applied), "calls": len(calls),
             "questions": len(turns)}  # fmt: skip
    added = dict.fromkeys(found, 0)
    with database.connection() as conn, conn.transaction():
        for record in tracker_records:
            stamped = {"person": who["person"], "machine": who["machine"], **record}  # older records name no one
            cursor = conn.execute(
                "INSERT INTO atlas_tracker_actions (dataset, key, action, issue_id, person, machine, record)"
                " VALUES (%s, %s, %s, %s, %s, %s, %s) ON CONFLICT DO NOTHING",
                (str(record.get("dataset") or "orbit"), str(record.get("key", "")), record["action"],
                 record["issue_id"], stamped["person"], stamped["machine"], Jsonb(stamped)),
            )  # fmt: skip
            added["tracker actions"] += cursor.rowcount
        for plan, item, ts in applied:
            cursor = conn.execute(
                "INSERT INTO atlas_applied_items (plan, item, ts, person, machine) VALUES (%s, %s, %s, %s, %s)"
                " ON CONFLICT DO NOTHING",
                (plan, item, ts, who["person"], who["machine"]),
            )
            added["applied plan items"] += cursor.rowcount
        for table, columns, rows, counted in (
            ("atlas_calls", CALL_COLUMNS, calls, "calls"),
            ("atlas_turns", TURN_COLUMNS, turns, "questions"),
        ):
            for row in rows:
                added[counted] += conn.execute(insert_once(table, columns), row_of(row, columns)).rowcount
    return Pushed(found, added)


def _applied(folder: Path) -> list[tuple[str, int, str]]:
    try:
        raw = statefiles.read_bytes(folder / "triage" / "applied.jsonl")
    except (OSError, statefiles.UnsafeStateFile):
        return []
    found = []
    for line in (raw or b"").splitlines():
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(record, dict) and isinstance(record.get("plan"), str) and isinstance(record.get("item"), int):
            found.append((record["plan"], record["item"], str(record.get("ts", ""))))
    return found


def _log(folder: Path, who: dict[str, str]) -> tuple[list[dict[str, Any]], list[dict[str, Any]]]:
    """The folder's logged calls and answered questions, each naming `who`."""
    path = folder / "log.db"
    if not path.is_file():
        return [], []
    try:
        conn = statefiles.connect_sqlite(path, timeout=5.0)
    except (OSError, sqlite3.Error, statefiles.UnsafeStateFile):
        return [], []
    try:
        conn.row_factory = sqlite3.Row
        rows = conn.execute(
            "SELECT ts, session, turn, call_id, name, arguments, kind, ms, attempts, message, approved, decided_by,"
            " round, position FROM calls ORDER BY id"
        ).fetchall()
        turns = conn.execute("SELECT ts, session, turn, question, answer FROM turns ORDER BY id").fetchall()
    except sqlite3.Error:
        return [], []
    finally:
        conn.close()
    calls = []
    for row in rows:
        call = dict(row)
        call["approved"] = None if call["approved"] is None else bool(call["approved"])
        calls.append({**call, **who})
    return calls, [{**dict(turn), **who} for turn in turns]
