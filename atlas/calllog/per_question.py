"""Calls per question (p50, p95, max), overall and per source: a tripling of calls per question hides in totals.

A question is one (session, turn); its source is the MCP server a tool comes from (`git__git_log`
→ `mcp:git`), else `atlas` (the built-in tools and plugins). Over the whole log the counts are
kept incrementally, as the per-tool summary is: a table of (question, source, calls) that each
`--stats` brings up to date with the calls and answered questions logged since the last one, and
beside it a histogram of questions by (source, calls) from which the percentiles are read.
Answered questions that made no call count as 0 calls overall.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable, Sequence
from typing import Any

ALL = "*"
"""The source under which a question's calls of every source are counted."""
SOURCE = "CASE WHEN instr(name, '__') > 0 THEN 'mcp:' || substr(name, 1, instr(name, '__') - 1) ELSE 'atlas' END"
_HIST = " ON CONFLICT (source, n) DO UPDATE SET questions = questions + excluded.questions"


def refresh(conn: sqlite3.Connection) -> None:
    """Count the calls and questions logged since the last refresh; call inside a write transaction.

    The histogram (questions by source and count) moves each touched question from its old count
    to its new one, so percentiles never read the per-question table.
    """
    row = conn.execute("SELECT calls, turns FROM stats_questions_covered").fetchone()
    calls, turns = (int(row[0]), int(row[1])) if row else (0, 0)
    newest_call = int(conn.execute("SELECT coalesce(max(id), 0) FROM calls").fetchone()[0])
    newest_turn = int(conn.execute("SELECT coalesce(max(id), 0) FROM turns").fetchone()[0])
    if newest_call < calls or newest_turn < turns:  # the log was cut back by hand: count again
        conn.execute("DELETE FROM stats_questions")
        conn.execute("DELETE FROM stats_questions_hist")
        calls = turns = 0
    if row is not None and (newest_call, newest_turn) == (calls, turns):
        return
    conn.execute("DROP TABLE IF EXISTS temp.questions_fresh")
    conn.execute(
        f"CREATE TEMP TABLE questions_fresh AS SELECT session, turn, {SOURCE} AS source, count(*) AS n FROM calls"
        f" WHERE id > ? AND id <= ? GROUP BY 1, 2, 3 UNION ALL SELECT session, turn, '{ALL}', count(*) FROM calls"
        f" WHERE id > ? AND id <= ? GROUP BY 1, 2 UNION ALL SELECT session, turn, '{ALL}', 0 FROM turns"
        " WHERE id > ? AND id <= ?",
        (calls, newest_call, calls, newest_call, turns, newest_turn),
    )
    touched = (
        "SELECT q.source, q.n, {sign} count(*) FROM stats_questions q JOIN"
        " (SELECT DISTINCT session, turn, source FROM questions_fresh) f USING (session, turn, source)"
        " WHERE true GROUP BY q.source, q.n"
    )
    conn.execute("INSERT INTO stats_questions_hist " + touched.format(sign="-") + _HIST)
    conn.execute(
        "INSERT INTO stats_questions SELECT session, turn, source, sum(n) FROM questions_fresh WHERE true"
        " GROUP BY 1, 2, 3 ON CONFLICT (session, turn, source) DO UPDATE SET n = n + excluded.n"
    )
    conn.execute("INSERT INTO stats_questions_hist " + touched.format(sign="") + _HIST)
    conn.execute("DELETE FROM stats_questions_hist WHERE questions = 0")
    conn.execute("DROP TABLE temp.questions_fresh")
    conn.execute("DELETE FROM stats_questions_covered")
    conn.execute("INSERT INTO stats_questions_covered VALUES (?, ?)", (newest_call, newest_turn))


def _rank(count: int, pct: float) -> int:
    return max(1, int(-(-count * pct // 100)))


def _percentiles(counts: list[tuple[int, int]]) -> dict[str, int]:
    """p50, p95 and max from (calls, questions) in ascending order of calls."""
    total = sum(questions for _, questions in counts)
    values = []
    for pct in (50, 95, 100):
        rank, seen = _rank(total, pct), 0
        for calls, questions in counts:
            seen += questions
            if seen >= rank:
                values.append(calls)
                break
    return _entry(total, values)


def from_summary(conn: sqlite3.Connection) -> dict[str, Any]:
    """Calls per question over the whole log, from the histogram `refresh` keeps."""
    by_source: dict[str, list[tuple[int, int]]] = {}
    for source, calls, questions in conn.execute(
        "SELECT source, n, questions FROM stats_questions_hist ORDER BY source, n"
    ):
        by_source.setdefault(str(source), []).append((int(calls), int(questions)))
    return _shaped({source: _percentiles(counts) for source, counts in by_source.items()})


def from_rows(rows: Sequence[Any], answered: Iterable[tuple[str, int]] = ()) -> dict[str, Any]:
    """Calls per question of some calls (`session`, `turn`, `source` columns, one row per call); the
    `answered` questions (session, turn) that made none count as 0 calls overall."""
    counts: dict[str, dict[tuple[str, int], int]] = {ALL: dict.fromkeys(answered, 0)}
    for row in rows:
        question = (str(row["session"]), int(row["turn"]))
        for source in (ALL, str(row["source"])):
            per = counts.setdefault(source, {})
            per[question] = per.get(question, 0) + 1
    result: dict[str, Any] = {}
    for source in sorted(counts):
        if not counts[source]:
            continue
        values = sorted(counts[source].values())
        result[source] = _entry(len(values), [values[_rank(len(values), pct) - 1] for pct in (50, 95, 100)])
    return _shaped(result)


def _entry(questions: int, values: list[int]) -> dict[str, int]:
    return {"questions": questions, "p50": values[0], "p95": values[1], "max": values[2]}


def _shaped(by_source: dict[str, Any]) -> dict[str, Any]:
    overall = by_source.pop(ALL, {"questions": 0, "p50": 0, "p95": 0, "max": 0})
    return {**overall, "sources": by_source}
