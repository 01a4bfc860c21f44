"""What one question looks like on screen: a board per round, the streamed answer, then Markdown.

A listener on the session's channel: the model's waits go to the wait line, `RoundStarted`
begins a round of rows, `CallEvent`s go to the board, `TextDelta`s stream the answer. The
approver calls `paused` to take whatever is live off the screen while it asks. On a terminal the
answer is shown as it streams and then replaced by its Markdown rendering; elsewhere it is
printed once.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING

from atlas.foundation.sanitize import clean
from atlas.protocol.events import (
    Answering,
    Asking,
    CallEvent,
    Retrying,
    RoundStarted,
    SessionEvent,
    TextDelta,
    WaitEvent,
)
from atlas.ui.board import CallBoard
from atlas.ui.live_region import paused_live, started_live
from atlas.ui.plain import PlainConsole, Styled
from atlas.ui.wait_line import WaitLine

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.live import Live


class TurnView:
    """Rows, streamed text and the final answer of one turn, on one console."""

    def __init__(
        self,
        console: Console | PlainConsole,
        *,
        live: bool | None = None,
        answer_to: Callable[[str], None] | None = None,
    ) -> None:
        """`answer_to` takes the final answer instead of `console` (on a pipe: its Markdown source);
        a `PlainConsole` is given one, as it renders no Markdown."""
        self.console = console
        self._answer_to = answer_to
        self.live = console.is_terminal if live is None else live
        self.board = CallBoard(console, live=self.live)
        self.wait = WaitLine(console, live=self.live)
        self._text: list[str] = []
        self._stream: Live | None = None
        self._lock = threading.RLock()

    # -- what the session tells -----------------------------------------------------------------

    def __call__(self, event: SessionEvent, /) -> None:
        match event:
            case CallEvent():
                self.board(event)
            case TextDelta(text=text):
                self._text_arrived(text)
            case RoundStarted(number=number):
                self._round_started(number)
            case Asking() | Retrying() | Answering():
                self._waiting(event)
            case _:  # the end of a batch: the rows have settled already
                pass

    def _waiting(self, event: WaitEvent) -> None:
        """The model is being asked, or asked again: the previous round's rows settle first."""
        with self._lock:
            if isinstance(event, Asking):
                self.board.end_round()
                self._settle_stream()
            self.wait(event)

    def _round_started(self, number: int) -> None:
        with self._lock:
            self.wait.stop()
            self._settle_stream()
            self.board.start_round(number)

    def _text_arrived(self, delta: str) -> None:
        with self._lock:
            self.wait.stop()
            self.board.end_round()
            self._text.append(delta)
            if self.live and self._stream is None:
                self._stream = self._start_stream()

    @contextmanager
    def paused(self) -> Iterator[None]:
        """Nothing live on screen while the approver asks; everything resumes afterwards."""
        with self.board.paused(), paused_live(self._stream, self._restart_stream):
            yield

    def _restart_stream(self, stream: Live) -> None:
        if self._stream is stream:
            self._stream = self._start_stream()

    # -- the end of the turn --------------------------------------------------------------------

    def finish(self, answer: str) -> None:
        """Settle the last round, replace the streamed text with the rendered answer."""
        with self._lock:
            self.wait.stop()
            self.board.end_round()
            self._stop_stream()
            self._text.clear()
        if self._answer_to is not None:
            self._answer_to(answer)
            return
        assert not isinstance(self.console, PlainConsole), "a plain view is given `answer_to`"
        from atlas.ui.render import print_answer  # Rich's Markdown: only where the answer is rendered

        self.console.print()
        print_answer(self.console, answer)

    def abort(self, *, cancelled: bool) -> None:
        """The turn failed or was cancelled: rows still running show `cancelled`, nothing stays live."""
        with self._lock:
            self.wait.stop()
            self.board.end_round(cancelled=cancelled)
            self._settle_stream()

    # -- internals -------------------------------------------------------------------------------

    def render_stream(self) -> RenderableType:
        """The newest rows of the streamed text that fit the screen, as `Live` pulls them.

        Counted in rows as the terminal wraps them: a region taller than the screen would be
        cut at the bottom, hiding exactly the words that are arriving. The whole answer is
        printed when it is complete.
        """
        from rich.text import Text

        assert not isinstance(self.console, PlainConsole), "only a terminal's view streams"
        room = max(1, self.console.size.height - 2)
        # Each line takes at least one row, so the last `room` lines hold every row shown.
        tail = Text("\n".join(clean("".join(self._text)).splitlines()[-room:]))
        rows = tail.wrap(self.console, self.console.size.width)
        return Text("\n").join(rows[-room:])

    def _start_stream(self) -> Live:
        assert not isinstance(self.console, PlainConsole), "only a terminal's view streams"
        return started_live(self.render_stream, self.console, 12)

    def _stop_stream(self) -> None:
        if self._stream is not None:
            self._stream.stop()
            self._stream = None

    def _settle_stream(self) -> None:
        """Text the model wrote before asking for tools stays on screen as it was written."""
        self._stop_stream()
        if self._text:
            self.console.print(Styled(clean("".join(self._text)).strip(), style="italic"))
            self._text.clear()
