"""Run one coroutine on an event loop so that Ctrl-C cancels it cleanly and nothing waits on threads.

`asyncio.run` would wait at the end for the default executor's threads; a tool stuck in a
thread must not hold the process. Here Ctrl-C cancels the task (the executor answers unfinished
calls `cancelled`, the loop keeps the conversation valid) and then surfaces as KeyboardInterrupt.
"""

from __future__ import annotations

import asyncio
import contextlib
import signal
from collections.abc import Coroutine
from typing import Any, TypeVar

T = TypeVar("T")


def run_cancellable(coro: Coroutine[Any, Any, T], loop: asyncio.AbstractEventLoop | None = None) -> T:
    """Run `coro` to its end on `loop` (a fresh one when None); Ctrl-C → cancel → KeyboardInterrupt."""
    own = loop is None
    running = loop if loop is not None else asyncio.new_event_loop()
    task = running.create_task(coro)
    interrupted = False

    def interrupt() -> None:
        nonlocal interrupted
        interrupted = True
        task.cancel()

    installed = False
    with contextlib.suppress(ValueError, RuntimeError, NotImplementedError):
        running.add_signal_handler(signal.SIGINT, interrupt)
        installed = True
    try:
        return running.run_until_complete(task)
    except asyncio.CancelledError:
        if interrupted:
            raise KeyboardInterrupt from None
        raise
    finally:
        if installed:
            running.remove_signal_handler(signal.SIGINT)
        if own:
            close_loop(running)


def close_loop(loop: asyncio.AbstractEventLoop) -> None:
    """Cancel what is left and close the loop without joining any executor thread."""
    pending = [task for task in asyncio.all_tasks(loop) if not task.done()]
    for task in pending:
        task.cancel()
    if pending:
        with contextlib.suppress(BaseException):
            loop.run_until_complete(asyncio.wait(pending, timeout=1.0))
    with contextlib.suppress(BaseException):
        loop.run_until_complete(loop.shutdown_asyncgens())
    loop.close()
