"""Output that is no terminal is written without Rich: the same words as Rich writes there, and the
same judgement of what a terminal is."""

from __future__ import annotations

import io
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import IO

import pytest

from atlas.foundation.errors import ErrorKind
from atlas.protocol.events import CallEvent, CallRecord, Phase, Retrying
from atlas.ui.board import CallBoard
from atlas.ui.denied import print_denied
from atlas.ui.plain import PlainConsole, Styled, looks_like_terminal, print_answer_source
from atlas.ui.render import make_console
from atlas.ui.status_lines import header
from atlas.ui.wait_line import WaitLine

Printer = Callable[[PlainConsole], None]


class StepClock:
    """A clock that moves 0.25 s each time it is read, so both renderings see the same times."""

    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        self.now += 0.25
        return self.now


def one_round(console: PlainConsole) -> None:
    board = CallBoard(console, live=False, clock=StepClock())
    board.start_round(1)
    for call_id, arguments, kind in (("a", {"issue_id": 41}, ErrorKind.OK), ("b", {"doc_id": "x\x1b[2J"}, "timeout")):
        board(CallEvent(Phase.STARTED, call_id, "get_issue", arguments, round=1, attempt=1))
        board(CallEvent(Phase.FINISHED, call_id, "get_issue", arguments, round=1, kind=ErrorKind(kind), ms=12.4))
    board.end_round()


def denied(console: PlainConsole) -> None:
    arguments = {"issue_id": 7, "label": "x" * 200}
    record = CallRecord(1, "c1", "add_label", arguments, ErrorKind.DENIED, 0.0, 1, approved=False, decided_by="rule:r")
    print_denied(console, [record])


LINES: dict[str, Printer] = {
    "header": lambda console: console.print(header("offline", read_only=False, dataset="Orbit\u202e", rules=2)),
    "a round of rows": one_round,
    "a retry": lambda console: WaitLine(console, live=False)(Retrying(2.0, "429 rate\nlimited", 2)),
    "what was not done": denied,
    "styled pieces": lambda console: console.print(
        Styled.assemble(("a", "bold"), " · ", ("b", "dim"), " ", ("", "bold"))
    ),
    "an empty line": lambda console: console.print(),
}


@contextmanager
def standard_output(stream: IO[str]) -> Iterator[None]:
    saved, sys.stdout = sys.stdout, stream
    try:
        yield
    finally:
        sys.stdout = saved


@pytest.mark.parametrize("name", sorted(LINES))
def test_plain_lines_are_the_words_rich_writes_to_a_pipe(name: str) -> None:
    rich_output, plain_output = io.StringIO(), io.StringIO()
    LINES[name](make_console(file=rich_output, width=160))  # type: ignore[arg-type]
    with standard_output(plain_output):
        LINES[name](PlainConsole())
    assert plain_output.getvalue() == rich_output.getvalue()
    assert "\x1b" not in plain_output.getvalue() and "\u202e" not in plain_output.getvalue()


def test_the_answer_source_is_written_whole_and_cleaned() -> None:
    out = io.StringIO()
    with standard_output(out):
        print_answer_source(PlainConsole(), "\n**Answer** \x1b]52;c;x\x07 " + "word " * 40 + "\n\n")
    assert out.getvalue() == "**Answer** \\x1b]52;c;x\\x07 " + ("word " * 40).strip() + "\n"


@pytest.mark.parametrize(
    "environ",
    [{}, {"FORCE_COLOR": "1"}, {"FORCE_COLOR": ""}, {"TTY_COMPATIBLE": "0"}, {"TTY_COMPATIBLE": "1"}],
    ids=["none", "force-color", "force-color-empty", "tty-compatible-0", "tty-compatible-1"],
)
@pytest.mark.parametrize("kind", ["pipe", "pseudo-terminal"])
def test_a_terminal_is_what_rich_takes_for_one(
    kind: str, environ: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    for name in ("FORCE_COLOR", "TTY_COMPATIBLE", "TTY_INTERACTIVE"):
        monkeypatch.delenv(name, raising=False)
    for name, value in environ.items():
        monkeypatch.setenv(name, value)
    reader, writer = os.pipe() if kind == "pipe" else os.openpty()
    with open(writer, "w", encoding="utf-8") as stream:
        try:
            assert looks_like_terminal(stream) == make_console(file=stream).is_terminal
        finally:
            os.close(reader)
