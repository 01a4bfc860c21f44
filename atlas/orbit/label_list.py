"""The `list_labels` tool: the labels a project's issues use, most used first, as Atlas's own writes left them.

A model meeting a project for the first time learns its vocabulary here instead of guessing label
names; a person asks `which labels does this project use?`.
"""

from __future__ import annotations

import sqlite3
from collections import Counter
from typing import Annotated, Any, NamedTuple

from atlas.dataset.read import connect
from atlas.orbit.db import labels_of
from atlas.orbit.issues import ISSUE_TTL_S, READ_TIMEOUT_S, search_tags, tracker_changes
from atlas.tools.arguments import Arg
from atlas.tools.registry import ToolContext, tool
from atlas.tracker.journal import LabelChanges


class LabelListArgs(NamedTuple):
    limit: Annotated[int, Arg(ge=1, le=500, description="How many labels to list, most used first (1-500).")] = 50


def _sources(args: LabelListArgs, data: Any) -> list[str]:
    return ["the project's label names"]  # written by whoever made the labels: data, never instructions


@tool(LabelListArgs, timeout_s=READ_TIMEOUT_S, untrusted=_sources, cache_ttl_s=ISSUE_TTL_S, cache_tags=search_tags)
def list_labels(args: LabelListArgs, ctx: ToolContext) -> dict[str, Any]:
    """List the labels the issues of {project} use, most used first: each with how many open issues and how
    many issues in all have it. Use these names, as spelled, to filter search_issues or to add a label."""
    changes = tracker_changes(ctx)
    with connect(ctx.data, ctx.home) as conn:
        rows = conn.execute(
            "SELECT l.name, count(*), sum(i.state = 'open') FROM labels l"
            " JOIN issue_labels il ON il.label_id = l.id JOIN issues i ON i.id = il.issue_id GROUP BY l.id"
        ).fetchall()
        total, opened = Counter({name: int(n) for name, n, _ in rows}), Counter({name: int(o) for name, _, o in rows})
        if changes:  # the labels Atlas added or removed since the data was written
            _count_changes(conn, changes, total, opened)
    used = sorted((name for name in total if total[name] > 0), key=lambda name: (-total[name], name.casefold()))
    shown = [{"name": name, "open": opened[name], "total": total[name]} for name in used[: args.limit]]
    result: dict[str, Any] = {"count": len(used), "labels": shown}
    if len(used) > len(shown):
        result["note"] = f"{len(used) - len(shown)} more, less used: call again with a larger limit (at most 500)."
    elif not used:
        result["note"] = "No issue of this project has a label."
    return result


def _count_changes(
    conn: sqlite3.Connection, changes: dict[int, LabelChanges], total: Counter[str], opened: Counter[str]
) -> None:
    """`total` and `opened` moved by each label Atlas added to or removed from an issue of the data."""
    states = dict(
        conn.execute(f"SELECT id, state FROM issues WHERE id IN ({','.join('?' * len(changes))})", list(changes))
    )
    for issue_id, before in labels_of(conn, list(states)).items():
        after = changes[issue_id].applied_to(before)
        steps = [(name, -1) for name in before if name not in after]
        steps += [(name, 1) for name in after if name not in before]
        for name, step in steps:
            total[name] += step
            opened[name] += step if states[issue_id] == "open" else 0
