"""`atlas log` on a team's shared database: everyone's calls, with who made each and on which machine."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console
from rich.table import Table

from atlas.foundation.sanitize import clean_line
from atlas.ui.render import data_table, local_time
from atlas.ui.safe import compact_args

COLUMNS = ("time", "who", "session", "tool", "arguments", "kind", "ms", "attempts")
ARGUMENTS_LIMIT = 60


def shared_table(console: Console, calls: list[dict[str, Any]]) -> Table:
    """The team's calls as a table, each naming who made it where, fitted to this console."""
    whole = not console.is_terminal
    rows = [
        (
            local_time(float(call["ts"])),
            clean_line(f"{call['person']}@{call['machine']}"),
            call["session"],
            call["name"],
            compact_args(_arguments(call["arguments"]), limit=10**9 if whole else ARGUMENTS_LIMIT),
            f"{call['kind']} · {clean_line(call['decided_by'])}" if call.get("decided_by") else call["kind"],
            f"{float(call['ms']):,.0f}",
            call["attempts"],
        )
        for call in calls
    ]
    cut = () if whole else ("arguments", "tool", "kind")
    return data_table(COLUMNS, rows, right=("ms", "attempts"), cut=cut)


def _arguments(raw: Any) -> dict[str, Any] | str:
    if isinstance(raw, dict):
        return raw
    try:
        value = json.loads(str(raw))
    except (ValueError, RecursionError):
        return str(raw)
    return value if isinstance(value, dict) else str(raw)
