"""Other processes, and this one's end: whether a process still runs, and cleanups that run on the
signals that would otherwise end Atlas without `atexit` (SIGTERM, SIGHUP, ...)."""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable
from types import FrameType
from typing import Any


def pid_alive(pid: int) -> bool:
    """The process is still running (a zombie waiting to be reaped has ended)."""
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True  # someone else's live process
    try:
        with open(f"/proc/{pid}/stat", "rb") as stat:
            return stat.read().rpartition(b")")[2].split()[0] != b"Z"
    except (OSError, IndexError):
        return True  # no /proc (macOS): kill(0) is all there is


class EndingSignals:
    """`cleanup` first on each of `signals`, then the signal goes on as it would have gone: to the
    handler that was there before, or ending the process by that signal (so the shell can tell)."""

    def __init__(self, cleanup: Callable[[], None], signals: tuple[signal.Signals, ...]) -> None:
        self.cleanup = cleanup
        self.signals = signals
        self.previous: dict[int, Any] = {}
        """The handler each guarded signal had before this one."""

    def guard(self) -> None:
        """From the main thread (elsewhere nothing); signals set to be ignored (`nohup`) stay ignored."""
        if threading.current_thread() is not threading.main_thread():
            return
        for signum in self.signals:
            current = signal.getsignal(signum)
            if current == self.ended_by or current == signal.SIG_IGN:
                continue
            self.previous[signum] = current
            signal.signal(signum, self.ended_by)

    def ended_by(self, signum: int, frame: FrameType | None) -> None:
        self.cleanup()
        previous = self.previous.get(signum)
        if callable(previous):
            previous(signum, frame)
            return
        signal.signal(signum, signal.SIG_DFL)
        os.kill(os.getpid(), signum)
