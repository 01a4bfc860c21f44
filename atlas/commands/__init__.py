"""The bodies of the `atlas` commands, imported only by the command that runs.

One module per command: `ask.py` (one question), `chat.py` (the REPL), `log.py`, `tools.py`,
`tracker.py`, ...; `ask.py` and `chat.py` answer through `runtime.session`. They may import everything
below them (`runtime`, `conversation`, `ui`, `calllog`, ...); only `atlas.cli` (`root.py`, and
`fast.py` for a plain `atlas ask`) imports them.

`attempt` (and `guarded`, its form for Typer's commands) is the one place where Atlas's own
failures become one line on stderr and an exit code: no traceback reaches the user.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from typing import NamedTuple, TypeVar, TypeVarTuple

from atlas.foundation.errors import AtlasError
from atlas.foundation.sanitize import write_line

T = TypeVar("T")
Ts = TypeVarTuple("Ts")


def error_line(message: object) -> str:
    """`atlas: error: ...`, cleaned to one visible line."""
    from atlas.foundation.sanitize import clean_line
    from atlas.foundation.url_safety import scrub

    return f"atlas: error: {clean_line(scrub(str(message)))}"


class Failed(NamedTuple):
    """A command body that ended in a failure already told on stderr: the process's exit code."""

    code: int


def attempt(action: Callable[[*Ts], T], *args: *Ts, state: bool = False) -> T | Failed:
    """Run a command body on `args`; an `AtlasError` is one line on stderr and its exit code, returned. With
    `state`, the shared database (when one is set) is opened first: unreachable, the command stops before
    it writes. The body is handed its arguments here, so the route goes on down to it, not back up."""
    try:
        if state:
            from atlas.state.open import require_shared_state

            require_shared_state()
        return action(*args)
    except AtlasError as exc:
        write_line(error_line(exc), err=True)
        return Failed(exc.exit_code)
    except KeyboardInterrupt:
        write_line("cancelled", err=True)
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
        write_line(error_line(f"unexpected {type(exc).__name__}: {exc} (set ATLAS_DEBUG=1 for details)"), err=True)
        return Failed(1)


def guarded(action: Callable[[*Ts], T], *args: *Ts, state: bool = False) -> T:
    """`attempt` inside a Typer command: a failure's exit code is raised as `typer.Exit`."""
    outcome = attempt(action, *args, state=state)
    if isinstance(outcome, Failed):
        import typer  # only on the way out: the command that runs without Typer never pays for it

        raise typer.Exit(outcome.code)
    return outcome
