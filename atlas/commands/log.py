"""`atlas log`: the call log as a table, JSON lines, per-tool statistics, a follow, or a replay script."""

from __future__ import annotations

import json
import re
import time
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from rich.console import Console

from atlas.calllog import CallLog
from atlas.config import atlas_home
from atlas.ui.render import data_table, make_console
from atlas.ui.safe import clean_line, compact_args

_SINCE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$", re.IGNORECASE)
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
FOLLOW_POLL_S = 0.5
COLUMNS = ("time", "session", "round", "tool", "arguments", "kind", "ms", "attempts")


@dataclass(frozen=True)
class LogOptions:
    limit: int = 20
    tool: str | None = None
    kind: str | None = None
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
    when = datetime.fromtimestamp(float(call["ts"])).strftime("%Y-%m-%d %H:%M:%S")
    arguments = call["arguments"] if isinstance(call["arguments"], (dict, str)) else json.dumps(call["arguments"])
    return (
        when,
        call["session"],
        call["round"],
        call["name"],
        compact_args(arguments, limit=60),
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
    calls = log.calls(limit=options.limit, **filters)
    if options.as_json:
        _print_json(calls)
    elif calls:
        console.print(data_table(COLUMNS, [call_row(call) for call in calls], right=("round", "ms", "attempts")))
    elif not options.follow:
        console.print(
            f"No calls logged yet in {clean_line(log.path)}." if not any(filters.values()) else "No calls match.",
            style="dim",
        )
    if options.follow:
        _follow(log, console, calls, filters, as_json=options.as_json)


def _print_json(calls: list[dict[str, Any]]) -> None:
    for call in calls:
        print(json.dumps(call), flush=True)


def _follow(
    log: CallLog, console: Console, seen: list[dict[str, Any]], filters: dict[str, Any], *, as_json: bool
) -> None:
    """Poll for calls logged after the last one shown, until Ctrl-C."""
    last_ts = max((float(call["ts"]) for call in seen), default=0.0)
    shown = {(call["session"], call["call_id"], call["ts"]) for call in seen}
    while True:
        time.sleep(FOLLOW_POLL_S)
        fresh = [
            call
            for call in log.calls(limit=None, **{**filters, "since": max(last_ts, filters["since"] or 0)})
            if (call["session"], call["call_id"], call["ts"]) not in shown
        ]
        for call in fresh:
            shown.add((call["session"], call["call_id"], call["ts"]))
            last_ts = max(last_ts, float(call["ts"]))
        if not fresh:
            continue
        if as_json:
            _print_json(fresh)
        else:
            table = data_table(COLUMNS, [call_row(call) for call in fresh], right=("round", "ms", "attempts"))
            table.show_header = False
            console.print(table)
