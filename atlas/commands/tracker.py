"""`atlas tracker`: the actions approved calls wrote to the mock issue tracker, for the current dataset."""

from __future__ import annotations

from datetime import datetime
from typing import Any

from atlas.dataset.source import dataset_identity
from atlas.foundation.config import atlas_home, data_dir
from atlas.foundation.errors import AtlasError, ToolError
from atlas.foundation.sanitize import clean_line
from atlas.state.settings import state_settings
from atlas.state.who import person
from atlas.tracker.journal import MockTracker
from atlas.ui.json_out import print_json
from atlas.ui.render import data_table, iso_time, local_time, make_console


def recorded_at(record: dict[str, Any]) -> float | None:
    """The record's time as Unix time, or None when it holds no ISO 8601 time with a zone (the file is untrusted)."""
    try:
        when = datetime.fromisoformat(str(record.get("ts", "")))
    except ValueError:
        return None
    return when.timestamp() if when.tzinfo is not None else None


def selected(
    records: list[dict[str, Any]], *, limit: int | None, since: float | None, issue: int | None
) -> list[dict[str, Any]]:
    """The latest `limit` records (oldest first) of one issue and after `since`, as asked."""
    if issue is not None:
        records = [record for record in records if record["issue_id"] == issue]
    if since is not None:
        records = [record for record in records if (recorded_at(record) or 0.0) >= since]
    return records[-limit:] if limit else records


def show_tracker(
    *, as_json: bool, limit: int | None = None, since: float | None = None, issue: int | None = None, mine: bool = False
) -> None:
    home = atlas_home()
    tracker = MockTracker(home, dataset_identity(data_dir()))
    try:
        records = tracker.records()
        if mine:
            me = person(home)
            records = [record for record in records if record.get("person") == me]
        records = selected(records, limit=limit, since=since, issue=issue)
    except ToolError as exc:
        raise AtlasError(str(exc)) from None
    if as_json:
        for record in records:
            when = recorded_at(record)
            print_json({**record, "ts": iso_time(when) if when is not None else record.get("ts")})
        return
    console = make_console(for_tables=True)
    if not records:
        filtered = limit is not None or since is not None or issue is not None or mine
        empty = "No tracker actions match." if filtered else f"No tracker actions yet in {clean_line(tracker.path)}."
        console.print(empty, style="dim")
        return
    decided = any(record.get("decided_by") for record in records)  # who approved: a rule or a person
    # Who wrote it, where: for a team, or a folder more than one person wrote to (older records do not say).
    writers = {(record.get("person"), record.get("machine")) for record in records if record.get("person")}
    written = len(writers) > 1 or (bool(writers) and bool(state_settings(home).url))
    rows = [
        (
            local_time(record.get("ts", "")),
            record.get("session", ""),
            *((clean_line(f"{record.get('person') or '?'}@{record.get('machine') or '?'}"),) if written else ()),
            *((clean_line(record.get("decided_by") or ""),) if decided else ()),
            record.get("action", ""),
            f"#{record.get('issue_id', '?')}",
            record.get("body", "") if record.get("action") == "post_comment" else record.get("label"),
        )
        for record in records
    ]
    # On a terminal a long comment is cut to the line; a pipe gets it whole.
    cut = ("detail",) if console.is_terminal else ()
    columns = ("time", "session", *(("who",) if written else ()), *(("by",) if decided else ()), "action", "issue")
    columns = (*columns, "detail")
    console.print(data_table(columns, rows, cut=cut))
