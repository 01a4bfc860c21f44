"""The y/N question before a side effect, asked on the controlling terminal and nowhere else.

Only a person at the terminal can approve: the answer is read from `/dev/tty`, never from
standard input, so `printf 'y\\n' | atlas ask ...` approves nothing. Only `y` or `yes` approves;
Enter, anything else, Ctrl-C and Ctrl-D deny. The executor asks from worker threads, so one
lock keeps two questions from sharing the terminal.
"""

from __future__ import annotations

import atexit
import contextlib
import io
import os
import sys
import termios
import threading
from collections.abc import Callable, Iterator
from contextlib import AbstractContextManager
from typing import IO, Any

from rich.console import Console
from rich.padding import Padding
from rich.text import Text

from atlas.events import ApprovalRequest
from atlas.ui.safe import call_label, clean

_TERMINAL = threading.Lock()
_RESTORE: dict[int, list[Any]] = {}
"""Terminal modes to put back, by descriptor, for questions being asked right now."""
_CTRL_C, _CTRL_D, _BACKSPACE, _DELETE = 0x03, 0x04, 0x08, 0x7F
_ANSWER_LIMIT = 32
YES = frozenset({"y", "yes"})


def question(request: ApprovalRequest) -> str:
    """`Approve add_label(issue_id=92, label='severity:S1')? [y/N] `."""
    return f"Approve {call_label(request.name, request.arguments, limit=200)}? [y/N] "


def warning(request: ApprovalRequest) -> str | None:
    """The caution shown when outsiders' text, read earlier in this conversation, may be what asks for this."""
    if not request.untrusted_sources:
        return None
    sources = ", ".join(request.untrusted_sources)
    return (
        f"Untrusted text was read earlier in this conversation from {sources}"
        " — make sure this action is what you asked for."
    )


@contextlib.contextmanager
def answer_mode(fd: int) -> Iterator[None]:
    """The terminal in non-canonical mode without signals, restored afterwards.

    Ctrl-C then arrives as a key (a denial) instead of interrupting the whole run, and input
    typed ahead is discarded, so nothing pressed before the question was shown can answer it.
    The mode is set before the question is drawn, so nothing typed after it is lost.
    """
    saved = termios.tcgetattr(fd)
    mode = termios.tcgetattr(fd)
    mode[3] &= ~(termios.ICANON | termios.ECHO | termios.ISIG)
    mode[6][termios.VMIN] = 1
    mode[6][termios.VTIME] = 0
    _RESTORE[fd] = saved
    termios.tcsetattr(fd, termios.TCSAFLUSH, mode)
    try:
        yield
    finally:
        _RESTORE.pop(fd, None)
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


@atexit.register
def _restore_terminal() -> None:
    """A question still open when the process ends (its thread abandoned) must not leave the terminal mute."""
    for fd, saved in list(_RESTORE.items()):
        with contextlib.suppress(OSError, termios.error):
            termios.tcsetattr(fd, termios.TCSANOW, saved)


def read_answer(fd: int) -> str | None:
    """One line typed at the terminal (in `answer_mode`), echoed; None for Ctrl-C, Ctrl-D or EOF."""
    typed: list[str] = []
    while True:
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


def is_yes(answer: str | None) -> bool:
    return answer is not None and answer.strip().lower() in YES


class TerminalApprover:
    """Asks a person at the controlling terminal; denies whenever there is none."""

    def __init__(
        self,
        notices: Console,
        *,
        pause: Callable[[], AbstractContextManager[None]] | None = None,
        stdin: IO[str] | None = None,
        tty_path: str = "/dev/tty",
    ) -> None:
        self.notices = notices
        self.pause = pause or contextlib.nullcontext
        self.stdin = stdin
        self.tty_path = tty_path

    def __call__(self, request: ApprovalRequest) -> bool:
        with _TERMINAL, self.pause():
            fd = self._open_terminal()
            if fd is None:
                self.notices.print(Text(f"{question(request)}(no terminal, denied)", style="yellow"))
                return False
            try:
                return self._ask(fd, request)
            finally:
                os.close(fd)

    def _open_terminal(self) -> int | None:
        stdin = self.stdin if self.stdin is not None else sys.stdin
        try:
            if stdin is None or not stdin.isatty():
                return None
            return os.open(self.tty_path, os.O_RDWR | os.O_NOCTTY)
        except (OSError, ValueError):
            return None

    def _ask(self, fd: int, request: ApprovalRequest) -> bool:
        out = io.TextIOWrapper(io.FileIO(fd, "w", closefd=False), encoding="utf-8", errors="replace")
        screen = Console(file=out, highlight=False, markup=False, emoji=False)
        try:
            with answer_mode(fd):
                # Indented to the last wrapped line: a comment body cannot pass for Atlas's own lines.
                if request.preview:
                    screen.print(Padding(Text(clean(request.preview)), (0, 0, 0, 2), expand=False))
                caution = warning(request)
                if caution:
                    screen.print(Padding(Text("! " + clean(caution), style="bold yellow"), (0, 0, 0, 2), expand=False))
                screen.print(Text(question(request), style="bold"), end="")
                out.flush()
                approved = is_yes(read_answer(fd))
            screen.print(Text(" approved" if approved else " denied", style="green" if approved else "yellow"))
            out.flush()
            return approved
        except (OSError, termios.error):
            return False
        finally:
            with contextlib.suppress(Exception):
                out.detach()
