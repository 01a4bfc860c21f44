"""Run blocking functions in daemon threads the event loop can await, and count the ones left behind.

Python cannot kill a thread, so a tool that never returns keeps its thread forever. We do not use
`asyncio.to_thread`: the default executor's threads are joined at interpreter exit (a stuck tool
would hold the process open), and a fixed-size pool would be starved by a few stuck tools. Instead
an unbounded pool of daemon workers: an idle worker takes the next call, a new worker starts when
none is idle, and a worker idle for `IDLE_S` ends. A stuck call holds only its own worker.

A call whose caller stopped waiting (timeout, Ctrl-C) is *abandoned*; `leaked_threads()` counts
abandoned calls that are still running, process-wide.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import queue
import threading
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")

IDLE_S = 5.0
"""How long an idle worker waits for another call before it ends."""

_lock = threading.Lock()
_abandoned: set[ThreadCall] = set()
_jobs: queue.SimpleQueue[ThreadCall] = queue.SimpleQueue()
_idle_workers = 0


def _forget_workers() -> None:
    """In a forked child: none of the parent's workers exist here, so none can be idle or hold the lock."""
    global _lock, _abandoned, _jobs, _idle_workers
    _lock = threading.Lock()
    _abandoned = set()
    _jobs = queue.SimpleQueue()
    _idle_workers = 0


os.register_at_fork(after_in_child=_forget_workers)


def forget_abandoned() -> None:
    """Count no call abandoned so far (they run on, uncounted): for a process that runs many commands,
    each of which reports only the threads it left behind itself."""
    with _lock:
        _abandoned.clear()


def leaked_threads() -> int:
    """How many abandoned calls are still running (each holding its thread) in this process."""
    with _lock:
        return sum(1 for call in _abandoned if not call.finished)


def _settle(future: asyncio.Future[Any], result: Any, error: BaseException | None) -> None:
    # Runs on the loop's thread; the awaiting side may have given up (cancelled) meanwhile.
    if future.done():
        return
    if error is not None:
        future.set_exception(error)
    else:
        future.set_result(result)


def _taken(future: asyncio.Future[Any]) -> None:
    if not future.cancelled():
        future.exception()


def _next_job() -> ThreadCall | None:
    """The next call for an idle worker, or None when it should end."""
    global _idle_workers
    try:
        return _jobs.get(timeout=IDLE_S)
    except queue.Empty:
        pass
    with _lock:
        # A call submitted while we timed out was promised to an idle worker: take it.
        try:
            return _jobs.get_nowait()
        except queue.Empty:
            _idle_workers -= 1
            return None


def _work(handed: list[ThreadCall]) -> None:
    global _idle_workers
    # Taken out of the list the thread was started with, which the thread keeps as long as it
    # lives: a finished call (its arguments, its result) is not kept alive while its worker waits.
    job: ThreadCall | None = handed.pop()
    while job is not None:
        job.run()
        job = None
        with _lock:
            _idle_workers += 1
        job = _next_job()


def _submit(job: ThreadCall) -> None:
    global _idle_workers
    with _lock:
        if _idle_workers > 0:
            _idle_workers -= 1
            _jobs.put(job)
            return
    threading.Thread(target=_work, args=([job],), name="atlas-worker", daemon=True).start()


class ThreadCall:
    """One blocking call running on a daemon worker; `await call.future` for its result."""

    def __init__(self, fn: Callable[..., Any], *args: Any, name: str = "atlas-tool") -> None:
        self._loop = asyncio.get_running_loop()
        self.future: asyncio.Future[Any] = self._loop.create_future()
        self.name = name
        self.finished = False
        self._fn = fn
        self._args = args
        _submit(self)

    def run(self) -> None:
        """Run the call on the current (worker) thread and hand the outcome to the loop."""
        threading.current_thread().name = self.name
        result: Any = None
        error: BaseException | None = None
        try:
            result = self._fn(*self._args)
        except BaseException as exc:  # handed to the awaiting coroutine, which classifies it
            error = exc
        finally:
            with _lock:
                self.finished = True
                _abandoned.discard(self)
        # The loop may be closed already when an abandoned call finally ends.
        with contextlib.suppress(RuntimeError):
            self._loop.call_soon_threadsafe(_settle, self.future, result, error)
        threading.current_thread().name = "atlas-worker"

    def abandon(self) -> None:
        """Stop caring about this call; if it still runs, it counts as leaked."""
        with _lock:
            if not self.finished:
                _abandoned.add(self)
        # Nobody awaits the outcome now: a failure arriving later is not one "never retrieved",
        # which asyncio would print, traceback and all, wherever the person is reading.
        self.future.add_done_callback(_taken)


async def run_in_thread(fn: Callable[..., T], *args: Any, name: str = "atlas-worker", track: bool = True) -> T:
    """Await `fn(*args)` run on a daemon worker.

    Cancelling the await abandons the call; with `track` it then counts as leaked (tools do,
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
