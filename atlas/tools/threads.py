"""Run blocking functions in daemon threads the event loop can await, and count the ones left behind.

Python cannot kill a thread, so a tool that never returns keeps its thread forever. We start one
daemon thread per call instead of using `asyncio.to_thread`: the default executor's threads are
joined at interpreter exit (a stuck tool would hold the process open), and a fixed-size pool would
be starved by a few stuck tools. A thread whose caller stopped waiting (timeout, Ctrl-C) is
*abandoned*; `leaked_threads()` counts abandoned threads that are still running, process-wide.
"""

from __future__ import annotations

import asyncio
import contextlib
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

_lock = threading.Lock()
_abandoned: set[threading.Thread] = set()


def leaked_threads() -> int:
    """How many abandoned threads are still running in this process."""
    with _lock:
        return sum(1 for thread in _abandoned if thread.is_alive())


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    # Runs on the loop's thread; the awaiting side may have given up (cancelled) meanwhile.
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


class ThreadCall:
    """One blocking call running in its own daemon thread; `await call.future` for its result."""

    def __init__(self, fn: Callable[..., Any], *args: Any, name: str = "atlas-tool") -> None:
        self._loop = asyncio.get_running_loop()
        self.future: asyncio.Future[Any] = self._loop.create_future()
        self._fn = fn
        self._args = args
        self.thread = threading.Thread(target=self._run, name=name, daemon=True)
        self.thread.start()

    def _run(self) -> None:
        result: Any = None
        error: BaseException | None = None
        try:
            result = self._fn(*self._args)
        except BaseException as exc:  # handed to the awaiting coroutine, which classifies it
            error = exc
        finally:
            with _lock:
                _abandoned.discard(self.thread)
        # The loop may be closed already when an abandoned thread finally ends.
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(_settle, self.future, result, error)

    def abandon(self) -> None:
        """Stop caring about this call; if its thread still runs, it counts as leaked."""
        with _lock:
            if self.thread.is_alive():
                _abandoned.add(self.thread)


async def run_in_thread(fn: Callable[..., T], *args: Any, name: str = "atlas-worker", track: bool = True) -> T:
    """Await `fn(*args)` run in a fresh daemon thread.

    Cancelling the await abandons the thread; with `track` it then counts as leaked (tools do,
    an approval prompt the user walked away from does not).
    """
    call = ThreadCall(fn, *args, name=name)
    try:
        result: T = await call.future
    except BaseException:
        if track:
            call.abandon()
        raise
    return result
