"""Two writers on one call log, made to meet deterministically: each mechanism that keeps a chat and
an `ask` from meeting "database is locked" (WAL, the busy timeout, the quick retry) is proved alone."""

from __future__ import annotations

import sqlite3
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

from atlas.calllog import CallLog
from atlas.foundation.errors import ErrorKind
from atlas.protocol.events import CallRecord

HOLD_S = 0.6
"""How long the other writer keeps its lock: longer than every quick retry of a busy error put together."""


def record(call_id: str) -> CallRecord:
    return CallRecord(round=1, call_id=call_id, name="get_issue", arguments={}, kind=ErrorKind.OK, ms=1.0, attempts=1)


@pytest.fixture
def log_path(tmp_path: Path) -> Iterator[Path]:
    path = tmp_path / "log.db"
    log = CallLog(path)
    log.record_call(record("c0"), session="s", turn=1)
    log.close()
    yield path


def test_the_log_is_in_wal_mode_so_a_long_read_never_holds_up_a_write(
    log_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    # `atlas log` reading while a chat writes: in WAL the write goes straight on; with a rollback
    # journal its COMMIT would wait for the reader, out of the busy timeout, and be lost.
    reader = sqlite3.connect(log_path, isolation_level=None)
    try:
        reader.execute("BEGIN")
        assert reader.execute("SELECT count(*) FROM calls").fetchone()[0] == 1
        log = CallLog(log_path, busy_timeout_s=5.0)
        started = time.monotonic()
        log.record_call(record("c1"), session="s", turn=1)
        elapsed = time.monotonic() - started
        assert reader.execute("SELECT count(*) FROM calls").fetchone()[0] == 1  # its snapshot holds
    finally:
        reader.close()
    assert elapsed < 2.5, f"{elapsed:.2f} s"  # a rollback journal would wait out the whole busy timeout
    assert capsys.readouterr().err == ""
    assert [c["call_id"] for c in CallLog(log_path).calls()] == ["c0", "c1"]
    with sqlite3.connect(log_path) as conn:
        assert conn.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    conn.close()


def hold_write_lock(path: Path, seconds: float, locked: threading.Event) -> threading.Thread:
    """Another writer in a thread of its own: it takes the write lock, holds it `seconds`, commits a row."""

    def hold() -> None:
        other = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        try:
            other.execute("BEGIN IMMEDIATE")
            other.execute(
                "INSERT INTO calls (ts, session, turn, round, call_id, name, arguments, kind, ms, attempts)"
                " VALUES (1.0, 'other', 1, 1, 'held', 'get_issue', '{}', 'ok', 1.0, 1)"
            )
            locked.set()
            time.sleep(seconds)
            other.execute("COMMIT")
        finally:
            other.close()

    thread = threading.Thread(target=hold, daemon=True)
    thread.start()
    return thread


def test_a_write_waits_for_another_writer_s_lock_and_is_not_lost(
    log_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    locked = threading.Event()
    holder = hold_write_lock(log_path, HOLD_S, locked)
    assert locked.wait(5)
    log = CallLog(log_path, busy_timeout_s=5.0)
    started = time.monotonic()
    log.record_call(record("c1"), session="s", turn=1)
    elapsed = time.monotonic() - started
    holder.join(5)
    assert capsys.readouterr().err == ""
    assert HOLD_S / 2 <= elapsed < HOLD_S + 1.0  # waited for the lock, no longer
    assert [c["call_id"] for c in log.calls()] == ["c0", "held", "c1"]


def test_a_busy_error_sqlite_returns_at_once_is_retried(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    # SQLite skips the busy handler in some races. One it skips every time: switching a file to WAL
    # while another connection is writing to it with a rollback journal fails at once, whatever the
    # busy timeout. The other writer commits during the first retry's pause.
    path = tmp_path / "log.db"
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("CREATE TABLE scratch (x)")
    other.execute("BEGIN IMMEDIATE")
    other.execute("INSERT INTO scratch VALUES (1)")
    pauses: list[float] = []
    real_sleep = time.sleep

    def pause(seconds: float) -> None:
        if not pauses:
            other.execute("COMMIT")
        pauses.append(seconds)
        real_sleep(seconds)

    monkeypatch.setattr(time, "sleep", pause)
    log = CallLog(path, busy_timeout_s=5.0)
    started = time.monotonic()
    log.record_call(record("c1"), session="s", turn=1)
    elapsed = time.monotonic() - started
    monkeypatch.undo()
    other.close()
    assert len(pauses) == 1  # the first attempt met the lock, the retry after it did not
    assert elapsed < 2.5, f"{elapsed:.2f} s"  # the busy timeout (5 s) was not waited out
    assert capsys.readouterr().err == ""
    assert [c["call_id"] for c in CallLog(path).calls()] == ["c1"]
