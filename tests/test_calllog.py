"""The call log: a real SQLite file that records calls and turns, answers `atlas log`, and never blocks an answer."""

from __future__ import annotations

import asyncio
import itertools
import json
import os
import sqlite3
import subprocess
import sys
import textwrap
import time
from pathlib import Path

import pytest

from atlas.calllog import MIGRATIONS, CallLog, CallLogError, CallLogWriter
from atlas.executor.executor import ToolExecutor
from atlas.foundation.errors import ErrorKind
from atlas.protocol.events import BatchEnded, CallEvent, CallRecord, Phase
from tests.support.executor_fakes import FailArgs, Flaky, call, kind_of, registry, sleep_tool, spec

ROOT = Path(__file__).resolve().parents[1]


def record(call_id: str, name: str = "get_issue", kind: ErrorKind = ErrorKind.OK, **fields: object) -> CallRecord:
    values: dict[str, object] = {
        "round": 1,
        "call_id": call_id,
        "name": name,
        "arguments": {"issue_id": 41},
        "kind": kind,
        "ms": 10.0,
        "attempts": 1,
    }
    values.update(fields)
    return CallRecord(**values)  # type: ignore[arg-type]


def test_the_log_is_created_in_the_home_folder_with_wal_and_a_schema_version(tmp_path: Path) -> None:
    log = CallLog.at_home(tmp_path / "new" / "home")
    log.record_call(record("c1"), session="s1", turn=1)
    path = tmp_path / "new" / "home" / "log.db"
    assert log.path == path and path.exists()
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
        assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        indexes = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
    assert {"calls_ts", "calls_name_kind", "calls_session"} <= indexes


def test_calls_come_back_newest_last_in_the_json_shape_with_filters(tmp_path: Path) -> None:
    log = CallLog(tmp_path / "log.db")
    log.record_call(record("c1", ts=100.0), session="s1", turn=1)
    log.record_call(record("c2", kind=ErrorKind.TIMEOUT, message="slow", ts=200.0), session="s1", turn=1)
    log.record_call(
        record("c3", name="add_label", kind=ErrorKind.DENIED, approved=False, arguments={"label": "x"}, ts=300.0),
        session="s2",
        turn=1,
    )
    log.record_call(record("c4", arguments="{not json", kind=ErrorKind.BAD_ARGS, ts=400.0), session="s2", turn=2)

    everything = log.calls()
    assert [c["call_id"] for c in everything] == ["c1", "c2", "c3", "c4"]
    first = everything[0]
    assert set(first) >= {"ts", "session", "turn", "round", "call_id", "name", "arguments", "kind", "ms"}
    assert set(first) >= {"attempts", "message", "approved"}
    assert first["arguments"] == {"issue_id": 41}
    assert first["approved"] is None
    assert everything[2]["approved"] is False
    assert everything[3]["arguments"] == "{not json"
    json.dumps(everything)  # every row can be printed as a JSON line

    assert [c["call_id"] for c in log.calls(limit=2)] == ["c3", "c4"]
    assert [c["call_id"] for c in log.calls(tool="add_label")] == ["c3"]
    assert [c["call_id"] for c in log.calls(kind=ErrorKind.TIMEOUT)] == ["c2"]
    assert [c["call_id"] for c in log.calls(session="s2")] == ["c3", "c4"]
    assert [c["call_id"] for c in log.calls(since=250.0)] == ["c3", "c4"]
    assert [c["call_id"] for c in log.calls(errors_only=True)] == ["c2", "c3", "c4"]
    assert [c["call_id"] for c in log.calls(session="s1", errors_only=True)] == ["c2"]


def test_stats_per_tool_on_a_known_log(tmp_path: Path) -> None:
    log = CallLog(tmp_path / "log.db")
    for i, ms in enumerate([10, 20, 30, 40, 50, 60, 70, 80, 90, 100]):
        kind = "timeout" if ms == 100 else "ok"
        log.record_call(
            record(f"g{i}", ms=float(ms), kind=kind, attempts=2 if ms in (20, 30) else 1), session="s", turn=1
        )
    log.record_call(record("a1", name="add_label", kind=ErrorKind.DENIED, ms=1.0, attempts=0), session="s", turn=1)
    log.record_call(record("a2", name="add_label", kind=ErrorKind.OK, ms=5.0, attempts=3), session="s", turn=1)

    stats = {row["name"]: row for row in log.stats()}
    issue = stats["get_issue"]
    assert issue["calls"] == 10
    assert (issue["p50_ms"], issue["p95_ms"], issue["max_ms"]) == (50.0, 100.0, 100.0)
    assert issue["kinds"] == {"ok": 9, "timeout": 1}
    assert issue["retries"] == 2
    assert issue["denials"] == 0
    label = stats["add_label"]
    assert (label["calls"], label["retries"], label["denials"]) == (2, 2, 1)
    assert label["kinds"] == {"denied": 1, "ok": 1}
    assert [row["name"] for row in log.stats(tool="add_label")] == ["add_label"]
    # Filtered stats are counted row by row, whole-log stats from indexes: the two agree.
    assert log.stats(session="s") == log.stats()
    assert log.stats(tool="get_issue", since=0) == [issue]


def test_a_session_exports_as_a_replay_script(tmp_path: Path) -> None:
    log = CallLog(tmp_path / "log.db")
    # Completion order differs from request order; the script follows the request.
    log.record_call(
        record("c2", name="get_doc_section", arguments={"doc_id": "error-codes"}, position=1), session="s", turn=1
    )
    log.record_call(record("c1", arguments={"issue_id": 41}, position=0), session="s", turn=1)
    log.record_call(record("c3", arguments={"issue_id": 87}, round=2), session="s", turn=1)
    log.record_turn(session="s", turn=1, question="Compare?", answer="First answer.", model="offline", rounds=3)
    log.record_call(record("c4", arguments={"issue_id": 9}), session="s", turn=2)
    log.record_turn(session="s", turn=2, question="And #9?", answer="Second answer.", model="offline", rounds=2)
    log.record_call(record("x1"), session="other", turn=1)

    assert log.export_script("s") == {
        "turns": [
            {
                "calls": [
                    {"name": "get_issue", "arguments": {"issue_id": 41}},
                    {"name": "get_doc_section", "arguments": {"doc_id": "error-codes"}},
                ]
            },
            {"calls": [{"name": "get_issue", "arguments": {"issue_id": 87}}]},
            {"text": "First answer."},
            {"calls": [{"name": "get_issue", "arguments": {"issue_id": 9}}]},
            {"text": "Second answer."},
        ]
    }
    with pytest.raises(CallLogError, match="no session"):
        log.export_script("missing")


def test_sessions_and_the_latest_one(tmp_path: Path) -> None:
    log = CallLog(tmp_path / "log.db")
    assert log.latest_session() is None
    assert log.calls() == []
    assert not log.path.exists()  # reading an empty log creates nothing
    log.record_call(record("c1", ts=1.0), session="old", turn=1)
    log.record_turn(session="new", turn=1, question="q", answer="a", model="m", rounds=1, ts=2.0)
    assert log.latest_session() == "new"
    assert [(s["session"], s["calls"], s["turns"]) for s in log.sessions()] == [("old", 1, 0), ("new", 0, 1)]


def test_the_executor_logs_every_finished_call_with_its_session_and_turn(tmp_path: Path) -> None:
    log = CallLog(tmp_path / "log.db")
    executor = ToolExecutor(
        registry(spec("sleep", sleep_tool), spec("flaky", Flaky(1), FailArgs)),
        events=CallLogWriter(log, "sess"),
        session="sess",
    )
    turn = executor.new_turn(3)
    calls = [call("sleep", "c1", value="v"), call("flaky", "c2"), call("nope", "c3")]
    asyncio.run(executor.run_all(calls, round=2, turn=turn))
    rows = {row["call_id"]: row for row in log.calls()}
    assert set(rows) == {"c1", "c2", "c3"}
    assert {(row["session"], row["turn"], row["round"]) for row in rows.values()} == {("sess", 3, 2)}
    assert rows["c1"]["arguments"] == {"value": "v"}
    assert (rows["c2"]["kind"], rows["c2"]["attempts"]) == ("ok", 2)
    assert rows["c3"]["kind"] == "unknown_tool"
    assert [row["call_id"] for row in log.calls()] == [r.call_id for r in executor.log]


def finished(record: CallRecord, turn: int) -> CallEvent:
    return CallEvent(Phase.FINISHED, record.call_id, record.name, record.arguments, turn=turn, record=record)


def test_the_log_listener_writes_reads_with_their_batch_and_a_decided_side_effect_at_once(tmp_path: Path) -> None:
    log = CallLog(tmp_path / "log.db")
    writer = CallLogWriter(log, "sess")
    logged = lambda: [row["call_id"] for row in log.calls()]  # noqa: E731
    writer(finished(record("r1"), 2))
    writer(finished(record("r2"), 2))
    writer(CallEvent(Phase.STARTED, "r3", "get_issue", {}, turn=2, attempt=1))  # only what ends is written
    assert logged() == []  # reads wait for their batch: one transaction for all of them
    writer(finished(record("w1", name="add_label", approved=False), 2))
    assert logged() == ["r1", "r2", "w1"]  # a decided side effect is written before anything else happens
    writer(finished(record("r3"), 2))
    writer(BatchEnded(2))
    assert logged() == ["r1", "r2", "w1", "r3"]
    assert {(row["session"], row["turn"]) for row in log.calls()} == {("sess", 2)}


@pytest.mark.parametrize("damage", ["corrupt", "not_a_folder"])
def test_a_log_that_cannot_be_written_warns_once_and_the_answer_still_comes(
    tmp_path: Path, damage: str, capsys: pytest.CaptureFixture[str]
) -> None:
    if damage == "corrupt":
        path = tmp_path / "log.db"
        path.write_bytes(b"this is not a database" * 100)
    else:
        (tmp_path / "home").write_text("a file where the state folder should be")
        path = tmp_path / "home" / "log.db"
    log = CallLog(path)
    executor = ToolExecutor(registry(spec("sleep", sleep_tool)), events=CallLogWriter(log, "s"))
    outputs = asyncio.run(executor.run_all([call("sleep", "c1"), call("sleep", "c2")]))
    outputs += asyncio.run(executor.run_all([call("sleep", "c3")]))
    log.record_turn(session="s", turn=1, question="q", answer="a", model="m", rounds=1)
    assert [kind_of(o) for o in outputs] == ["ok", "ok", "ok"]
    warnings = [line for line in capsys.readouterr().err.splitlines() if line]
    assert len(warnings) == 1
    assert warnings[0].startswith("atlas: warning: the call log") and str(path) in warnings[0]
    if damage == "corrupt":
        with pytest.raises(CallLogError, match="cannot be read"):
            log.calls()
    else:
        assert log.calls() == []


WRITER = textwrap.dedent(
    """
    import sys, time
    from atlas.calllog import CallLog
    from atlas.foundation.errors import ErrorKind
    from atlas.protocol.events import BatchEnded, CallEvent, CallRecord, Phase

    log = CallLog(sys.argv[1])
    time.sleep(max(0.0, float(sys.argv[3]) - time.time()))  # start together
    for i in range(500):
        record = CallRecord(round=1, call_id=f"{sys.argv[2]}-{i}", name="get_issue", arguments={"i": i},
                            kind=ErrorKind.OK, ms=1.0, attempts=1)
        log.record_call(record, session=sys.argv[2], turn=1)
    """
)


def test_two_processes_writing_at_once_lose_nothing_and_never_meet_a_locked_database(tmp_path: Path) -> None:
    path = tmp_path / "shared" / "log.db"
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    start = time.time() + 1.0
    writers = [
        subprocess.Popen(
            [sys.executable, "-c", WRITER, str(path), name, str(start)], env=env, stderr=subprocess.PIPE, text=True
        )
        for name in ("chat", "ask")
    ]
    errors = [process.communicate(timeout=60)[1] for process in writers]
    assert [process.returncode for process in writers] == [0, 0]
    assert errors == ["", ""]  # not even a warning
    log = CallLog(path)
    assert len(log.calls(limit=None)) == 1000
    assert len(log.calls(limit=None, session="chat")) == 500
    rows = log.calls(limit=None)
    assert len({row["call_id"] for row in rows}) == 1000
    switches = sum(1 for a, b in itertools.pairwise(rows) if a["session"] != b["session"])
    assert switches >= 1  # the two writers really overlapped
    with sqlite3.connect(path) as conn:  # the overlap is only safe in WAL mode; proved alone in test_calllog_contention
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def test_a_log_locked_by_another_writer_costs_one_busy_timeout_and_a_warning(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "log.db"
    CallLog(path).record_call(record("c0"), session="s", turn=1)
    holder = sqlite3.connect(path, isolation_level=None)
    holder.execute("BEGIN IMMEDIATE")
    try:
        # Long enough that a loaded machine's delays stay well inside the margin of one more wait.
        log = CallLog(path, busy_timeout_s=1.0)
        started = time.monotonic()
        log.record_call(record("c1"), session="s", turn=1)
        log.record_call(record("c2"), session="s", turn=1)
        elapsed = time.monotonic() - started
    finally:
        holder.execute("ROLLBACK")
        holder.close()
    assert 2.0 <= elapsed < 3.5, f"{elapsed:.2f} s"  # each write waited once, no retry on top (4 s)
    assert capsys.readouterr().err.count("atlas: warning: the call log") == 1
    log.record_call(record("c3"), session="s", turn=1)  # the lock is gone: writes resume
    assert [c["call_id"] for c in log.calls()] == ["c0", "c3"]


class CommitFailsOnce:
    """A connection whose next COMMIT fails the way a full disk makes it fail."""

    def __init__(self, conn: sqlite3.Connection) -> None:
        self.conn = conn
        self.failed = False

    def execute(self, sql: str, *params: object) -> sqlite3.Cursor:
        if sql == "COMMIT" and not self.failed:
            self.failed = True
            raise sqlite3.OperationalError("database or disk is full")
        return self.conn.execute(sql, *params)

    def close(self) -> None:
        self.conn.close()


def test_a_failed_commit_is_rolled_back_so_later_writes_and_other_writers_go_on(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    path = tmp_path / "log.db"
    log = CallLog(path, busy_timeout_s=0.2)
    log.record_call(record("c0"), session="s", turn=1)
    log._conn = CommitFailsOnce(log._conn)  # type: ignore[assignment,arg-type]
    log.record_call(record("c1"), session="s", turn=1)
    assert capsys.readouterr().err.count("cannot be written") == 1
    log.record_call(record("c2"), session="s", turn=1)  # the disk has room again
    CallLog(path, busy_timeout_s=0.2).record_call(record("c3"), session="other", turn=1)
    assert capsys.readouterr().err == ""
    assert [c["call_id"] for c in CallLog(path).calls()] == ["c0", "c2", "c3"]


def test_a_log_written_by_an_older_atlas_is_migrated_and_keeps_its_rows(tmp_path: Path) -> None:
    path = tmp_path / "log.db"
    with sqlite3.connect(path) as conn:  # schema version 1, as the first release wrote it
        conn.executescript(MIGRATIONS[0])
        conn.execute(
            "INSERT INTO calls (ts, session, turn, round, call_id, name, arguments, kind, ms, attempts)"
            " VALUES (1.0, 'old', 1, 1, 'c0', 'get_issue', '{}', 'ok', 12.0, 1)"
        )
        conn.execute("PRAGMA user_version = 1")
    conn.close()
    log = CallLog(path)
    log.record_call(record("c1", ms=30.0), session="new", turn=1)
    assert [c["call_id"] for c in log.calls()] == ["c0", "c1"]
    assert log.stats()[0]["max_ms"] == 30.0
    with sqlite3.connect(path) as conn:
        assert conn.execute("PRAGMA user_version").fetchone()[0] == len(MIGRATIONS)
        indexes = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'index'")}
        tables = {row[0] for row in conn.execute("SELECT name FROM sqlite_master WHERE type = 'table'")}
    conn.close()
    assert {"calls_name_ms", "calls_retried"} <= indexes
    # Every table comes from a migration, the per-question summary's too, before any `--stats` asks.
    assert {"stats_kinds", "stats_questions", "stats_questions_hist", "stats_questions_covered"} <= tables


def test_whole_log_stats_come_from_a_summary_that_follows_appends(tmp_path: Path) -> None:
    """Exact percentiles from bucket counts: durations on bucket edges, both bucket widths, odd values."""
    import random

    log = CallLog(tmp_path / "log.db")
    rng = random.Random(5)
    edges = [0.0, 0.125, 0.124999, 8.0, 511.875, 511.99, 512.0, 519.999, 520.0, 5000.0, -3.5, 1e12]
    rounds = [edges, [rng.lognormvariate(3.0, 1.5) for _ in range(300)], [rng.choice(edges) for _ in range(50)]]
    number = 0
    for durations in rounds:
        for ms in durations:
            number += 1
            name = ("get_issue", "search_issues", "add_label")[number % 3]
            log.record_call(record(f"c{number}", name=name, ms=ms, attempts=1 + number % 4), session="s", turn=1)
        # The session filter counts row by row: the summary (brought up to date each time) must agree.
        assert log.stats() == log.stats(session="s")
        assert log.stats(tool="add_label") == log.stats(tool="add_label", session="s")
    conn = sqlite3.connect(tmp_path / "log.db")
    conn.execute("DELETE FROM calls WHERE id > 100")  # cut back by hand: the summary starts again
    conn.commit()
    conn.close()
    assert log.stats() == log.stats(session="s")
