"""The call log's tables: a list of migrations, each moving the schema one `user_version` up."""

from __future__ import annotations

import sqlite3
from contextlib import suppress

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
    # The OpenTelemetry span of each call, when telemetry is on: a row of `atlas log` leads to its trace.
    """
    ALTER TABLE calls ADD COLUMN trace_id TEXT;
    ALTER TABLE calls ADD COLUMN span_id TEXT;
    """,
    # Who approved or denied a side effect: `person`, `rule:NAME`, `session`, `no-terminal`.
    """
    ALTER TABLE calls ADD COLUMN decided_by TEXT;
    """,
    # The per-tool summary `--stats` keeps up to date (`summary.py`); IF NOT EXISTS: logs written
    # before this migration may already hold them, as `--stats` once created them itself.
    """
    CREATE TABLE IF NOT EXISTS stats_covered (id INTEGER NOT NULL);
    CREATE TABLE IF NOT EXISTS stats_kinds
        (name TEXT NOT NULL, kind TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (name, kind)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS stats_retries (name TEXT PRIMARY KEY, extra INTEGER NOT NULL) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS stats_ms
        (name TEXT NOT NULL, bucket INTEGER NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (name, bucket)) WITHOUT ROWID;
    """,
    # Calls per question that `--stats` keeps up to date (`per_question.py`); IF NOT EXISTS, as above.
    """
    CREATE TABLE IF NOT EXISTS stats_questions (session TEXT NOT NULL, turn INTEGER NOT NULL,
        source TEXT NOT NULL, n INTEGER NOT NULL, PRIMARY KEY (session, turn, source)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS stats_questions_hist (source TEXT NOT NULL, n INTEGER NOT NULL,
        questions INTEGER NOT NULL, PRIMARY KEY (source, n)) WITHOUT ROWID;
    CREATE TABLE IF NOT EXISTS stats_questions_covered (calls INTEGER NOT NULL, turns INTEGER NOT NULL);
    """,
)


def migrate(conn: sqlite3.Connection) -> None:
    """Apply the migrations this file does not have yet, in one write transaction."""
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
