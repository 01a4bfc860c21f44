"""One numbered review of a whole plan, asked on the controlling terminal: `y` all, `1,3` those,
`e 2` to edit item 2 in $VISUAL/$EDITOR (then the list is shown again), anything else none.

As with every approval, the answer is read from `/dev/tty` only: a pipe approves nothing.
"""

from __future__ import annotations

import contextlib
import io
import os
import sys
import termios
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO

from rich.console import Console
from rich.padding import Padding
from rich.text import Text

from atlas.sanitize import clean, clean_line
from atlas.ui.approval import read_answer
from atlas.ui.approval_text import chosen
from atlas.ui.editor import edit_in_editor
from atlas.ui.tty_modes import answer_mode

QUESTION = "Apply? [y = all, 1,3 = those, e 2 = edit item 2, n = none] "


@dataclass(frozen=True)
class ReviewEntry:
    number: int
    headline: str
    """`#131 add label type:bug`."""
    detail: str
    """Why, or the whole comment: shown indented under the headline."""
    editable: str | None
    """The text `e N` opens in the editor (a label, a comment's body); None: not editable."""


Edit = Callable[[int, str], ReviewEntry]
"""The entry for the edited text; raises ValueError (its message shown) when the text cannot be used."""


def parse_edit(answer: str | None, count: int) -> int | None:
    """The item `e N` asks to edit, or None when the answer is not an edit."""
    parts = (answer or "").strip().lower().split()
    if len(parts) == 2 and parts[0] == "e" and parts[1].isdigit() and 1 <= int(parts[1]) <= count:
        return int(parts[1])
    return None


class PlanReview:
    def __init__(self, *, stdin: IO[str] | None = None, tty_path: str = "/dev/tty") -> None:
        self.stdin = stdin
        self.tty_path = tty_path

    def _terminal(self) -> int | None:
        stdin = self.stdin if self.stdin is not None else sys.stdin
        try:
            if stdin is None or not stdin.isatty():
                return None
            return os.open(self.tty_path, os.O_RDWR | os.O_NOCTTY)
        except (OSError, ValueError):
            return None

    def review(self, entries: Sequence[ReviewEntry], edit: Edit) -> tuple[list[ReviewEntry], set[int]] | None:
        """The entries (as edited) and the numbers approved; None when there is no terminal to ask on."""
        fd = self._terminal()
        if fd is None:
            return None
        out = io.TextIOWrapper(io.FileIO(fd, "w", closefd=False), encoding="utf-8", errors="replace")
        screen = Console(file=out, highlight=False, markup=False, emoji=False)
        shown = list(entries)
        try:
            while True:
                with answer_mode(fd):
                    _show(screen, shown)
                    screen.print(Text(QUESTION, style="bold"), end="", soft_wrap=True)
                    out.flush()
                    answer = read_answer(fd)
                number = parse_edit(answer, len(shown))
                if number is None:
                    break
                shown[number - 1] = _edited(screen, fd, shown[number - 1], edit)
            numbers = chosen(answer, len(shown))
            outcome = "none approved" if not numbers else f"approved {', '.join(str(n) for n in sorted(numbers))}"
            screen.print(Text(f" {outcome}", style="green" if numbers else "yellow"))
            out.flush()
            return shown, numbers
        except (OSError, termios.error):
            return shown, set()
        finally:
            with contextlib.suppress(Exception):
                out.detach()
            os.close(fd)


def _show(screen: Console, entries: Sequence[ReviewEntry]) -> None:
    for entry in entries:
        screen.print(Text(f"{entry.number}. {clean_line(entry.headline)}", style="bold"))
        if entry.detail:
            # Indented to the last wrapped line: a comment body cannot pass for Atlas's own lines.
            screen.print(Padding(Text(clean(entry.detail)), (0, 0, 0, 4), expand=False))


def _edited(screen: Console, fd: int, entry: ReviewEntry, edit: Edit) -> ReviewEntry:
    if entry.editable is None:
        screen.print(Text(f" item {entry.number} has no text to edit", style="yellow"))
        return entry
    screen.print(Text(" editing…", style="dim"))
    text = edit_in_editor(entry.editable, fd)
    if text is None:
        screen.print(Text("The editor did not finish; the item is unchanged.", style="yellow"))
        return entry
    try:
        return edit(entry.number, text)
    except ValueError as exc:
        screen.print(
            Text(f"The edited text cannot be used ({clean_line(exc)}); the item is unchanged.", style="yellow")
        )
        return entry
