"""The y/N question before a side effect, asked on the controlling terminal and nowhere else.

Only a person at the terminal can approve: the answer is read from `/dev/tty`, never from
standard input, so `printf 'y\\n' | atlas ask ...` approves nothing. Only `y` or `yes` approves;
Enter, anything else, Ctrl-C and Ctrl-D deny. The executor asks from worker threads, so one
lock keeps two questions from sharing the terminal.
"""

from __future__ import annotations

import contextlib
import dataclasses
import io
import os
import select
import sys
import termios
import threading
from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import IO, TYPE_CHECKING

from atlas.foundation.sanitize import clean, clean_line
from atlas.protocol.events import ApprovalRequest
from atlas.ui.approval_text import (
    batch_question,
    batch_warning,
    chosen,
    is_yes,
    question,
    shown_preview,
    warning,
)
from atlas.ui.plain import PlainConsole, Styled
from atlas.ui.safe import call_label
from atlas.ui.tty_modes import answer_mode, guard_signals

if TYPE_CHECKING:
    from rich.console import Console

_TERMINAL = threading.Lock()
_CTRL_C, _CTRL_D, _BACKSPACE, _DELETE = 0x03, 0x04, 0x08, 0x7F
_ANSWER_LIMIT = 32
EDIT_HINT = "e: edit the text in $VISUAL/$EDITOR first; you are then asked about the edited text"


def edited(screen: Console, fd: int, request: ApprovalRequest) -> ApprovalRequest:
    """The request for the text the person wrote in their editor; the same request when that fails."""
    from atlas.ui.editor import edit_in_editor  # shutil and tempfile: only when a person edits a text

    assert request.edit is not None
    text = edit_in_editor(request.editable_text or "", fd)
    if text is None:
        screen.print(Styled("The editor did not finish; the text is unchanged.", style="yellow"))
        return request
    try:
        again = request.edit(text)
    except Exception as exc:  # a text the tool would refuse is never shown for approval
        screen.print(Styled(f"The edited text cannot be used ({clean_line(exc)}); it is unchanged.", style="yellow"))
        return request
    # The sources of untrusted text stay named: the edit does not make the request any safer.
    return dataclasses.replace(
        again,
        untrusted_sources=request.untrusted_sources,
        note=request.note,
        scopes=request.scopes,
        grant=request.grant,
        decided_by=request.decided_by,
    )


def open_terminal(stdin: IO[str] | None, tty_path: str) -> int | None:
    """A descriptor of the controlling terminal to ask on, or None when standard input is no terminal."""
    stdin = stdin if stdin is not None else sys.stdin
    try:
        if stdin is None or not stdin.isatty():
            return None
        return os.open(tty_path, os.O_RDWR | os.O_NOCTTY)
    except (OSError, ValueError):
        return None


def read_answer(fd: int, wake: int | None = None) -> str | None:
    """One line typed at the terminal (in `answer_mode`), echoed; None for Ctrl-C, Ctrl-D, EOF,
    or when `wake` becomes readable (the question was withdrawn)."""
    typed: list[str] = []
    watched = select.poll()  # not select(): a descriptor above 1023 is fine here
    for each in (fd, wake):
        if each is not None:
            watched.register(each, select.POLLIN)
    while True:
        if any(ready == wake for ready, _ in watched.poll()):
            return None
        chunk = os.read(fd, 1)
        if not chunk:
            return None
        byte = chunk[0]
        if byte in (_CTRL_C, _CTRL_D):
            return None
        if byte in (0x0A, 0x0D):
            return "".join(typed)
        if byte in (_BACKSPACE, _DELETE):
            if typed:
                typed.pop()
                os.write(fd, b"\b \b")
        elif 0x20 <= byte < 0x7F and len(typed) < _ANSWER_LIMIT:
            typed.append(chr(byte))
            os.write(fd, chunk)
        elif byte >= 0x80 and len(typed) < _ANSWER_LIMIT:
            # Part of a non-ASCII character: not an answer we accept, and not echoed raw.
            typed.append("?")


def _decided(requests: Sequence[ApprovalRequest], who: str) -> None:
    for request in requests:
        request.decided_by.append(who)


def scope_hint(request: ApprovalRequest) -> str | None:
    """`s: allow ...  ·  p: allow ...`: the scopes offered besides y/N, each saying exactly what it allows."""
    if request.grant is None or not request.scopes:
        return None
    return "\n".join(f"{SCOPE_KEYS[scope]}: approve, and allow {what}" for scope, what in request.scopes)


SCOPE_KEYS = {"session": "s", "project": "p"}


class TerminalApprover:
    """Asks a person at the controlling terminal; denies whenever there is none.

    `withdraw` ends an open question (a denial) and denies every later one until `resume`:
    when a chat's turn is cancelled, no reader may stay on the terminal and take the keys
    meant for the prompt, and no question of that turn may still appear.
    """

    def __init__(
        self,
        notices: Console | PlainConsole,
        *,
        pause: Callable[[], AbstractContextManager[None]] | None = None,
        stdin: IO[str] | None = None,
        tty_path: str = "/dev/tty",
    ) -> None:
        self.notices = notices
        self.pause = pause or contextlib.nullcontext
        self.stdin = stdin
        self.tty_path = tty_path
        self.withdrawn = False
        self._wake_read, self._wake_write = os.pipe()
        os.set_blocking(self._wake_read, False)
        os.set_blocking(self._wake_write, False)
        guard_signals()

    def withdraw(self, wait_s: float = 2.0) -> None:
        """Deny the open question and every later one; return once the terminal is given back."""
        self.withdrawn = True
        with contextlib.suppress(BlockingIOError):
            os.write(self._wake_write, b"x")
        if _TERMINAL.acquire(timeout=wait_s):
            _TERMINAL.release()

    def resume(self) -> None:
        """Ask again from now on (a new turn)."""
        self.withdrawn = False

    def __call__(self, request: ApprovalRequest) -> bool:
        with _TERMINAL, self.pause():
            # Emptied before the check: a withdrawal after it leaves its byte to wake the reader.
            with contextlib.suppress(BlockingIOError):
                while os.read(self._wake_read, 64):
                    pass
            if self.withdrawn:
                request.decided_by.append("cancelled")
                return False
            fd = self._open_terminal()
            if fd is None:
                request.decided_by.append("no-terminal")
                # One line, however long: a reader (or grep) sees the question and its outcome together.
                self.notices.print(Styled(f"{question(request)}(no terminal, denied)", style="yellow"), soft_wrap=True)
                return False
            try:
                return self._question_on_terminal(fd, request)
            finally:
                os.close(fd)

    def decide(self, requests: Sequence[ApprovalRequest]) -> set[str]:
        """The call ids approved: one request gets the usual question, several one numbered list and one answer."""
        if len(requests) == 1:
            return {requests[0].call_id} if self(requests[0]) else set()
        if not requests:
            return set()
        with _TERMINAL, self.pause():
            with contextlib.suppress(BlockingIOError):
                while os.read(self._wake_read, 64):
                    pass
            if self.withdrawn:
                _decided(requests, "cancelled")
                return set()
            fd = self._open_terminal()
            if fd is None:
                _decided(requests, "no-terminal")
                self.notices.print(
                    Styled(f"{batch_question(requests)}(no terminal, all {len(requests)} denied)", style="yellow"),
                    soft_wrap=True,
                )
                return set()
            try:
                numbers = self._ask_batch(fd, requests)
            finally:
                os.close(fd)
            _decided(requests, "cancelled" if self.withdrawn else "person")
        return {requests[number - 1].call_id for number in numbers}

    def _ask_batch(self, fd: int, requests: Sequence[ApprovalRequest]) -> set[int]:
        from rich.padding import Padding
        from rich.text import Text

        from atlas.ui.render import make_console  # Rich: only when a person is asked

        out = io.TextIOWrapper(io.FileIO(fd, "w", closefd=False), encoding="utf-8", errors="replace")
        screen = make_console(file=out)
        try:
            with answer_mode(fd):
                for number, request in enumerate(requests, start=1):
                    screen.print(Text(f"{number}. {call_label(request.name, request.arguments, limit=200)}"))
                    # Indented to the last wrapped line: a comment body cannot pass for Atlas's own lines.
                    if request.preview:
                        screen.print(Padding(Text(shown_preview(request.preview)), (0, 0, 0, 4), expand=False))
                caution = batch_warning(requests)
                if caution:
                    screen.print(Padding(Text("! " + clean(caution), style="bold yellow"), (0, 0, 0, 2), expand=False))
                screen.print(Text(batch_question(requests), style="bold"), end="", soft_wrap=True)
                out.flush()
                numbers = chosen(read_answer(fd, self._wake_read), len(requests))
                if self.withdrawn:
                    numbers = set()
            if self.withdrawn:
                outcome = "cancelled"
            elif not numbers:
                outcome = "all denied"
            elif len(numbers) == len(requests):
                outcome = "all approved"
            else:
                outcome = f"approved {', '.join(str(n) for n in sorted(numbers))}; denied the others"
            screen.print(Text(f" {outcome}", style="green" if numbers else "yellow"))
            out.flush()
            return numbers
        except (OSError, termios.error):
            return set()
        finally:
            with contextlib.suppress(Exception):
                out.detach()

    def _open_terminal(self) -> int | None:
        return open_terminal(self.stdin, self.tty_path)

    def _question_on_terminal(self, fd: int, request: ApprovalRequest) -> bool:
        from atlas.ui.render import make_console  # Rich: only when a person is asked

        out = io.TextIOWrapper(io.FileIO(fd, "w", closefd=False), encoding="utf-8", errors="replace")
        screen = make_console(file=out)
        try:
            while True:
                with answer_mode(fd):
                    self._show(screen, request)
                    out.flush()
                    answer = read_answer(fd, self._wake_read)
                typed = (answer or "").strip().lower()
                if request.edit is not None and typed == "e" and not self.withdrawn:
                    screen.print(Styled(" editing…", style="dim"))
                    request = edited(screen, fd, request)
                    continue
                granted = self._granted(screen, request, typed)
                if granted is False:
                    continue
                approved = (is_yes(answer) or granted is True) and not self.withdrawn
                break
            request.decided_by.append("cancelled" if self.withdrawn else "person")
            outcome = "approved" if approved else ("cancelled" if self.withdrawn else "denied")
            screen.print(Styled(f" {outcome}", style="green" if approved else "yellow"))
            out.flush()
            return approved
        except (OSError, termios.error):
            return False
        finally:
            with contextlib.suppress(Exception):
                out.detach()

    def _granted(self, screen: Console, request: ApprovalRequest, typed: str) -> bool | None:
        """True when `typed` chose an offered scope and it was granted; False when granting failed
        (the question is asked again); None when it chose no scope."""
        scope = next((name for name, _ in request.scopes if SCOPE_KEYS.get(name) == typed), None)
        if scope is None or request.grant is None or self.withdrawn:
            return None
        try:
            told = request.grant(scope, request)
        except Exception as exc:  # a rule that cannot be written approves nothing: ask again
            screen.print(Styled(f" not allowed: {clean_line(exc)}", style="yellow"))
            return False
        screen.print(Styled(f" {clean_line(told)}", style="dim"))
        return True

    @staticmethod
    def _show(screen: Console, request: ApprovalRequest) -> None:
        from rich.padding import Padding
        from rich.text import Text

        # Indented to the last wrapped line: a comment body cannot pass for Atlas's own lines.
        if request.preview:
            screen.print(Padding(Text(shown_preview(request.preview)), (0, 0, 0, 2), expand=False))
        caution = warning(request)
        if caution:
            screen.print(Padding(Text("! " + clean(caution), style="bold yellow"), (0, 0, 0, 2), expand=False))
        if request.note:
            screen.print(Padding(Text(clean(request.note), style="yellow"), (0, 0, 0, 2), expand=False))
        hint = scope_hint(request)
        if hint:
            screen.print(Padding(Text(clean(hint), style="dim"), (0, 0, 0, 2), expand=False))
        if request.edit is not None:
            screen.print(Padding(Text(EDIT_HINT, style="dim"), (0, 0, 0, 2), expand=False))
        # Left to the terminal to wrap: `[y/N]` stays on the line of the question it ends.
        screen.print(Text(question(request), style="bold"), end="", soft_wrap=True)
