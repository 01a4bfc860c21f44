"""One turn on screen: the streamed answer keeps its newest words in view."""

from __future__ import annotations

import io
import time

from rich.console import Console

from atlas.protocol.events import TextDelta
from atlas.ui.turn_view import TurnView
from tests.ui.screen import screen


def terminal(width: int = 40, height: int = 12) -> Console:
    return Console(file=io.StringIO(), width=width, height=height, force_terminal=True, no_color=True)


def shown(console: Console, view: TurnView) -> list[str]:
    with console.capture() as captured:
        console.print(view.render_stream())
    return captured.get().splitlines()


def test_a_long_paragraph_streams_its_newest_words_within_the_screen() -> None:
    console = terminal()
    view = TurnView(console, live=False)
    words = [f"word{n}" for n in range(200)]
    for word in words:
        view(TextDelta(word + " "))
    rows = shown(console, view)
    assert len(rows) <= console.size.height - 2
    assert "word199" in rows[-1]
    assert not any("..." in row for row in rows)


def test_short_lines_of_a_long_answer_show_the_latest_ones() -> None:
    console = terminal()
    view = TurnView(console, live=False)
    view(TextDelta("\n".join(f"line {n}" for n in range(30))))
    rows = shown(console, view)
    assert rows == [f"line {n}" for n in range(20, 30)]


def test_a_question_asked_while_text_streams_stays_on_screen() -> None:
    out = io.StringIO()
    console = Console(file=out, width=60, height=20, force_terminal=True, no_color=True, markup=False)
    view = TurnView(console)
    view(TextDelta("Looking at the labels of #41 first.\nThen"))
    time.sleep(0.1)
    with view.paused():
        console.print("Approve add_label(issue_id=41)? [y/N] n denied")
    view(TextDelta(" the answer."))
    time.sleep(0.1)
    view.finish("Done.")
    shown = [line for line in screen(out.getvalue()) if line]
    assert shown == ["Approve add_label(issue_id=41)? [y/N] n denied", "Done."]
