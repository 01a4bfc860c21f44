"""A live region on a terminal (rows, a streamed answer, a wait line): started, paused for a question.

Rich's `Live` is imported only when one is drawn, so output to a pipe never loads it.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.live import Live


def started_live(render: Callable[[], RenderableType], console: Console, refresh_per_second: float) -> Live:
    """A region redrawn from `render` until stopped, then gone; print and log output pass it untouched."""
    from rich.live import Live  # only a terminal's views draw one

    live = Live(
        get_renderable=render,
        console=console,
        refresh_per_second=refresh_per_second,
        transient=True,
        redirect_stdout=False,
        redirect_stderr=False,
    )
    live.start()
    return live


@contextmanager
def paused_live(live: Live | None, restart: Callable[[Live], None]) -> Iterator[None]:
    """`live` off the screen for the block (something else, a y/N question, uses it), then
    `restart(live)` draws a fresh one: a restarted Live would first erase as many lines as it last
    drew, which are now the question and its answer."""
    if live is None or not live.is_started:
        yield
        return
    live.stop()
    try:
        yield
    finally:
        restart(live)
