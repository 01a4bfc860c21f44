"""The side effects that were not done, listed once at the end of a run (a headless run above all)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from atlas.foundation.sanitize import clean_line
from atlas.protocol.events import CallRecord
from atlas.ui.plain import PlainConsole, Styled
from atlas.ui.safe import call_label

if TYPE_CHECKING:
    from rich.console import Console

WHO = {
    "person": "denied at the terminal",
    "no-terminal": "no terminal to ask",
    "cancelled": "the question was withdrawn",
    "nobody": "nobody approved it",
}


def who_denied(decided_by: str | None) -> str:
    if decided_by and decided_by.startswith("rule:"):
        return f"denied by rule {decided_by.removeprefix('rule:')}"
    return WHO.get(decided_by or "", clean_line(decided_by or "not approved"))


def print_denied(console: Console | PlainConsole, records: Sequence[CallRecord]) -> None:
    """`Not done: 2 actions were denied` and one line each, saying who denied it."""
    denied = [record for record in records if record.approved is False]
    if not denied:
        return
    count = len(denied)
    console.print(Styled(f"Not done: {count} action{'' if count == 1 else 's'} denied", style="yellow"))
    for record in denied:
        arguments = record.arguments if isinstance(record.arguments, dict) else {}
        label = call_label(record.name, arguments, limit=160)
        console.print(Styled(f"  {label} — {who_denied(record.decided_by)}", style="yellow"), soft_wrap=True)
