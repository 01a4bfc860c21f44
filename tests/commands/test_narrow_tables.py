"""Tables on an 80-column terminal, as `gh` lays them out: ids and dates whole, long cells cut with `…`."""

from __future__ import annotations

import os
import re
import sys
import time
from pathlib import Path

import pexpect

from atlas.calllog import CallLog
from atlas.orbit.db import IssueBrief
from atlas.protocol.events import CallRecord
from atlas.tracker.journal import MockTracker
from tests.support.run import invoke
from tests.ui.test_terminal import terminal_env

SESSION = "1130-120000-abcd"
ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def on_a_terminal(*args: str, columns: int = 80) -> list[str]:
    child = pexpect.spawn(
        sys.executable,
        ["-m", "atlas", *args],
        env=terminal_env(COLUMNS=str(columns)),
        encoding="utf-8",
        dimensions=(40, columns),
        timeout=30,
    )
    child.expect(pexpect.EOF)
    return [ANSI.sub("", line) for line in (child.before or "").splitlines() if line.strip()]


def test_the_log_fits_80_columns_with_whole_ids_and_times() -> None:
    home = Path(os.environ["ATLAS_HOME"])
    record = CallRecord(
        round=1,
        call_id="c1",
        name="search_issues",
        arguments={"query": "lease expiry on the postgres broker under load " * 3, "state": "open"},
        kind="ok",
        ms=12.0,
        attempts=1,
        ts=time.time(),
    )
    CallLog.at_home(home).record_call(record, session=SESSION, turn=1)
    lines = on_a_terminal("log")
    assert all(len(line) <= 80 for line in lines), lines
    row = next(line for line in lines if SESSION in line)  # the session id on one line, whole
    assert re.search(r"\d\d-\d\d \d\d:\d\d:\d\d", row) and "…" in row and "query=" in row
    assert len(lines) == 3  # header, rule, one row: nothing folded onto a second line
    # A wide terminal shows every column.
    wide = on_a_terminal("log", columns=160)
    assert "attempts" in wide[0] and len(wide) == 3


def test_a_long_comment_in_the_tracker_is_one_cut_line() -> None:
    home = Path(os.environ["ATLAS_HOME"])
    body = "\n".join(f"Line {number}: the lease expired again on worker w-{number}." for number in range(21))
    MockTracker(home).post_comment(
        IssueBrief(id=41, title="Nightly rebuild runs twice", labels=[]), body, key="k1", session=SESSION
    )
    lines = on_a_terminal("tracker")
    assert all(len(line) <= 80 for line in lines), lines
    assert len(lines) == 3
    row = lines[2]
    assert SESSION in row and "#41" in row and row.endswith("…") and "Line 0:" in row


QUESTION = "why does the nightly rebuild run twice when the lease expires on the postgres broker?"
QUERY = "lease expiry on the postgres broker under load with forty workers and renewals switched off"


def _long_call() -> None:
    home = Path(os.environ["ATLAS_HOME"])
    log = CallLog.at_home(home)
    record = CallRecord(
        round=1, call_id="c1", name="search_issues", arguments={"query": QUERY}, kind="ok", ms=12.0, attempts=1,
        ts=time.time(),
    )  # fmt: skip
    log.record_call(record, session=SESSION, turn=1)
    log.record_turn(session=SESSION, turn=1, question=QUESTION, answer="…", model="offline", rounds=1)


def test_a_pipe_gets_every_log_cell_whole() -> None:
    _long_call()
    done = invoke("log", env=terminal_env())
    assert done.returncode == 0, done.stderr
    assert QUESTION in done.stdout and QUERY in done.stdout and "…" not in done.stdout, done.stdout


def test_between_110_and_150_columns_the_tool_and_its_arguments_stay_readable() -> None:
    _long_call()
    for columns in (110, 129, 130, 149):
        lines = on_a_terminal("log", columns=columns)
        assert all(len(line) <= columns for line in lines), lines
        assert len(lines) == 3, lines  # header, rule, one row: nothing folded, nothing lost off the edge
        row = next(line for line in lines if SESSION in line)
        assert "│ search_issues │ query='lease ex" in row and "│ ok " in row and "│ 12" in row, (columns, row)
