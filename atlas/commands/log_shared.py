"""`atlas log` on a team's shared database: everyone's calls, with who made each and on which machine."""

from __future__ import annotations

import json
from typing import Any

from rich.console import Console

from atlas.foundation.sanitize import clean_line
from atlas.state.postgres.database import SharedDatabase
from atlas.state.postgres.records import latest_calls
from atlas.ui.json_out import print_json
from atlas.ui.render import data_table, iso_time, local_time
from atlas.ui.safe import compact_args

COLUMNS = ("time", "who", "session", "tool", "arguments", "kind", "ms", "attempts")
ARGUMENTS_LIMIT = 60


def show_shared(
    database: SharedDatabase,
    console: Console,
    *,
    limit: int,
    filters: dict[str, Any],
    person: str | None,
    as_json: bool,
) -> None:
    calls = latest_calls(database, limit=limit, filters=filters, person=person)
    if as_json:
        for call in calls:
            print_json({**call, "ts": iso_time(float(call["ts"]))}, flush=True)
        return
    if not calls:
        filtered = any(value for value in filters.values()) or person is not None
        console.print("No calls match." if filtered else f"No calls logged yet in {database.shown}.", style="dim")
        return
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
    console.print(data_table(COLUMNS, rows, right=("ms", "attempts"), cut=cut))


def _arguments(raw: str) -> dict[str, Any] | str:
    try:
        value = json.loads(raw)
    except ValueError:
        return raw
    return value if isinstance(value, dict) else raw
