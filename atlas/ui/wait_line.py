"""The wait for the model, on screen: a live `asking gpt-6-luna 3 s` line and one line per retry.

A listener that takes the waits an adapter reports (`atlas.protocol.events.Asking`, `Retrying`,
`Answering`; see `atlas.llm.wait`) and ignores the rest. On a terminal the asking line is a
transient `Live` that counts the seconds; every retry is printed for good above it
(`retrying in 2 s: 429 rate limited`), on a terminal and on a pipe alike.
"""

from __future__ import annotations

import time
from typing import TYPE_CHECKING

from atlas.foundation.sanitize import clean_line
from atlas.protocol.events import Answering, Asking, Retrying, SessionEvent
from atlas.ui.live_region import started_live
from atlas.ui.plain import PlainConsole, Styled

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.live import Live


class WaitLine:
    """What the person sees while nothing has come back from the model yet."""

    def __init__(self, console: Console | PlainConsole, *, live: bool) -> None:
        self.console = console
        self.live = live
        self._asking: Asking | None = None
        self._live: Live | None = None

    def __call__(self, event: SessionEvent, /) -> None:
        if isinstance(event, Asking):
            self._asking = event
            if self.live and self._live is None and not isinstance(self.console, PlainConsole):
                self._live = started_live(self.render, self.console, 4)
        elif isinstance(event, Retrying):
            self._asking = None
            self.console.print(Styled(f"retrying in {event.delay_s:.0f} s: {clean_line(event.reason)}", style="yellow"))
        elif isinstance(event, Answering):
            self.stop()

    def render(self) -> RenderableType:
        from rich.text import Text

        asking = self._asking
        if asking is None:
            return Text("")
        waited = time.monotonic() - asking.since
        again = f" (attempt {asking.attempt})" if asking.attempt > 1 else ""
        return Text(f"asking {clean_line(asking.model)} {waited:.0f} s{again}", style="dim")

    def stop(self) -> None:
        """Take the line off the screen: the answer, a tool row or an error is taking its place."""
        self._asking = None
        if self._live is not None:
            self._live.stop()
            self._live = None
