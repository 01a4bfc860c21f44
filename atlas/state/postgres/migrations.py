"""The shared database's tables, Atlas's own: each entry moves the schema one version up; append, never edit."""

from __future__ import annotations

from typing import Any

import psycopg

MIGRATIONS: tuple[str, ...] = (
    """
    CREATE TABLE atlas_tracker_actions (
        id BIGSERIAL PRIMARY KEY,
        dataset TEXT NOT NULL,
        key TEXT NOT NULL,
        action TEXT NOT NULL,
        issue_id BIGINT NOT NULL,
        person TEXT NOT NULL,
        machine TEXT NOT NULL,
        record JSONB NOT NULL,
        UNIQUE (dataset, key, action)
    );
    CREATE TABLE atlas_applied_items (
        plan TEXT NOT NULL,
        item INTEGER NOT NULL,
        ts TEXT NOT NULL,
        person TEXT NOT NULL,
        machine TEXT NOT NULL,
        PRIMARY KEY (plan, item)
    );
    CREATE TABLE atlas_inbox_seen (
        dataset TEXT NOT NULL,
        person TEXT NOT NULL,
        newest TEXT NOT NULL,
        PRIMARY KEY (dataset, person)
    );
    CREATE TABLE atlas_calls (
        id BIGSERIAL PRIMARY KEY,
        ts DOUBLE PRECISION NOT NULL,
        session TEXT NOT NULL,
        turn INTEGER NOT NULL,
        call_id TEXT NOT NULL,
        name TEXT NOT NULL,
        arguments TEXT NOT NULL,
        kind TEXT NOT NULL,
        ms DOUBLE PRECISION NOT NULL,
        attempts INTEGER NOT NULL,
        message TEXT,
        approved BOOLEAN,
        decided_by TEXT,
        person TEXT NOT NULL,
        machine TEXT NOT NULL,
        UNIQUE (session, turn, call_id, ts)
    );
    CREATE INDEX atlas_calls_ts ON atlas_calls (ts);
    CREATE TABLE atlas_granted_rules (
        id BIGSERIAL PRIMARY KEY,
        name TEXT NOT NULL UNIQUE,
        rule TEXT NOT NULL,
        ts TEXT NOT NULL,
        person TEXT NOT NULL,
        machine TEXT NOT NULL
    )
    """,
    # 2: the call log as `atlas log --script` replays it (each call's round and place in it) and the
    # answered questions, so `--stats`, `--script` and `--follow` read the team's log as the table does.
    """
    ALTER TABLE atlas_calls ADD COLUMN round INTEGER NOT NULL DEFAULT 0;
    ALTER TABLE atlas_calls ADD COLUMN position INTEGER NOT NULL DEFAULT 0;
    CREATE INDEX atlas_calls_session ON atlas_calls (session, turn);
    CREATE TABLE atlas_turns (
        id BIGSERIAL PRIMARY KEY,
        ts DOUBLE PRECISION NOT NULL,
        session TEXT NOT NULL,
        turn INTEGER NOT NULL,
        question TEXT NOT NULL,
        answer TEXT NOT NULL,
        person TEXT NOT NULL,
        machine TEXT NOT NULL,
        UNIQUE (session, turn, ts)
    )
    """,
)

MIGRATION_LOCK = 0x61746C6173_01
"""The advisory lock two processes migrating at once take in turn (`atlas` in ASCII, then 1)."""


def migrate(conn: psycopg.Connection[Any]) -> None:
    """Apply what the database lacks, in one transaction; another process migrating waits, then finds it done."""
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(%s)", (MIGRATION_LOCK,))
        conn.execute("CREATE TABLE IF NOT EXISTS atlas_schema (version INTEGER NOT NULL)")
        row = conn.execute("SELECT max(version) FROM atlas_schema").fetchone()
        version = int(row[0]) if row is not None and row[0] is not None else 0
        for number, script in enumerate(MIGRATIONS[version:], start=version + 1):
            for statement in script.split(";"):
                if statement.strip():
                    conn.execute(statement)
            conn.execute("INSERT INTO atlas_schema (version) VALUES (%s)", (number,))
