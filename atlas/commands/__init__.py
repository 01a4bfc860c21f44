"""The bodies of the `atlas` commands, imported only by the command that runs.

`ask.py` (one question), `chat.py` (the REPL), `log.py`, `tools.py`, `tracker.py`, and
`runner.py` (Ctrl-C → cancel → KeyboardInterrupt). They may import everything below them
(`runtime`, `loop`, `ui`, `calllog`, ...); only `cli.py` imports them.

`guarded` is the one place where Atlas's own failures become one line on stderr and an exit
code: no traceback reaches the user.
"""

from __future__ import annotations

import contextlib
import os
import sys
from collections.abc import Callable
from typing import TypeVar

import typer

from atlas.errors import AtlasError
from atlas.sanitize import write_line

T = TypeVar("T")


def error_line(message: object) -> str:
    """`atlas: error: ...`, cleaned to one visible line."""
    from atlas.sanitize import clean_line
    from atlas.url_safety import scrub

    return f"atlas: error: {clean_line(scrub(str(message)))}"


def guarded(action: Callable[[], T], *, state: bool = False) -> T:
    """Run a command body; an `AtlasError` is one line on stderr and its exit code. With `state`, the
    shared database (when one is set) is opened first: unreachable, the command stops before it writes."""
    try:
        if state:
            from atlas.config import atlas_home
            from atlas.state.open import require_shared_state

            require_shared_state(atlas_home())
        return action()
    except AtlasError as exc:
        write_line(error_line(exc), err=True)
        raise typer.Exit(exc.exit_code) from None
    except KeyboardInterrupt:
        write_line("cancelled", err=True)
        raise typer.Exit(130) from None
    except BrokenPipeError:
        # The reader went away (`atlas log | head`): nothing left to say to it, not even the
        # interpreter's last flush of standard output.
        with contextlib.suppress(OSError, ValueError):
            os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        raise typer.Exit(0) from None
    except Exception as exc:
        # A bug, not a user error: still one line, unless ATLAS_DEBUG asks for the traceback.
        if os.environ.get("ATLAS_DEBUG"):
            raise
        write_line(error_line(f"unexpected {type(exc).__name__}: {exc} (set ATLAS_DEBUG=1 for details)"), err=True)
        raise typer.Exit(1) from None
