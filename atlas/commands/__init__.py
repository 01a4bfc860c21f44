"""The bodies of the `atlas` commands, imported only by the command that runs.

`ask.py` (one question), `chat.py` (the REPL), `log.py`, `tools.py`, `tracker.py`, and
`runner.py` (Ctrl-C → cancel → KeyboardInterrupt). They may import everything below them
(`runtime`, `loop`, `ui`, `calllog`, ...); only `cli.py` (and `cli_fast.py`, for a plain
`atlas ask`) imports them.

`attempt` (and `guarded`, its form for Typer's commands) is the one place where Atlas's own
failures become one line on stderr and an exit code: no traceback reaches the user.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from dataclasses import dataclass
from typing import TypeVar

from atlas.errors import AtlasError

T = TypeVar("T")


def error_line(message: object) -> str:
    """`atlas: error: ...`, cleaned to one visible line."""
    from atlas.sanitize import clean_line
    from atlas.url_safety import scrub

    return f"atlas: error: {clean_line(scrub(str(message)))}"


@dataclass(frozen=True)
class Failed:
    """A command body that ended in a failure already told on stderr: the process's exit code."""

    code: int


def attempt(action: Callable[[], T]) -> T | Failed:
    """Run a command body; an `AtlasError` is one line on stderr and its exit code, returned."""
    try:
        return action()
    except AtlasError as exc:
        print(error_line(exc), file=sys.stderr)
        return Failed(exc.exit_code)
    except KeyboardInterrupt:
        print("cancelled", file=sys.stderr)
        return Failed(130)
    except BrokenPipeError:
        # The reader went away (`atlas log | head`): nothing left to say to it, not even the
        # interpreter's last flush of standard output.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return Failed(0)
    except Exception as exc:
        # A bug, not a user error: still one line, unless ATLAS_DEBUG asks for the traceback.
        if os.environ.get("ATLAS_DEBUG"):
            raise
        print(error_line(f"unexpected {type(exc).__name__}: {exc} (set ATLAS_DEBUG=1 for details)"), file=sys.stderr)
        return Failed(1)


def guarded(action: Callable[[], T]) -> T:
    """`attempt` inside a Typer command: a failure's exit code is raised as `typer.Exit`."""
    outcome = attempt(action)
    if isinstance(outcome, Failed):
        import typer  # only on the way out: the command that runs without Typer never pays for it

        raise typer.Exit(outcome.code)
    return outcome
