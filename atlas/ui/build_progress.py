"""What a person sees while the issues db is built: a bar on a terminal, a line per stage otherwise."""

from __future__ import annotations

import sys
import time
from typing import IO, TYPE_CHECKING

from atlas.foundation.sanitize import write_line

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID


class BuildProgress:
    """A `Progress` callback for `ensure_db`; it shows nothing unless a build (or a wait) happens.

    Use it as a context manager so the bar is taken down however the build ends.
    """

    def __init__(self, stream: IO[str] | None = None) -> None:
        self.stream = stream if stream is not None else sys.stderr
        self.stage = ""
        self.started = 0.0
        self._bar: Progress | None = None
        self._task: TaskID | None = None

    def __enter__(self) -> BuildProgress:
        return self

    def __exit__(self, *exc: object) -> None:
        if self._bar is not None:
            self._bar.stop()
        if self.stage and exc[0] is None:
            self._line(f"atlas: issues db ready ({time.monotonic() - self.started:.1f} s)")

    def __call__(self, done: int, total: int, stage: str) -> None:
        if not self.stage:
            self.started = time.monotonic()
        if self.stream.isatty():
            self._show_bar(done, total, stage)
        elif stage != self.stage:
            self._line(f"atlas: building the issues db: {stage} …")
        self.stage = stage

    def _show_bar(self, done: int, total: int, stage: str) -> None:
        if self._bar is None:
            from rich.progress import BarColumn, Progress, TaskProgressColumn, TextColumn, TimeElapsedColumn

            from atlas.ui.render import make_console

            console = make_console(file=self.stream)
            columns = (TextColumn("{task.description}"), BarColumn(), TaskProgressColumn(), TimeElapsedColumn())
            self._bar = Progress(*columns, console=console, transient=True)
            self._bar.start()
            self._task = self._bar.add_task("", total=None)
        assert self._task is not None
        self._bar.update(self._task, description=f"issues db: {stage}", completed=done, total=total or None)

    def _line(self, text: str) -> None:
        write_line(text, file=self.stream, flush=True)
