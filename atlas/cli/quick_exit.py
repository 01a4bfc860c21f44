"""How an `atlas` process ends: its output flushed, its exit handlers run, and then at once.

Python's own shutdown then tears every module and object down one by one: for a command that
has loaded pydantic, Rich and perhaps the openai SDK, that is 0.1-0.2 s of CPU after the last line
is written, on every run. Nothing Atlas needs happens there. What must be done at the end is done
before it: the call log is closed by the run itself, MCP servers are ended and the terminal is
restored by `atexit` handlers (run here), telemetry is flushed by its own bounded thread, and the
threads Atlas starts are daemons, which a normal exit leaves behind too.
"""

from __future__ import annotations

import atexit
import contextlib
import os
import sys
from typing import NoReturn

from atlas.foundation.sanitize import write_line


def exit_code(code: object) -> int:
    """What `sys.exit(code)` makes the process's exit code: None is 0, a message is 1."""
    if code is None:
        return 0
    if isinstance(code, int):
        return code
    write_line(code, err=True)
    return 1


def quick_exit(code: object) -> NoReturn:
    """End the process with `code` (as `sys.exit` takes it) after flushing and the exit handlers."""
    status = exit_code(code)
    _flush()
    atexit._run_exitfuncs()
    _flush()  # what the handlers wrote
    os._exit(status)


def _flush() -> None:
    for stream in (sys.stdout, sys.stderr):
        # A reader that went away takes nothing more; a descriptor closed before Python started
        # left no stream at all (None).
        with contextlib.suppress(OSError, ValueError, AttributeError):
            stream.flush()
