"""The live call board: one row per tool call, each settling the moment its call ends.

A listener that takes only `CallEvent`s (from worker threads as well as the event loop); the
turn's view starts and ends its rounds. On a terminal a
Rich `Live` pulls its picture from this state about eight times a second; anywhere else (a
pipe, CI) each finished call is one plain line, with no spinner and no cursor movement.
"""

from __future__ import annotations

import itertools
import threading
import time
from collections import Counter
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from atlas.foundation.errors import ErrorKind
from atlas.foundation.sanitize import clean_line
from atlas.protocol.events import CallEvent, Phase, SessionEvent
from atlas.ui.live_region import paused_live, started_live
from atlas.ui.plain import PlainConsole, Styled
from atlas.ui.safe import call_label

if TYPE_CHECKING:
    from rich.console import Console, RenderableType
    from rich.live import Live
    from rich.text import Text

ERROR_STYLE = "red"
KIND_STYLES: dict[ErrorKind, str] = {
    ErrorKind.OK: "green",
    ErrorKind.DENIED: "yellow",
    ErrorKind.CANCELLED: "yellow",
    ErrorKind.TIMEOUT: "magenta",
    ErrorKind.TRANSIENT: "magenta",
    ErrorKind.UNAVAILABLE: "magenta",
    ErrorKind.NO_TIME_BUDGET: "magenta",
    ErrorKind.PERMANENT: ERROR_STYLE,
    ErrorKind.UNKNOWN_TOOL: ERROR_STYLE,
    ErrorKind.BAD_ARGS: ERROR_STYLE,
    ErrorKind.PROTOCOL: ERROR_STYLE,
    ErrorKind.UNKNOWN: ERROR_STYLE,
}
"""Every kind has its style (a test checks): a new kind is given one on purpose, not by a fallback."""
FAILED_MARK = "✗"
MARKS: dict[ErrorKind, str] = {
    ErrorKind.OK: "✓",
    ErrorKind.DENIED: "⊘",
    ErrorKind.CANCELLED: "⊘",
    ErrorKind.TIMEOUT: FAILED_MARK,
    ErrorKind.TRANSIENT: FAILED_MARK,
    ErrorKind.UNAVAILABLE: FAILED_MARK,
    ErrorKind.NO_TIME_BUDGET: FAILED_MARK,
    ErrorKind.PERMANENT: FAILED_MARK,
    ErrorKind.UNKNOWN_TOOL: FAILED_MARK,
    ErrorKind.BAD_ARGS: FAILED_MARK,
    ErrorKind.PROTOCOL: FAILED_MARK,
    ErrorKind.UNKNOWN: FAILED_MARK,
}
ROW_LIMIT = 40
"""Rows one round shows; the rest are one line of counts. A model may ask for thousands of calls,
and drawing (or printing) each would take longer than the question's whole budget."""

_WAITING = {
    Phase.QUEUED: "queued",
    Phase.AWAITING_APPROVAL: "awaiting approval",
    Phase.APPROVED: "approved",
    Phase.DENIED: "denied",
}


@dataclass
class Row:
    """One call as the board shows it."""

    call_id: str
    name: str
    arguments: dict[str, Any] | str
    phase: Phase = Phase.QUEUED
    started: float | None = None
    ended: float | None = None
    kind: ErrorKind | None = None
    ms: float | None = None
    attempts: int = 0
    attempt: int = 0
    position: int = 0

    @property
    def settled(self) -> bool:
        return self.kind is not None


@dataclass
class Round:
    """One parallel batch of calls: its rows in request order and when it began."""

    number: int
    started: float
    rows: dict[str, Row] = field(default_factory=dict)
    summarised: bool = False
    printed: int = 0
    """Plain output: rows printed so far; those past ROW_LIMIT are counted in `unprinted`."""
    unprinted: Counter[str] = field(default_factory=Counter)
    # Kept as rows change, so a picture of thousands of rows costs no more than one of ROW_LIMIT.
    states: Counter[str] = field(default_factory=Counter)
    running: dict[str, Row] = field(default_factory=dict)
    open_ids: set[str] = field(default_factory=set)

    def retally(self, row: Row, before: str | None) -> None:
        """Count `row` under its state now, no longer under `before` (None: a new row)."""
        if before is not None:
            self.states[before] -= 1
        self.states[_state_of(row)] += 1
        if row.settled:
            self.open_ids.discard(row.call_id)
            self.running.pop(row.call_id, None)
            return
        self.open_ids.add(row.call_id)
        if row.started is not None:
            self.running[row.call_id] = row

    def wall_s(self) -> float:
        """How long at least one call was running: time spent asking a person is not run time."""
        spans = sorted(
            (row.started, row.ended) for row in self.rows.values() if row.started is not None and row.ended is not None
        )
        busy, reach = 0.0, float("-inf")
        for start, end in spans:
            if end > reach:
                busy += end - max(start, reach)
                reach = end
        return busy

    def calls_s(self) -> float:
        """Time the calls ran; one that was never started (refused, no time left) ran for none."""
        return sum(row.ms or 0.0 for row in self.rows.values() if row.started is not None) / 1000

    def summary(self) -> str:
        """`round 1: 2.01 s wall, 4.03 s of calls, 2.0× parallel`."""
        wall, calls = self.wall_s(), self.calls_s()
        text = f"round {self.number}: {wall:.2f} s wall, {calls:.2f} s of calls"
        # Below ~1.05 the calls did not overlap: a factor would only show timer noise.
        if wall > 0 and len(self.rows) > 1 and calls / wall >= 1.05:
            text += f", {calls / wall:.1f}× parallel"
        return text


def kind_style(kind: ErrorKind) -> str:
    return KIND_STYLES[kind]


def settled_pieces(row: Row) -> list[tuple[str, str]]:
    """The cells of a finished row as (text, style): mark, call, kind, ms, and attempts when more than one."""
    kind = row.kind or ErrorKind.UNKNOWN
    style = kind_style(kind)
    attempts = f"{row.attempts} attempts" if row.attempts > 1 else ""
    return [
        (MARKS[kind], style),
        (call_label(row.name, row.arguments), ""),
        (clean_line(kind), style),
        (f"{row.ms or 0:,.0f} ms", "dim"),
        (attempts, "dim"),
    ]


def settled_cells(row: Row) -> list[Text]:
    """The cells of a finished row, as the live picture's grid shows them."""
    from rich.text import Text

    return [Text(text, style=style) for text, style in settled_pieces(row)]


def settled_line(row: Row) -> Styled:
    """A finished row as one line (`  ✓  get_issue(issue_id=41)  ok  3 ms`), for output that is not live."""
    line = Styled("  ")
    for number, (text, style) in enumerate(piece for piece in settled_pieces(row) if piece[0]):
        line.append("  " if number else "").append(text, style)
    return line


class CallBoard:
    """Rows for the calls of the current round; a Live picture on a terminal, plain lines elsewhere."""

    def __init__(
        self,
        console: Console | PlainConsole,
        *,
        live: bool | None = None,
        clock: Callable[[], float] = time.monotonic,
        refresh_per_second: float = 8,
    ) -> None:
        self.console = console
        self.live = console.is_terminal if live is None else live
        self.clock = clock
        self.refresh_per_second = refresh_per_second
        self.rounds: list[Round] = []
        self._lock = threading.RLock()
        self._live: Live | None = None

    # -- events -----------------------------------------------------------------------------

    def start_round(self, number: int) -> None:
        """A new batch begins: the previous round is settled on screen first."""
        self.end_round()
        with self._lock:
            self.rounds.append(Round(number=number, started=self.clock()))
        if self.live:
            self._live = self._start_live()

    def __call__(self, event: SessionEvent, /) -> None:
        """Fold one call event into the rows (other events are not the board's); safe from any thread."""
        if not isinstance(event, CallEvent):
            return
        finished_row: Row | None = None
        with self._lock:
            current = self._round_for(event.round)
            row = current.rows.get(event.call_id)
            before = None if row is None else _state_of(row)
            if row is None:
                row = Row(event.call_id, event.name, event.arguments, position=len(current.rows))
                current.rows[event.call_id] = row
            if row.settled:
                return
            row.arguments = event.arguments  # after an edit at the approval: what was approved
            row.phase = event.phase
            now = self.clock()
            if event.phase is Phase.STARTED:
                row.attempt = event.attempt
                if row.started is None:
                    row.started = now
            elif event.phase is Phase.FINISHED:
                row.kind = event.kind or ErrorKind.UNKNOWN
                row.ms = event.ms if event.ms is not None else (now - (row.started or now)) * 1000
                row.attempts = event.attempts
                # The executor's own measure: this event comes after the call is logged, and
                # that write is not time the call ran.
                row.ended = now if row.started is None else min(now, row.started + row.ms / 1000)
                finished_row = row
            current.retally(row, before)
        if finished_row is not None and not self.live:
            self._print_plain(finished_row, current)

    def end_round(self, *, cancelled: bool = False) -> None:
        """Stop the live picture and leave the round's settled rows and its summary on screen."""
        with self._lock:
            current = self.rounds[-1] if self.rounds else None
            if current is None or current.summarised:
                return
            if cancelled:
                now = self.clock()
                for row in current.rows.values():
                    if not row.settled:
                        before = _state_of(row)
                        row.kind, row.ended = ErrorKind.CANCELLED, now
                        row.ms = (now - (row.started or now)) * 1000
                        current.retally(row, before)
                        if not self.live:
                            self._print_plain(row, current)
            current.summarised = True
        if self._live is not None:
            self._live.stop()
            self._live = None
            self.console.print(self._render_round(current))
        else:
            if current.unprinted:
                self.console.print(Styled("  " + _more_line(current.unprinted), style="dim"))
            self.console.print(Styled(current.summary(), style="dim"))

    def paused(self) -> AbstractContextManager[None]:
        """Take the live picture off the screen while something else (a y/N question) uses it."""
        return paused_live(self._live, self._restart_live)

    def _restart_live(self, live: Live) -> None:
        if self._live is live:
            self._live = self._start_live()

    def _start_live(self) -> Live:
        assert not isinstance(self.console, PlainConsole), "a live picture is drawn on a terminal's console"
        return started_live(self.render_current, self.console, self.refresh_per_second)

    # -- drawing ----------------------------------------------------------------------------

    def render_current(self) -> RenderableType:
        """The picture of the round in progress, as `Live` pulls it."""
        from rich.text import Text

        with self._lock:
            return self._render_round(self.rounds[-1]) if self.rounds else Text("")

    def _render_round(self, current: Round) -> RenderableType:
        from rich.console import Group
        from rich.table import Table
        from rich.text import Text

        grid = Table.grid(padding=(0, 1))
        for _ in range(5):
            grid.add_column()
        shown = _rows_shown(current)
        for row in shown:
            grid.add_row(*(settled_cells(row) if row.settled else self._running_cells(row)))
        parts: list[RenderableType] = [grid]
        if len(shown) < len(current.rows):
            parts.append(Text(_more_line(current.states - Counter(map(_state_of, shown))), style="dim"))
        if current.rows and not current.open_ids:
            parts.append(Text(current.summary(), style="dim"))
        return Group(*parts) if len(parts) > 1 else grid

    def _running_cells(self, row: Row) -> list[RenderableType]:
        from rich.spinner import Spinner
        from rich.text import Text

        if row.phase in _WAITING and row.started is None:
            return [Text("·", style="dim"), Text(call_label(row.name, row.arguments)), Text(_WAITING[row.phase])]
        elapsed = self.clock() - (row.started or self.clock())
        retry = f"attempt {row.attempt}" if row.attempt > 1 else ""
        return [
            Spinner("dots", style="cyan"),
            Text(call_label(row.name, row.arguments)),
            Text("running", style="cyan"),
            Text(f"{elapsed:.1f} s", style="dim"),
            Text(retry, style="dim"),
        ]

    def _print_plain(self, row: Row, current: Round) -> None:
        with self._lock:
            if current.printed >= ROW_LIMIT:
                current.unprinted[row.kind or ErrorKind.UNKNOWN] += 1
                return
            current.printed += 1
        self.console.print(settled_line(row))

    def _round_for(self, number: int) -> Round:
        for existing in reversed(self.rounds):
            if existing.number == number:
                return existing
        # An event for a round the loop did not announce (a direct executor user): open it here.
        created = Round(number=number, started=self.clock())
        self.rounds.append(created)
        return created


def _rows_shown(current: Round) -> list[Row]:
    """At most ROW_LIMIT rows, in request order: those running first, then the earliest of the rest."""
    if len(current.rows) <= ROW_LIMIT:
        return list(current.rows.values())
    chosen = dict(itertools.islice(current.running.items(), ROW_LIMIT))
    for call_id, row in current.rows.items():
        if len(chosen) >= ROW_LIMIT:
            break
        chosen.setdefault(call_id, row)
    return sorted(chosen.values(), key=lambda row: row.position)


def _state_of(row: Row) -> str:
    if row.settled:
        return row.kind or ErrorKind.UNKNOWN
    return "running" if row.started is not None else _WAITING.get(row.phase, "queued")


def _more_line(counts: Counter[str]) -> str:
    """`… and 9,960 more calls: 9,950 no_time_budget, 10 ok`."""
    total = sum(counts.values())
    parts = ", ".join(f"{count:,} {clean_line(state)}" for state, count in counts.most_common())
    return f"… and {total:,} more call{'s' if total != 1 else ''}: {parts}"
