"""The `serial` marker: a test that measures wall time runs with no other test of this run beside it.

Under pytest-xdist every test holds a shared lock on a file of the run for as long as it runs; a
`serial` test takes it exclusively, so it starts once the other workers' current tests end and
none starts beside it. A turnstile taken before either lock lets a waiting `serial` test in ahead
of tests queued after it, so it is never starved. Without xdist there is nothing to wait for.

The `serial` tests are collected first (`conftest.py`), so the first worker's share of the tests
begins with all of them, one after another (a worker that runs out steals from the end of a
share, never its start); that worker keeps the lock from the first of them to the last
(`WorkerShare`): the other workers empty their hands once for all of them, not once for each.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
from collections.abc import Iterator
from pathlib import Path


@contextlib.contextmanager
def _flock(path: Path, mode: int) -> Iterator[None]:
    fd = os.open(path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, mode)
        yield
    finally:
        os.close(fd)  # closing drops the lock


@contextlib.contextmanager
def machine_share(run_folder: Path, *, alone: bool) -> Iterator[None]:
    """Holds this run's machine lock for one test: exclusively when `alone`, shared otherwise."""
    turnstile, machine = run_folder / "serial.turnstile", run_folder / "serial.lock"
    if alone:
        with _flock(turnstile, fcntl.LOCK_EX), _flock(machine, fcntl.LOCK_EX):
            yield
        return
    with _flock(turnstile, fcntl.LOCK_EX):
        held = _flock(machine, fcntl.LOCK_SH)
        held.__enter__()
    try:
        yield
    finally:
        held.__exit__(None, None, None)


class WorkerShare:
    """One worker's hold on the run's machine lock, across the tests it runs one after another."""

    def __init__(self, run_folder: Path) -> None:
        self.run_folder = run_folder
        self._held: contextlib.ExitStack | None = None
        self._alone = False

    def before(self, *, alone: bool) -> None:
        """Hold the lock for the test about to run (an exclusive hold from the last test goes on)."""
        if self._held is not None and self._alone == alone:
            return
        self.after(next_alone=None)
        stack = contextlib.ExitStack()
        stack.enter_context(machine_share(self.run_folder, alone=alone))
        self._held, self._alone = stack, alone

    def after(self, *, next_alone: bool | None) -> None:
        """Let the lock go after a test, unless it is exclusive and the next test is `serial` too."""
        if self._held is None or (self._alone and next_alone):
            return
        held, self._held = self._held, None
        held.close()
