"""One numbered review of a whole plan, asked on the controlling terminal: `y` all, `1,3` those,
`e 2` to edit item 2 in $VISUAL/$EDITOR (then the list is shown again), `p 1,3` those and a rule
allowing actions like each of them in this project (what each rule allows is shown first),
anything else none. Items are named by the numbers shown, which a saved plan may skip.

As with every approval, the answer is read from `/dev/tty` only: a pipe approves nothing.
"""

from __future__ import annotations

import contextlib
import io
import os
import termios
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import IO

from rich.console import Console
from rich.padding import Padding
from rich.text import Text

from atlas.foundation.sanitize import clean, clean_line
from atlas.ui.approval import open_terminal, read_answer
from atlas.ui.approval_text import is_yes
from atlas.ui.editor import edit_in_editor
from atlas.ui.render import make_console
from atlas.ui.tty_modes import answer_mode

QUESTION = "Apply? [y = all, 1,3 = those, e 2 = edit item 2, n = none] "


@dataclass(frozen=True)
class ReviewEntry:
    number: int
    headline: str
    """`#131 add label type:bug`."""
    notes: tuple[str, ...]
    """Why, a caution: each one line under the headline, a newline inside it shown as `\\n`, so
    text from the project (a label) cannot start a line that passes for another item."""
    editable: str | None
    """The text `e N` opens in the editor (a label, a comment's body); None: not editable."""
    grant: str | None = None
    """What `p N` would allow from now on (`add_label of type:bug on any issue`); None: not offered."""
    body: str = ""
    """A comment's whole text, its lines kept, indented under the headline so none passes for Atlas's."""


Edit = Callable[[int, str], ReviewEntry]
"""The entry for the edited text; raises ValueError (its message shown) when the text cannot be used."""
Grant = Callable[[list[int]], list[str]]
"""Writes a rule for each of these entries (as shown); says what was written. Raises ValueError
(its message shown, and the question asked again) when a rule cannot be written."""


def parse_edit(answer: str | None, numbers: Sequence[int]) -> int | None:
    """The item `e N` asks to edit, or None when the answer is not an edit."""
    parts = (answer or "").strip().lower().split()
    if len(parts) == 2 and parts[0] == "e" and parts[1].isdigit() and int(parts[1]) in numbers:
        return int(parts[1])
    return None


def picked(answer: str | None, numbers: Sequence[int]) -> set[int]:
    """The items an answer approves: `y` all, a list of the numbers shown those; anything else none.

    A number that is not shown makes the whole answer a no: a typo must not approve a different set.
    """
    return set(numbers) if is_yes(answer) else _named(answer, numbers)


def _named(answer: str | None, numbers: Sequence[int]) -> set[int]:
    parts = [part for part in (answer or "").replace(",", " ").split() if part]
    if not parts or not all(part.isdigit() and int(part) in numbers for part in parts):
        return set()
    return {int(part) for part in parts}


def parse_grant(answer: str | None, numbers: Sequence[int]) -> set[int] | None:
    """The items `p 1,3` names (`p` alone: all of them); None when the answer is not a `p`; an
    empty set when it names an item that is not shown."""
    parts = (answer or "").strip().lower().replace(",", " ").split()
    if not parts or parts[0] != "p":
        return None
    return set(numbers) if len(parts) == 1 else _named(" ".join(parts[1:]), numbers)


class PlanReview:
    def __init__(self, *, stdin: IO[str] | None = None, tty_path: str = "/dev/tty") -> None:
        self.stdin = stdin
        self.tty_path = tty_path

    def can_ask(self) -> bool:
        """Whether there is a terminal to review on (the entries, which may ask GitHub, are made only then)."""
        fd = self._terminal()
        if fd is not None:
            os.close(fd)
        return fd is not None

    def _terminal(self) -> int | None:
        return open_terminal(self.stdin, self.tty_path)

    def review(
        self, entries: Sequence[ReviewEntry], edit: Edit, grant: Grant | None = None, rules_in: str = ""
    ) -> tuple[list[ReviewEntry], set[int]] | None:
        """The entries (as edited) and the numbers approved; None when there is no terminal to ask on.

        `grant` writes the rules `p N` offers, to the file `rules_in` names."""
        fd = self._terminal()
        if fd is None:
            return None
        out = io.TextIOWrapper(io.FileIO(fd, "w", closefd=False), encoding="utf-8", errors="replace")
        screen = make_console(file=out)
        shown = list(entries)
        order = [entry.number for entry in shown]
        try:
            while True:
                with answer_mode(fd):
                    _show(screen, shown, rules_in if grant is not None else None)
                    screen.print(Text(QUESTION, style="bold"), end="", soft_wrap=True)
                    out.flush()
                    answer = read_answer(fd)
                number = parse_edit(answer, order)
                if number is not None:
                    position = order.index(number)
                    shown[position] = _edited(screen, fd, shown[position], edit)
                    continue
                granted = parse_grant(answer, order) if grant is not None else None
                if granted is None:
                    numbers = picked(answer, order)
                    break
                assert grant is not None
                if _granted(screen, [entry for entry in shown if entry.number in granted], grant):
                    numbers = granted
                    break
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


def _show(screen: Console, entries: Sequence[ReviewEntry], rules_in: str | None) -> None:
    for entry in entries:
        screen.print(Text(f"{entry.number}. {clean_line(entry.headline)}", style="bold"))
        for note in entry.notes:
            screen.print(Padding(Text(clean_line(note)), (0, 0, 0, 4), expand=False))
        if entry.body:
            # Indented to the last wrapped line: a comment body cannot pass for Atlas's own lines.
            screen.print(Padding(Text(clean(entry.body)), (0, 0, 0, 4), expand=False))
    offered = [entry for entry in entries if entry.grant is not None] if rules_in is not None else []
    if offered:
        hint = GRANT_HINT.format(where=clean_line(rules_in or "config.toml"))
        screen.print(Text(hint, style="dim"), soft_wrap=True)
        for entry in offered:
            screen.print(Text(f"  {entry.number}: {clean_line(entry.grant or '')}", style="dim"), soft_wrap=True)


GRANT_HINT = (
    "p 1,3 = approve those, and from now on allow in this project, after issue text too (triage runs), "
    "actions like each (a rule in {where}, removed with `atlas policy revoke NAME`):"
)


def _granted(screen: Console, entries: Sequence[ReviewEntry], grant: Grant) -> bool:
    """Whether every named entry could become a rule and did; else the question is asked again."""
    refused = [entry.number for entry in entries if entry.grant is None]
    if not entries or refused:
        why = f"item {refused[0]} cannot become a rule" if refused else "name the items shown, e.g. p 1,3"
        screen.print(Text(f" not allowed: {why}; nothing was written", style="yellow"))
        return False
    try:
        told = grant([entry.number for entry in entries])
    except ValueError as exc:
        screen.print(Text(f" not allowed: {clean_line(exc)}", style="yellow"))
        return False
    for line in told:
        screen.print(Text(f" {clean_line(line)}", style="dim"))
    return True


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
