"""A per-tool summary of the call log, kept up to date incrementally: `--stats` costs the same at 1M calls as at 10k.

Calls are only ever appended, so the summary remembers the last call id it covered and adds
only the calls after it: counts by kind, retries, and durations in buckets. An exact percentile
is then found by summing bucket counts to the bucket holding its rank and stepping into the
(name, ms) index inside that one bucket, instead of walking the index from one end.

Buckets are 1/8 ms wide below 512 ms and 8 ms wide above; both edges are exact binary
fractions, so the bucket of a duration computed in SQL agrees with the range it is looked up by.
"""

from __future__ import annotations

import sqlite3
from dataclasses import dataclass

FINE_BELOW_MS = 512
FINE, COARSE = 8, 8
"""Buckets per ms below FINE_BELOW_MS; ms per bucket above it."""
FIRST_COARSE = FINE_BELOW_MS * FINE
BUCKET = (
    f"CASE WHEN ms < {FINE_BELOW_MS} THEN CAST(ms * {FINE} AS INTEGER)"
    f" ELSE {FIRST_COARSE} + CAST(ms / {COARSE} AS INTEGER) END"
)


@dataclass(frozen=True)
class ToolSummary:
    name: str
    kinds: dict[str, int]
    retries: int
    buckets: list[tuple[int, int]]
    """(bucket, calls) in ascending order of duration."""

    @property
    def calls(self) -> int:
        return sum(self.kinds.values())


def refresh(conn: sqlite3.Connection) -> None:
    """Add the calls logged since the last refresh; call inside a write transaction (tables: `schema.py`)."""
    row = conn.execute("SELECT id FROM stats_covered").fetchone()
    covered = int(row[0]) if row else 0
    newest = int(conn.execute("SELECT coalesce(max(id), 0) FROM calls").fetchone()[0])
    if newest < covered:  # the log was cut back by hand: start the summary again
        for table in ("stats_kinds", "stats_retries", "stats_ms"):
            conn.execute(f"DELETE FROM {table}")
        covered = 0
    if newest == covered and row is not None:
        return
    # One pass over the new calls into a small temp table, then the three summaries from it.
    conn.execute("DROP TABLE IF EXISTS temp.stats_fresh")
    conn.execute(
        f"CREATE TEMP TABLE stats_fresh AS SELECT name, kind, {BUCKET} AS bucket, count(*) AS n,"
        " sum(max(attempts - 1, 0)) AS extra FROM calls WHERE id > ? AND id <= ? GROUP BY name, kind, bucket",
        (covered, newest),
    )
    conn.execute(
        "INSERT INTO stats_kinds SELECT name, kind, sum(n) FROM stats_fresh WHERE true GROUP BY name, kind"
        " ON CONFLICT (name, kind) DO UPDATE SET n = n + excluded.n"
    )
    conn.execute(
        "INSERT INTO stats_retries SELECT name, sum(extra) FROM stats_fresh WHERE true GROUP BY name"
        " ON CONFLICT (name) DO UPDATE SET extra = extra + excluded.extra"
    )
    conn.execute(
        "INSERT INTO stats_ms SELECT name, bucket, sum(n) FROM stats_fresh WHERE true GROUP BY name, bucket"
        " ON CONFLICT (name, bucket) DO UPDATE SET n = n + excluded.n"
    )
    conn.execute("DROP TABLE temp.stats_fresh")
    conn.execute("DELETE FROM stats_covered")
    conn.execute("INSERT INTO stats_covered VALUES (?)", (newest,))


def summaries(conn: sqlite3.Connection, tool: str | None) -> list[ToolSummary]:
    """Every tool's summary (or one tool's), by name."""
    where, params = (" WHERE name = ?", (tool,)) if tool is not None else ("", ())
    kinds: dict[str, dict[str, int]] = {}
    for name, kind, count in conn.execute(f"SELECT name, kind, n FROM stats_kinds{where}", params):
        kinds.setdefault(name, {})[kind] = int(count)
    retries = dict(conn.execute(f"SELECT name, extra FROM stats_retries{where}", params).fetchall())
    buckets: dict[str, list[tuple[int, int]]] = {}
    for name, bucket, count in conn.execute(
        f"SELECT name, bucket, n FROM stats_ms{where} ORDER BY name, bucket", params
    ):
        buckets.setdefault(name, []).append((bucket, count))
    return [
        ToolSummary(name=name, kinds=kinds[name], retries=int(retries.get(name, 0)), buckets=buckets.get(name, []))
        for name in sorted(kinds)
    ]


def ms_at(conn: sqlite3.Connection, summary: ToolSummary, rank: int) -> float:
    """The `rank`-th smallest duration (1-based) of a tool's calls."""
    if rank >= summary.calls:  # the largest: the last entry of the tool in the (name, ms) index
        row = conn.execute("SELECT max(ms) FROM calls WHERE name = ?", (summary.name,)).fetchone()
        return float(row[0]) if row and row[0] is not None else 0.0
    before = 0
    for bucket, count in summary.buckets:
        if before + count >= rank:
            low, high = _edges(bucket)
            row = conn.execute(
                "SELECT ms FROM calls WHERE name = ? AND ms >= ? AND ms < ? ORDER BY ms LIMIT 1 OFFSET ?",
                (summary.name, low, high, rank - before - 1),
            ).fetchone()
            if row is not None:
                return float(row[0])
            break
        before += count
    # A duration the buckets cannot place (a negative one): walk the index instead.
    row = conn.execute(
        "SELECT ms FROM calls WHERE name = ? ORDER BY ms LIMIT 1 OFFSET ?", (summary.name, rank - 1)
    ).fetchone()
    return float(row[0]) if row else 0.0


def _edges(bucket: int) -> tuple[float, float]:
    if bucket < FIRST_COARSE:
        return bucket / FINE, (bucket + 1) / FINE
    return (bucket - FIRST_COARSE) * COARSE, (bucket - FIRST_COARSE + 1) * COARSE
