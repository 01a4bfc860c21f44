"""The terminal modes Atlas changes, and putting them back on every way out.

An approval question turns echo, line editing and signal keys off; the chat prompt puts the
terminal in raw mode. A normal end or an exception restores the mode in a `finally` block, and
a question still open at interpreter exit (Ctrl-C ended the run) is restored at exit. SIGTERM
and SIGHUP end the process without either, which left a mute terminal behind: `guard_signals`
restores every mode first, then lets the signal end the process as it would have (status
143 or 129 for the shell), or hands it to the handler that was there before.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import termios
from collections.abc import Iterator
from typing import Any

from atlas.foundation.processes import EndingSignals

_OPEN: dict[int, list[Any]] = {}
"""Modes to put back, by descriptor, for questions being asked right now."""
_AT_START: dict[int, list[Any]] = {}
"""The mode each guarded terminal had when Atlas first touched it."""
FATAL_SIGNALS = (signal.SIGTERM, signal.SIGHUP, signal.SIGQUIT)


@contextlib.contextmanager
def answer_mode(fd: int) -> Iterator[None]:
    """The terminal in non-canonical mode without echo or signals, restored afterwards.

    Ctrl-C then arrives as a key (a denial) instead of interrupting the whole run, and input
    typed ahead is discarded, so nothing pressed before the question was shown can answer it.
    The mode is set before the question is drawn, so nothing typed after it is lost.
    """
    saved = termios.tcgetattr(fd)
    mode = termios.tcgetattr(fd)
    mode[3] &= ~(termios.ICANON | termios.ECHO | termios.ISIG)
    mode[6][termios.VMIN] = 1
    mode[6][termios.VTIME] = 0
    _OPEN[fd] = saved
    try:
        termios.tcsetattr(fd, termios.TCSAFLUSH, mode)
        yield
    finally:
        _OPEN.pop(fd, None)
        termios.tcsetattr(fd, termios.TCSADRAIN, saved)


@atexit.register
def restore_all() -> None:
    """Every mode Atlas changed, back as it was: open questions first, then the modes at start."""
    for fd, saved in [*list(_OPEN.items()), *list(_AT_START.items())]:
        with contextlib.suppress(OSError, termios.error):
            # Only when changed: setting it from a background job would stop the process (SIGTTOU).
            if termios.tcgetattr(fd) != saved:
                termios.tcsetattr(fd, termios.TCSANOW, saved)


_ENDING = EndingSignals(restore_all, FATAL_SIGNALS)
"""As if we had never caught them: once restored, the process ends by the signal, and the shell can tell."""


def guard_signals(fd: int | None = None) -> None:
    """From the main thread: SIGTERM, SIGHUP and SIGQUIT restore the terminal before they end Atlas.

    `fd`, a terminal, has its current mode remembered as the one to restore. Signals the parent
    set to be ignored (`nohup`) stay ignored; from another thread this only remembers `fd`.
    """
    if fd is not None and fd not in _AT_START:
        with contextlib.suppress(OSError, termios.error):
            if os.isatty(fd):
                _AT_START[fd] = termios.tcgetattr(fd)
    _ENDING.guard()
