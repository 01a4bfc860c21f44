"""What a person sees while the issues db is built: a bar on a terminal, a line per stage on a pipe."""

from __future__ import annotations

import io

from atlas.ui.build_progress import BuildProgress


class FakeTerminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_a_pipe_gets_one_line_per_stage_and_the_end() -> None:
    stream = io.StringIO()
    with BuildProgress(stream) as progress:
        for done in range(0, 100, 10):
            progress(done, 100, "reading issues")
        progress(100, 100, "indexing")
    lines = stream.getvalue().splitlines()
    assert lines[:2] == ["atlas: building the issues db: reading issues …", "atlas: building the issues db: indexing …"]
    assert lines[2].startswith("atlas: issues db ready (") and len(lines) == 3


def test_a_terminal_gets_a_bar_that_is_taken_down() -> None:
    stream = FakeTerminal()
    with BuildProgress(stream) as progress:
        progress(50, 100, "reading issues")
    shown = stream.getvalue()
    assert "issues db: reading issues" in shown and "building the issues db" not in shown
    last = shown.rstrip().splitlines()[-1]
    assert last.startswith("\x1b[1A\x1b[2Katlas: issues db ready ("), "the bar is erased before the last line"


def test_nothing_is_shown_when_nothing_is_built() -> None:
    stream = io.StringIO()
    with BuildProgress(stream):
        pass
    assert stream.getvalue() == ""
