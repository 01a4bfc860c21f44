"""Every MCP server Atlas started is ended when Atlas ends, however it ends.

Each server runs in a process group of its own. The host stops its servers politely (stdin closed,
then SIGTERM, then SIGKILL) on its event loop; this module is the floor under that: it knows every
group still alive and ends them from any thread, without the loop — at exit (a normal end, an
error, Ctrl-C) and on SIGTERM and SIGHUP, which would otherwise end Atlas without running `atexit`.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import signal
import threading
import time

from atlas.foundation.processes import EndingSignals, pid_alive

_LIVE: set[int] = set()
"""Process-group ids of servers started and not yet seen to end."""
_LOCK = threading.Lock()
ENDING_SIGNALS = (signal.SIGTERM, signal.SIGHUP)
TERM_GRACE_S = 1.0
"""After SIGTERM, how long the servers get before SIGKILL."""


def started(pgid: int) -> None:
    with _LOCK:
        _LIVE.add(pgid)


def ended(pgid: int) -> None:
    with _LOCK:
        _LIVE.discard(pgid)


def live() -> set[int]:
    with _LOCK:
        return set(_LIVE)


def _signal(pgid: int, signum: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signum)


def end_all(grace_s: float = TERM_GRACE_S, only: set[int] | None = None) -> None:
    """SIGTERM to every live server group (or those of `only`), SIGKILL to what is left after `grace_s`."""
    groups = live() if only is None else live() & only
    if not groups:
        return
    for pgid in groups:
        _signal(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace_s
    while any(pid_alive(pgid) for pgid in groups) and time.monotonic() < deadline:
        time.sleep(0.02)
    for pgid in groups:
        _signal(pgid, signal.SIGKILL)  # the group: children a server left behind go too
        ended(pgid)


atexit.register(end_all)
_ENDING = EndingSignals(end_all, ENDING_SIGNALS)


def guard_signals() -> None:
    """From the main thread: SIGTERM and SIGHUP end the servers before they end Atlas (or reach the
    handler that was there). Signals set to be ignored (`nohup`) stay ignored."""
    _ENDING.guard()
