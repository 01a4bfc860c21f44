"""Every table keyed by error kind covers every kind: a new kind fails here until each table has it."""

from __future__ import annotations

import json
import sqlite3
from pathlib import Path

import pytest

from atlas.calllog import CallLog
from atlas.foundation.errors import HINTS, WITHOUT_HINT, ErrorKind
from atlas.offline.answer.render import KIND_SAYS
from atlas.protocol.events import CallRecord
from atlas.ui.board import KIND_STYLES, MARKS

EVERY_KIND = frozenset(ErrorKind)


def test_hints_cover_every_kind_but_ok() -> None:
    assert {ErrorKind.OK} == WITHOUT_HINT
    assert set(HINTS) == EVERY_KIND - WITHOUT_HINT
    assert all(hint.strip() for hint in HINTS.values())


@pytest.mark.parametrize("table", [KIND_STYLES, MARKS], ids=["KIND_STYLES", "MARKS"])
def test_the_board_has_a_style_and_a_mark_for_every_kind(table: dict[ErrorKind, str]) -> None:
    assert set(table) == EVERY_KIND
    assert all(isinstance(key, ErrorKind) for key in table)


def test_the_offline_planner_words_every_failure_kind() -> None:
    # OK is never reported as a failure, so it has no wording.
    assert set(KIND_SAYS) == EVERY_KIND - {ErrorKind.OK}
    assert all(isinstance(key, ErrorKind) for key in KIND_SAYS)


def test_the_newest_kind_is_in_every_table() -> None:
    for table in (HINTS, KIND_STYLES, MARKS, KIND_SAYS):
        assert ErrorKind.PROTOCOL in table


def test_kinds_read_back_from_the_log_are_error_kinds_and_print_as_plain_text(tmp_path: Path) -> None:
    log = CallLog(tmp_path / "log.db")
    for number, kind in enumerate((ErrorKind.OK, ErrorKind.TIMEOUT, ErrorKind.PROTOCOL)):
        record = CallRecord(
            round=1, call_id=f"c{number}", name="get_issue", arguments={}, kind=kind, ms=1.0, attempts=1
        )
        log.record_call(record, session="s", turn=1)
    calls = log.calls(kind=ErrorKind.TIMEOUT)
    assert [type(call["kind"]) for call in calls] == [ErrorKind]
    assert json.loads(json.dumps(calls[0]))["kind"] == "timeout"
    assert '"kind": "timeout"' in json.dumps(calls[0])
    stats = log.stats()[0]
    assert all(isinstance(kind, ErrorKind) for kind in stats["kinds"])
    assert json.dumps(stats["kinds"]) == '{"ok": 1, "protocol": 1, "timeout": 1}'


def test_a_row_naming_no_kind_reads_as_unknown(tmp_path: Path) -> None:
    """The file is outside Atlas's control: a foreign kind neither crashes the read nor passes as a kind."""
    log = CallLog(tmp_path / "log.db")
    log.record_call(
        CallRecord(round=1, call_id="c0", name="get_issue", arguments={}, kind=ErrorKind.OK, ms=1.0, attempts=1),
        session="s",
        turn=1,
    )
    with sqlite3.connect(tmp_path / "log.db") as conn:
        conn.execute("UPDATE calls SET kind = 'exploded'")
    conn.close()
    assert [call["kind"] for call in CallLog(tmp_path / "log.db").calls()] == [ErrorKind.UNKNOWN]
