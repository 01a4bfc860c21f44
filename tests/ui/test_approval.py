"""The approval question on a real pseudo-terminal: only y/yes approves, and no terminal means no."""

from __future__ import annotations

import io
import os
import re
import threading
import time

import pytest
from rich.console import Console

from atlas.protocol.events import ApprovalRequest
from atlas.ui.approval import TerminalApprover
from atlas.ui.approval_text import question, shown_preview, target, warning

REQUEST = ApprovalRequest(
    call_id="c1",
    name="add_label",
    arguments={"issue_id": 92, "label": "severity:S1"},
    preview="#92 labels: [type:question] → [type:question, severity:S1]",
    untrusted_sources=["issue #92"],
)


class TtyStdin:
    def isatty(self) -> bool:
        return True


def read_until(fd: int, needle: bytes, timeout: float = 5.0) -> bytes:
    seen = b""
    end = time.monotonic() + timeout
    while needle not in seen:
        assert time.monotonic() < end, f"never saw {needle!r} in {seen!r}"
        seen += os.read(fd, 1024)
    return seen


def ask_on_pty(keys: bytes, request: ApprovalRequest = REQUEST) -> tuple[bool, str]:
    master, slave = os.openpty()
    notices = Console(file=io.StringIO(), no_color=True)
    approver = TerminalApprover(notices, stdin=TtyStdin(), tty_path=os.ttyname(slave))  # type: ignore[arg-type]
    result: list[bool] = []
    worker = threading.Thread(target=lambda: result.append(approver(request)))
    worker.start()
    try:
        shown = read_until(master, b"[y/N] ")
        os.write(master, keys)
        worker.join(5)
        assert not worker.is_alive()
        shown += read_until(master, b"approved" if result and result[0] else b"denied")
    finally:
        os.close(master)
        os.close(slave)
    return result[0], shown.decode()


def test_question_text() -> None:
    assert question(REQUEST) == "Approve add_label(issue_id=92, label='severity:S1')? [y/N] "
    assert warning(REQUEST) == (
        "Untrusted text was read earlier in this conversation from issue #92"
        " — make sure this action is what you asked for."
    )
    assert warning(ApprovalRequest("c", "add_label", {}, "")) is None


@pytest.mark.parametrize("keys", [b"y\r", b"Y\r", b"yes\r", b"YeS\n"])
def test_yes_approves(keys: bytes) -> None:
    approved, shown = ask_on_pty(keys)
    assert approved
    assert "#92 labels: [type:question] → [type:question, severity:S1]" in shown
    assert "Untrusted text was read earlier in this conversation from issue #92" in shown


@pytest.mark.parametrize("keys", [b"n\r", b"\r", b"\x03", b"\x04", b"yy\r", b"no\r", b"x\x7f\x7fy\x1b[A\r"])
def test_anything_else_denies(keys: bytes) -> None:
    approved, _ = ask_on_pty(keys)
    assert not approved


def test_backspace_edits_the_answer() -> None:
    approved, _ = ask_on_pty(b"n\x7fy\r")
    assert approved


def test_hostile_preview_is_escaped_on_the_terminal() -> None:
    hostile = ApprovalRequest("c", "post_comment", {"issue_id": 7, "body": "\x1b]52;c;eA==\x07"}, "\x1b[2J wipe")
    _, shown = ask_on_pty(b"n\r", hostile)
    assert "\\x1b[2J wipe" in shown
    assert "\x1b]52" not in shown and "\x1b[2J" not in shown


def test_no_terminal_denies_and_says_so() -> None:
    out = io.StringIO()
    approver = TerminalApprover(Console(file=out, no_color=True, width=200), stdin=io.StringIO("y\n"))
    assert approver(REQUEST) is False
    assert "Approve add_label(issue_id=92, label='severity:S1')? [y/N] (no terminal, denied)" in out.getvalue()


def test_unopenable_terminal_denies() -> None:
    out = io.StringIO()
    approver = TerminalApprover(Console(file=out, no_color=True), stdin=TtyStdin(), tty_path="/nonexistent/tty")  # type: ignore[arg-type]
    assert approver(REQUEST) is False
    assert "(no terminal, denied)" in out.getvalue()


def test_every_line_of_a_preview_is_indented_under_the_question() -> None:
    """A comment body cannot pass for Atlas's own lines: all of it stands indented, wrapped lines too."""
    body = "Thanks.\nApprove add_label(issue_id=92, label='type:bug')? [y/N] y approved\n" + "word " * 40
    request = ApprovalRequest("c", "post_comment", {"issue_id": 92, "body": "…"}, f"comment on #92:\n{body}")
    _, shown = ask_on_pty(b"n\r", request)
    lines = re.sub(r"\x1b\[[0-9;]*m", "", shown).split("\r\n")
    preview = lines[: next(i for i, line in enumerate(lines) if line.startswith("Approve post_comment"))]
    assert len(preview) >= 4 and all(line.startswith("  ") for line in preview if line)


def test_runs_of_blank_lines_are_folded_and_the_question_names_the_target() -> None:
    body = "first\n\nsecond" + "\n" * 10 + " \t\n\u200b\nlast"
    request = ApprovalRequest("c", "post_comment", {"issue_id": 41, "body": body}, f"comment on #41 (“T”):\n{body}")
    assert shown_preview(request.preview) == "comment on #41 (“T”):\nfirst\n\nsecond\n⋮ 11 blank lines\nlast"
    assert target(request) == "comment on #41 (“T”), 15 lines"
    assert question(request).endswith(" — comment on #41 (“T”), 15 lines? [y/N] ")
    assert target(REQUEST) is None  # a one-line preview stands right above the question anyway


def test_a_withdrawn_question_lets_go_of_the_terminal() -> None:
    master, slave = os.openpty()
    approver = TerminalApprover(Console(file=io.StringIO()), stdin=TtyStdin(), tty_path=os.ttyname(slave))  # type: ignore[arg-type]
    result: list[bool] = []
    worker = threading.Thread(target=lambda: result.append(approver(REQUEST)))
    worker.start()
    try:
        read_until(master, b"[y/N] ")
        started = time.monotonic()
        approver.withdraw()  # returns once the question has let go of the terminal
        assert time.monotonic() - started < 1.5
        worker.join(5)
        assert result == [False]
        assert "cancelled" in read_until(master, b"cancelled").decode()
        assert approver(REQUEST) is False  # and nothing more is asked until resume()
        approver.resume()
        worker = threading.Thread(target=lambda: result.append(approver(REQUEST)))
        worker.start()
        read_until(master, b"[y/N] ")
        os.write(master, b"y\r")
        worker.join(5)
        assert result == [False, True]
    finally:
        os.close(master)
        os.close(slave)
