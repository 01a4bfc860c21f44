"""The log at scale: `atlas log` over 100,000 logged calls, and what writing one row costs.

The big log is made by `CallLog` (its schema and migrations) and filled in one transaction with
the exact INSERT that `CallLog.record_call` runs, so building it takes seconds. The cost of a
row through the real `record_call` (one transaction each, as the executor writes) is measured on
a separate small log, against the same INSERT in autocommit on a bare connection.
"""

from __future__ import annotations

import json
import random
import sqlite3
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from atlas.calllog import CallLog
from atlas.foundation.errors import ErrorKind
from atlas.protocol.events import CallRecord
from bench.core import Figure, absolute_figure, atlas_argv, best_of, busy_note, python_pass, quiet_env, run_timed

ROWS = 100_000
CALLS_PER_SESSION = 10
SPAN_S = 30 * 86400
WRITES = 2_000
RUNS = 5
INSERT = (
    "INSERT INTO calls (ts, session, turn, round, position, call_id, name, arguments, kind, ms, attempts,"
    " message, approved, leaked_threads) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
)
TOOLS = {
    "get_issue": 35,
    "search_issues": 25,
    "get_doc_section": 20,
    "list_docs": 5,
    "add_label": 8,
    "post_comment": 7,
}
KINDS = {"ok": 900, "timeout": 25, "transient": 20, "permanent": 30, "denied": 15, "bad_args": 5, "unavailable": 5}
SIDE_EFFECTS = frozenset({"add_label", "post_comment"})


def arguments_for(name: str, rng: random.Random) -> dict[str, Any]:
    issue = rng.randint(1, 400)
    if name in ("get_issue", "add_label"):
        return {"issue_id": issue, **({"label": "severity:S1"} if name == "add_label" else {})}
    if name == "post_comment":
        return {"issue_id": issue, "body": "Thanks, we are looking into it."}
    if name == "search_issues":
        return {"query": rng.choice(["lease expired", "redis timeout", "ORB-1101", "postgres deadlock"])}
    if name == "get_doc_section":
        return {"doc_id": "error-codes", "heading": f"ORB-{rng.randint(1100, 1120)}"}
    return {}


def rows(count: int, *, now: float, seed: int = 7) -> Iterator[tuple[Any, ...]]:
    """Plausible calls: sessions of ten, mostly reads, mostly ok, spread over the last 30 days."""
    rng = random.Random(seed)
    names, name_weights = list(TOOLS), list(TOOLS.values())
    kinds, kind_weights = list(KINDS), list(KINDS.values())
    for index in range(count):
        name = rng.choices(names, name_weights)[0]
        kind = rng.choices(kinds, kind_weights)[0]
        if kind == "denied" and name not in SIDE_EFFECTS:
            kind = "ok"  # only side effects ask for approval
        session = f"s{index // CALLS_PER_SESSION:06d}"
        slow = kind == "timeout"
        yield (
            now - SPAN_S + SPAN_S * index / count,
            session,
            1,
            (index % CALLS_PER_SESSION) // 4,
            index % 4,
            f"call_{index}",
            name,
            json.dumps(arguments_for(name, rng)),
            kind,
            5000.0 if slow else rng.lognormvariate(3.0, 0.8),
            1 if kind != "transient" else 2,
            None if kind == "ok" else f"{name} ended {kind}",
            int(kind != "denied") if name in SIDE_EFFECTS else None,
            0,
        )


def build_big_log(home: Path) -> float:
    """A log of ROWS calls at `home`; returns seconds taken."""
    started = time.perf_counter()
    log = CallLog.at_home(home)
    log.record_call(
        CallRecord(round=0, call_id="first", name="list_docs", arguments={}, kind=ErrorKind.OK, ms=1.0, attempts=1),
        session="s-first",
        turn=1,
    )
    log.close()
    conn = sqlite3.connect(log.path, isolation_level=None)
    conn.execute("BEGIN IMMEDIATE")
    conn.executemany(INSERT, rows(ROWS - 1, now=time.time()))
    conn.execute("COMMIT")
    conn.close()
    return time.perf_counter() - started


def record_call_us(folder: Path) -> tuple[float, float]:
    """µs per row through `CallLog.record_call`, and through a bare autocommit INSERT on the same schema."""
    log = CallLog(folder / "writes.db")
    records = [
        CallRecord(
            round=0,
            call_id=f"c{index}",
            name="get_issue",
            arguments={"issue_id": index},
            kind=ErrorKind.OK,
            ms=12.5,
            attempts=1,
        )
        for index in range(WRITES)
    ]
    log.record_call(records[0], session="warm-up", turn=1)  # opens the connection and migrates
    started = time.perf_counter()
    for record in records:
        log.record_call(record, session="bench", turn=1)
    through_api = (time.perf_counter() - started) / WRITES * 1e6
    log.close()
    conn = sqlite3.connect(folder / "writes.db", isolation_level=None)
    conn.execute("PRAGMA synchronous = NORMAL")
    params = [
        (
            time.time(),
            "bare",
            1,
            0,
            0,
            f"c{index}",
            "get_issue",
            json.dumps({"issue_id": index}),
            "ok",
            12.5,
            1,
            None,
            None,
            0,
        )
        for index in range(WRITES)
    ]
    started = time.perf_counter()
    for row in params:
        conn.execute(INSERT, row)
    bare = (time.perf_counter() - started) / WRITES * 1e6
    conn.close()
    return through_api, bare


def run() -> list[Figure]:
    with tempfile.TemporaryDirectory(prefix="atlas-bench-") as name:
        folder = Path(name)
        home = folder / "home"
        build_s = build_big_log(home)
        env = quiet_env(home)
        commands = {
            "atlas log -n 20": atlas_argv("log", "-n", "20"),
            "atlas log --stats": atlas_argv("log", "--stats"),
            "atlas log --tool get_issue --kind timeout": atlas_argv("log", "--tool", "get_issue", "--kind", "timeout"),
        }
        best = best_of({"python -c pass": python_pass(), **commands}, runs=RUNS, env=env, cwd=folder)
        _elapsed, done = run_timed(
            atlas_argv("log", "--tool", "get_issue", "--kind", "timeout", "--json"), env=env, cwd=folder
        )
        found = [json.loads(line) for line in done.stdout.splitlines()]
        if len(found) != 20 or any(c["name"] != "get_issue" or c["kind"] != "timeout" for c in found):
            raise RuntimeError("`atlas log --tool get_issue --kind timeout` should list 20 get_issue timeouts")
        through_api, bare = record_call_us(folder)
    figures = [
        busy_note(
            absolute_figure(
                f"{label} ({ROWS:,} calls)",
                best[label],
                limit=0.3,
                unit="s",
                baseline=best["python -c pass"],
                against="python -c pass",
                note=f"best of {RUNS}, interleaved" + (f"; log built in {build_s:.1f} s" if index == 0 else ""),
            )
        )
        for index, label in enumerate(commands)
    ]
    figures.append(
        Figure(
            name="one row through CallLog.record_call",
            measured=f"{through_api:.0f} µs vs {bare:.0f} µs bare INSERT",
            ratio=through_api / bare,
            target="—",
            met=None,
            note=f"{WRITES:,} rows, a transaction each (WAL, synchronous NORMAL), as the executor writes",
            values={"record_call_us": through_api, "bare_insert_us": bare},
        )
    )
    return figures
