"""`atlas tracker`: the actions approved calls wrote to the mock issue tracker."""

from __future__ import annotations

import json

from atlas.config import atlas_home
from atlas.errors import AtlasError, ToolError
from atlas.tools.tracker import MockTracker
from atlas.ui.render import data_table, local_time, make_console
from atlas.ui.safe import clean_line


def show_tracker(*, as_json: bool) -> None:
    tracker = MockTracker(atlas_home())
    try:
        records = tracker.records()
    except ToolError as exc:
        raise AtlasError(str(exc)) from None
    if as_json:
        for record in records:
            print(json.dumps(record))
        return
    console = make_console(for_tables=True)
    if not records:
        console.print(f"No tracker actions yet in {clean_line(tracker.path)}.", style="dim")
        return
    rows = [
        (
            local_time(record.get("ts", "")),
            record.get("session", ""),
            record.get("action", ""),
            f"#{record.get('issue_id', '?')}",
            record.get("label") if record.get("action") == "add_label" else record.get("body", ""),
        )
        for record in records
    ]
    # On a terminal a long comment is cut to the line; a pipe gets it whole.
    cut = ("detail",) if console.is_terminal else ()
    console.print(data_table(("time", "session", "action", "issue", "detail"), rows, cut=cut))
