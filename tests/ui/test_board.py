"""The call board: rows settle one by one, rounds sum up, and a pipe gets plain lines."""

from __future__ import annotations

import io
import time
from typing import Any

from rich.console import Console

from atlas.foundation.errors import ErrorKind
from atlas.protocol.events import CallEvent, Phase
from atlas.ui.board import CallBoard
from tests.ui.screen import screen


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


def capture(*, terminal: bool = False) -> tuple[Console, io.StringIO]:
    out = io.StringIO()
    return Console(file=out, width=100, force_terminal=terminal, no_color=True, markup=False), out


def event(
    phase: Phase,
    call_id: str,
    name: str = "get_issue",
    *,
    arguments: dict[str, Any] | None = None,
    attempt: int = 0,
    kind: str | None = None,
    ms: float | None = None,
    attempts: int = 0,
) -> CallEvent:
    return CallEvent(
        phase=phase,
        call_id=call_id,
        name=name,
        arguments={"issue_id": 41} if arguments is None else arguments,
        round=1,
        attempt=attempt,
        kind=kind,
        ms=ms,
        attempts=attempts,
    )


def text_of(board: CallBoard) -> str:
    console, out = capture()
    console.print(board.render_current())
    return out.getvalue()


def test_fast_row_settles_while_slow_sibling_runs() -> None:
    clock = Clock()
    console, _ = capture()
    board = CallBoard(console, live=True, clock=clock)
    board.rounds.clear()
    board(event(Phase.QUEUED, "fast"))
    board(event(Phase.QUEUED, "slow", name="search_issues", arguments={"query": "lease"}))
    board(event(Phase.STARTED, "fast", attempt=1))
    board(event(Phase.STARTED, "slow", name="search_issues", arguments={"query": "lease"}, attempt=1))
    clock.now += 0.012
    board(event(Phase.FINISHED, "fast", kind=ErrorKind.OK, ms=12.0, attempts=1))
    clock.now += 1.5
    shown = text_of(board)
    fast, slow = (line for line in shown.splitlines() if line.strip())
    assert "get_issue(issue_id=41)" in fast and "ok" in fast and "12 ms" in fast
    assert "search_issues(query='lease')" in slow and "running" in slow and "1.5 s" in slow
    assert "round 1" not in shown


def test_round_summary_shows_wall_time_beside_sum_of_calls() -> None:
    clock = Clock()
    console, out = capture()
    board = CallBoard(console, live=False, clock=clock)
    board.start_round(1)
    for call_id in ("a", "b"):
        board(event(Phase.STARTED, call_id, attempt=1))
    clock.now += 2.0
    board(event(Phase.FINISHED, "a", kind=ErrorKind.OK, ms=2000.0, attempts=1))
    board(event(Phase.FINISHED, "b", kind=ErrorKind.TIMEOUT, ms=2010.0, attempts=1))
    board.end_round()
    assert "round 1: 2.00 s wall, 4.01 s of calls, 2.0× parallel" in out.getvalue()


def test_a_single_call_takes_as_long_as_the_round() -> None:
    """The event comes after the call is logged: that write is not time the call ran."""
    clock = Clock()
    console, out = capture()
    board = CallBoard(console, live=False, clock=clock)
    board.start_round(1)
    board(event(Phase.STARTED, "a", attempt=1))
    clock.now += 0.030  # 4 ms of call, then 26 ms of writing the call log
    board(event(Phase.FINISHED, "a", kind=ErrorKind.OK, ms=4.0, attempts=1))
    board.end_round()
    assert "round 1: 0.00 s wall, 0.00 s of calls\n" in out.getvalue()


def test_time_waiting_for_approval_is_not_wall_time() -> None:
    clock = Clock()
    console, out = capture()
    board = CallBoard(console, live=False, clock=clock)
    board.start_round(1)
    board(event(Phase.STARTED, "read", attempt=1))
    board(event(Phase.AWAITING_APPROVAL, "write", "add_label"))
    clock.now += 0.5
    board(event(Phase.FINISHED, "read", kind=ErrorKind.OK, ms=500.0, attempts=1))
    clock.now += 3.0  # the person thinks
    board(event(Phase.APPROVED, "write", "add_label"))
    board(event(Phase.STARTED, "write", "add_label", attempt=1))
    clock.now += 0.5
    board(event(Phase.FINISHED, "write", "add_label", kind=ErrorKind.OK, ms=500.0, attempts=1))
    board.end_round()
    assert "round 1: 1.00 s wall, 1.00 s of calls\n" in out.getvalue()


def test_plain_mode_prints_one_line_per_finished_call_and_no_codes() -> None:
    clock = Clock()
    console, out = capture()
    board = CallBoard(console, clock=clock)
    assert board.live is False
    board.start_round(1)
    board(event(Phase.QUEUED, "a"))
    board(event(Phase.STARTED, "a", attempt=1))
    assert out.getvalue() == ""
    board(event(Phase.RETRYING, "a", attempt=1))
    board(event(Phase.FINISHED, "a", kind=ErrorKind.TRANSIENT, ms=812.0, attempts=2))
    lines = out.getvalue().splitlines()
    assert len(lines) == 1
    assert "get_issue(issue_id=41)" in lines[0] and "transient" in lines[0] and "812 ms" in lines[0]
    assert "2 attempts" in lines[0]
    board(event(Phase.FINISHED, "a", kind=ErrorKind.OK, ms=1.0, attempts=1))
    assert len(out.getvalue().splitlines()) == 1
    board.end_round()
    assert "\x1b" not in out.getvalue()
    assert "⠋" not in out.getvalue()


def test_hostile_arguments_are_shown_escaped() -> None:
    console, out = capture()
    board = CallBoard(console, live=False, clock=Clock())
    board.start_round(1)
    hostile = {"query": "\x1b]52;c;cm0=\x07[link=https://evil.example]x[/link]"}
    board(event(Phase.FINISHED, "a", name="search_issues", arguments=hostile, kind=ErrorKind.OK, ms=3.0, attempts=1))
    shown = out.getvalue()
    assert "\x1b" not in shown and "\x07" not in shown
    assert "[link=https://evil.example]x[/link]" in shown


def test_cancelled_round_settles_unfinished_rows() -> None:
    clock = Clock()
    console, out = capture()
    board = CallBoard(console, live=False, clock=clock)
    board.start_round(1)
    board(event(Phase.STARTED, "slow", attempt=1))
    clock.now += 0.5
    board.end_round(cancelled=True)
    assert "cancelled" in out.getvalue() and "500 ms" in out.getvalue()


def test_live_board_pauses_and_resumes() -> None:
    console, out = capture(terminal=True)
    board = CallBoard(console, live=True, refresh_per_second=20)
    board.start_round(1)
    board(event(Phase.STARTED, "a", attempt=1))
    with board.paused():
        assert board._live is not None and not board._live.is_started
    assert board._live is not None and board._live.is_started
    board(event(Phase.FINISHED, "a", kind=ErrorKind.OK, ms=5.0, attempts=1))
    board.end_round()
    assert board._live is None
    final = out.getvalue()
    assert "round 1:" in final and "ok" in final


def test_a_question_asked_during_a_pause_stays_on_screen() -> None:
    console, out = capture(terminal=True)
    board = CallBoard(console, live=True, refresh_per_second=50)
    board.start_round(1)
    board(event(Phase.STARTED, "read", attempt=1))
    board(event(Phase.AWAITING_APPROVAL, "write", "add_label"))
    time.sleep(0.1)
    with board.paused():
        console.print("Approve add_label(issue_id=41)? [y/N] y approved")
    board(event(Phase.FINISHED, "read", kind=ErrorKind.OK, ms=5.0, attempts=1))
    time.sleep(0.1)
    board(event(Phase.FINISHED, "write", "add_label", kind=ErrorKind.OK, ms=3.0, attempts=1))
    board.end_round()
    shown = [line for line in screen(out.getvalue()) if line]
    assert shown[0] == "Approve add_label(issue_id=41)? [y/N] y approved"
    assert "get_issue(issue_id=41)" in shown[1] and "add_label(issue_id=41)" in shown[2]
    assert shown[3].startswith("round 1:") and len(shown) == 4
