"""`atlas log`: the call log as a table, JSON lines, per-tool statistics, a follow, or a replay script."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from typing import Any

from rich.cells import cell_len
from rich.console import Console

from atlas.calllog import CallLog
from atlas.config import atlas_home
from atlas.errors import ErrorKind
from atlas.ui.render import data_table, local_time, make_console
from atlas.ui.safe import clean_line, compact_args

_SINCE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$", re.IGNORECASE)
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
FOLLOW_POLL_S = 0.5
FOLLOW_LOOKBACK_S = 30.0
"""How far back each poll of a follow looks. A call's time is taken as it ends, a moment before
it is written, and its writer may wait on another one's lock (up to the log's busy timeout):
a call can arrive after a later one was shown."""
COLUMNS = ("time", "session", "round", "tool", "arguments", "kind", "ms", "attempts")
RIGHT = ("round", "ms", "attempts")
ARGUMENTS_LIMIT = 60
MIN_WIDTHS = {"tool": len("get_doc_section"), "ms": len("30,000"), "arguments": 12}


@dataclass(frozen=True)
class LogOptions:
    limit: int = 20
    tool: str | None = None
    kind: ErrorKind | None = None
    session: str | None = None
    since: float | None = None
    errors: bool = False
    as_json: bool = False
    stats: bool = False
    follow: bool = False
    script: str | None = None


def parse_since(value: str, *, now: float | None = None) -> float:
    """`30m`, `2h`, `7d` (also `45s`, `2w`) → the Unix time that long ago; ValueError otherwise."""
    match = _SINCE.match(value)
    if match is None:
        raise ValueError(f"{value!r} is not a duration like 30m, 2h or 7d")
    amount, unit = float(match.group(1)), match.group(2).lower()
    return (time.time() if now is None else now) - amount * _UNIT_S[unit]


def call_row(call: dict[str, Any]) -> tuple[Any, ...]:
    arguments = call["arguments"] if isinstance(call["arguments"], (dict, str)) else json.dumps(call["arguments"])
    return (
        local_time(float(call["ts"])),
        call["session"],
        call["round"],
        call["name"],
        compact_args(arguments, limit=ARGUMENTS_LIMIT),
        call["kind"],
        f"{float(call['ms']):,.0f}",
        call["attempts"],
    )


def stats_rows(stats: list[dict[str, Any]]) -> list[tuple[Any, ...]]:
    return [
        (
            entry["name"],
            entry["calls"],
            f"{entry['p50_ms']:,.0f}",
            f"{entry['p95_ms']:,.0f}",
            f"{entry['max_ms']:,.0f}",
            ", ".join(f"{kind} {count}" for kind, count in entry["kinds"].items()),
            entry["retries"],
            entry["denials"],
        )
        for entry in stats
    ]


def run_log(options: LogOptions) -> None:
    if not options.follow:
        _show(options)
        return
    try:
        _show(options)
    except KeyboardInterrupt:
        return  # Ctrl-C is how a follow ends: a quiet, successful exit


def _show(options: LogOptions) -> None:
    log = CallLog.at_home(atlas_home())
    console = make_console(for_tables=True)
    if options.script is not None:
        print(json.dumps(log.export_script(options.script), indent=2))
        return
    if options.stats:
        stats = log.stats(tool=options.tool, session=options.session, since=options.since)
        if options.as_json:
            for entry in stats:
                print(json.dumps(entry))
            return
        if not stats:
            console.print("No calls match.", style="dim")
            return
        columns = ("tool", "calls", "p50 ms", "p95 ms", "max ms", "kinds", "retries", "denials")
        console.print(
            data_table(columns, stats_rows(stats), right=("calls", "p50 ms", "p95 ms", "max ms", "retries", "denials"))
        )
        return
    filters: dict[str, Any] = {
        "tool": options.tool,
        "kind": options.kind,
        "session": options.session,
        "since": options.since,
        "errors_only": options.errors,
    }
    # Read before the latest calls are shown: one logged in between is then shown there or followed.
    known = {_key(call) for call in _recent(log, filters)} if options.follow else set()
    calls = log.calls(limit=options.limit, **filters)
    rows = [call_row(call) for call in calls]
    widths = follow_widths(rows, console.width) if options.follow else None
    if options.as_json:
        _print_json(calls)
    elif calls or options.follow:
        console.print(data_table(COLUMNS, rows, right=RIGHT, widths=widths))
    else:
        console.print(
            f"No calls logged yet in {clean_line(log.path)}." if not any(filters.values()) else "No calls match.",
            style="dim",
        )
    if options.follow:
        known.update(_key(call) for call in calls)
        _follow(log, console, known, filters, widths=widths, as_json=options.as_json)


def follow_widths(rows: list[tuple[Any, ...]], width: int) -> dict[str, int]:
    """Column widths that every table of a follow shares, so that its rows line up under the header.

    The header's and the first rows' own widths, room for the built-in tools' names and for a
    few seconds in `ms`, and what is left of the line for the arguments.
    """
    fixed = {
        name: max([cell_len(name), MIN_WIDTHS.get(name, 0), *(cell_len(clean_line(row[index])) for row in rows)])
        for index, name in enumerate(COLUMNS)
        if name != "arguments"
    }
    room = width - sum(fixed.values()) - 3 * (len(COLUMNS) - 1)  # a rule and a space each side between columns
    return {**fixed, "arguments": max(MIN_WIDTHS["arguments"], min(ARGUMENTS_LIMIT, room))}


def _print_json(calls: list[dict[str, Any]]) -> None:
    for call in calls:
        print(json.dumps(call), flush=True)


def _key(call: dict[str, Any]) -> tuple[Any, ...]:
    return (call["session"], call["call_id"], call["ts"])


def _recent(log: CallLog, filters: dict[str, Any]) -> list[dict[str, Any]]:
    """The calls of the last `FOLLOW_LOOKBACK_S` that match the filters, oldest first."""
    since = max(time.time() - FOLLOW_LOOKBACK_S, filters["since"] or 0.0)
    return log.calls(limit=None, **{**filters, "since": since})


def _follow(
    log: CallLog,
    console: Console,
    known: set[tuple[Any, ...]],
    filters: dict[str, Any],
    *,
    widths: dict[str, int] | None,
    as_json: bool,
) -> None:
    """Poll for calls not shown yet, until Ctrl-C."""
    while True:
        time.sleep(FOLLOW_POLL_S)
        recent = _recent(log, filters)
        fresh = [call for call in recent if _key(call) not in known]
        known = {_key(call) for call in recent}  # a call that left the window is never read again
        if not fresh:
            continue
        if as_json:
            _print_json(fresh)
        else:
            table = data_table(COLUMNS, [call_row(call) for call in fresh], right=RIGHT, widths=widths)
            table.show_header = False
            console.print(table)
