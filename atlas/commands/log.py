"""`atlas log`: the call log as a table, JSON lines, per-tool statistics, a follow, or a replay script."""

from __future__ import annotations

import json
import re
import sys
import time
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from rich.cells import cell_len
from rich.console import Console
from rich.table import Table

from atlas.calllog import CallLog
from atlas.foundation.config import atlas_home
from atlas.foundation.errors import ErrorKind
from atlas.foundation.sanitize import clean_line
from atlas.ui.json_out import print_json
from atlas.ui.render import data_table, iso_time, local_time, make_console
from atlas.ui.safe import compact_args

if TYPE_CHECKING:
    from atlas.calllog.shared_log import SharedCallLog

_SINCE = re.compile(r"^\s*(\d+(?:\.\d+)?)\s*([smhdw])\s*$", re.IGNORECASE)
_UNIT_S = {"s": 1, "m": 60, "h": 3600, "d": 86400, "w": 604800}
FOLLOW_POLL_S = 0.5
FOLLOW_LOOKBACK_S = 30.0
"""How far back each poll of a follow looks. A call's time is taken as it ends, a moment before
it is written, and its writer may wait on another one's lock (up to the log's busy timeout):
a call can arrive after a later one was shown."""
COLUMNS: tuple[str, ...] = ("time", "session", "question", "round", "tool", "arguments", "kind", "ms", "attempts")
QUESTION_LIMIT = 40
RIGHT = ("round", "ms", "attempts")
ARGUMENTS_LIMIT = 60
MIN_WIDTHS = {"tool": len("get_doc_section"), "ms": len("30,000"), "arguments": 12}
NARROW_BELOW = 130
"""A terminal narrower than this gets the narrow layout: every column would not fit on one line."""
NARROW_COLUMNS: tuple[str, ...] = ("time", "session", "tool", "arguments", "kind", "ms")
CUT = ("question", "arguments", "tool", "kind")
"""What a narrow terminal cuts with `…`; the time and the session id are never split."""
KEPT_WIDTHS = {"tool": len("search_issues"), "arguments": 16, "kind": len("timeout"), "question": len("question")}
"""Cut columns never get narrower than this on a terminal: a question gives up its width first."""


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
    mine: bool = False


def parse_since(value: str, *, now: float | None = None) -> float:
    """`30m`, `2h`, `7d` (also `45s`, `2w`) → the Unix time that long ago; ValueError otherwise."""
    match = _SINCE.match(value)
    if match is None:
        raise ValueError(f"{value!r} is not a duration like 30m, 2h or 7d")
    amount, unit = float(match.group(1)), match.group(2).lower()
    return (time.time() if now is None else now) - amount * _UNIT_S[unit]


def with_questions(log: CallLog | SharedCallLog, calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Each call with the question of its turn (None while the turn is unanswered)."""
    asked = log.questions(call["session"] for call in calls)
    return [{**call, "question": asked.get((call["session"], call["turn"]))} for call in calls]


def call_rows(calls: list[dict[str, Any]], *, whole: bool = False) -> list[tuple[Any, ...]]:
    """Table rows; a turn's question is shown on its first row only, so it reads as a heading."""
    rows: list[tuple[Any, ...]] = []
    previous: tuple[Any, Any] | None = None
    for call in calls:
        turn = (call["session"], call["turn"])
        rows.append(call_row(call, shown_question=turn != previous, whole=whole))
        previous = turn
    return rows


def call_row(call: dict[str, Any], *, shown_question: bool = True, whole: bool = False) -> tuple[Any, ...]:
    """One call's cells; `whole` (a pipe) cuts neither the question nor the arguments."""
    arguments = call["arguments"] if isinstance(call["arguments"], (dict, str)) else json.dumps(call["arguments"])
    question = clean_line(call.get("question") or "") if shown_question else ""
    if len(question) > QUESTION_LIMIT and not whole:
        question = question[: QUESTION_LIMIT - 1] + "…"
    return (
        local_time(float(call["ts"])),
        call["session"],
        question,
        call["round"],
        call["name"],
        compact_args(arguments, limit=ARGUMENTS_LIMIT) if not whole else compact_args(arguments, limit=sys.maxsize),
        f"{call['kind']} · {clean_line(call['decided_by'])}" if call.get("decided_by") else call["kind"],
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
    log, shared = _call_log(options)
    console = make_console(for_tables=True)
    if options.script is not None:
        print_json(log.export_script(options.script), indent=2)
        return
    if options.stats:
        _show_stats(log, console, options)
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
    calls = with_questions(log, log.calls(limit=options.limit, **filters))
    shown = layout(console)
    widths = follow_widths(table_rows(calls, shown), shown, console.width) if options.follow and not shared else None
    if options.as_json:
        _print_json(calls)
    elif calls or options.follow:
        console.print(_table(console, calls, widths=widths, shared=shared))
    else:
        filtered = any(filters.values()) or (options.mine and shared)
        console.print("No calls match." if filtered else f"No calls logged yet in {clean_line(log.path)}.", style="dim")
    if options.follow:
        known.update(_key(call) for call in calls)
        _follow(log, console, known, filters, widths=widths, as_json=options.as_json, shared=shared)


def _call_log(options: LogOptions) -> tuple[CallLog | SharedCallLog, bool]:
    """The log every reading shows, and whether it is a team's: with a shared database, everyone's
    calls there (`--mine`: only your own), each naming who made it where; else this folder's `log.db`
    (which holds only its own person's calls, so `--mine` changes nothing there)."""
    from atlas.state.settings import state_settings

    home = atlas_home()
    url = state_settings(home).url
    if not url:
        return CallLog.at_home(home), False
    from atlas.calllog.shared_log import SharedCallLog
    from atlas.state.postgres.database import shared_database
    from atlas.state.who import person

    return SharedCallLog(shared_database(url), person(home) if options.mine else None), True


def _table(console: Console, calls: list[dict[str, Any]], *, widths: dict[str, int] | None, shared: bool) -> Table:
    if not shared:
        return call_table(console, calls, widths=widths)
    from atlas.commands.log_shared import shared_table

    return shared_table(console, calls)


def _show_stats(log: CallLog | SharedCallLog, console: Console, options: LogOptions) -> None:
    """Per tool, then calls per question overall and per source (JSON: a last line `calls_per_question`)."""
    stats = log.stats(tool=options.tool, session=options.session, since=options.since)
    per_question = log.calls_per_question(tool=options.tool, session=options.session, since=options.since)
    if options.as_json:
        for entry in stats:
            print_json(entry)
        if stats or per_question["questions"]:
            print_json({"calls_per_question": per_question})
        return
    if not stats:
        console.print("No calls match.", style="dim")
        return
    columns = ("tool", "calls", "p50 ms", "p95 ms", "max ms", "kinds", "retries", "denials")
    console.print(
        data_table(
            columns,
            stats_rows(stats),
            right=("calls", "p50 ms", "p95 ms", "max ms", "retries", "denials"),
            cut=cut_on(console, "kinds"),
        )
    )
    rows = [("all", per_question), *per_question["sources"].items()]
    console.print()
    console.print(
        data_table(
            ("calls per question", "questions", "p50", "p95", "max"),
            [(clean_line(name), e["questions"], e["p50"], e["p95"], e["max"]) for name, e in rows],
            right=("questions", "p50", "p95", "max"),
        )
    )


def layout(console: Console) -> tuple[str, ...]:
    """Every column, or on a narrow terminal the ones a reader scans (round and attempts are in --json)."""
    return NARROW_COLUMNS if console.is_terminal and console.width < NARROW_BELOW else COLUMNS


def table_rows(calls: list[dict[str, Any]], columns: tuple[str, ...], *, whole: bool = False) -> list[tuple[Any, ...]]:
    """`call_row` cut down to `columns`; the narrow layout's time drops the year (`12-01 05:08:05`)."""
    picked = [COLUMNS.index(name) for name in columns]
    rows = [tuple(row[index] for index in picked) for row in call_rows(calls, whole=whole)]
    if columns is NARROW_COLUMNS:
        rows = [(str(row[0])[5:], *row[1:]) for row in rows]
    return rows


def call_table(console: Console, calls: list[dict[str, Any]], *, widths: dict[str, int] | None = None) -> Table:
    """The calls as `atlas log` and `/log` show them, fitted to this console."""
    columns = layout(console)
    right = [name for name in RIGHT if name in columns]
    rows = table_rows(calls, columns, whole=not console.is_terminal)
    return data_table(columns, rows, right=right, widths=widths, cut=cut_on(console, *CUT), min_widths=KEPT_WIDTHS)


def cut_on(console: Console, *columns: str) -> tuple[str, ...]:
    """The columns to cut with an ellipsis on a narrow terminal; a pipe keeps every cell whole."""
    return columns if console.is_terminal else ()


def follow_widths(rows: list[tuple[Any, ...]], columns: tuple[str, ...], width: int) -> dict[str, int]:
    """Column widths that every table of a follow shares, so that its rows line up under the header.

    The header's and the first rows' own widths, room for the built-in tools' names and for a
    few seconds in `ms`, and what is left of the line for the arguments.
    """
    fixed = {
        name: max([cell_len(name), MIN_WIDTHS.get(name, 0), *(cell_len(clean_line(row[index])) for row in rows)])
        for index, name in enumerate(columns)
        if name != "arguments"
    }
    room = width - sum(fixed.values()) - 3 * (len(columns) - 1)  # a rule and a space each side between columns
    return {**fixed, "arguments": max(MIN_WIDTHS["arguments"], min(ARGUMENTS_LIMIT, room))}


def _print_json(calls: list[dict[str, Any]]) -> None:
    for call in calls:
        print_json({**call, "ts": iso_time(float(call["ts"]))}, flush=True)


def _key(call: dict[str, Any]) -> tuple[Any, ...]:
    return (call["session"], call["call_id"], call["ts"])


def _recent(log: CallLog | SharedCallLog, filters: dict[str, Any]) -> list[dict[str, Any]]:
    """The calls of the last `FOLLOW_LOOKBACK_S` that match the filters, oldest first."""
    since = max(time.time() - FOLLOW_LOOKBACK_S, filters["since"] or 0.0)
    return log.calls(limit=None, **{**filters, "since": since})


def _follow(
    log: CallLog | SharedCallLog,
    console: Console,
    known: set[tuple[Any, ...]],
    filters: dict[str, Any],
    *,
    widths: dict[str, int] | None,
    as_json: bool,
    shared: bool,
) -> None:
    """Poll for calls not shown yet, until Ctrl-C."""
    while True:
        time.sleep(FOLLOW_POLL_S)
        recent = _recent(log, filters)
        fresh = with_questions(log, [call for call in recent if _key(call) not in known])
        known = {_key(call) for call in recent}  # a call that left the window is never read again
        if not fresh:
            continue
        if as_json:
            _print_json(fresh)
        else:
            table = _table(console, fresh, widths=widths, shared=shared)
            table.show_header = False
            console.print(table)
