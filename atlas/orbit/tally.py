"""The `count_issues_by` tool: how many issues each author, label, state, year or month has.

`search_issues` counts one set of issues; a maintainer also asks how they split up: who reports the most
bugs, which labels the open issues carry, how many issues came in each year. The same filters apply, and
labels count as Atlas's own writes left them.
"""

from __future__ import annotations

import sqlite3
from typing import Annotated, Any, Literal, NamedTuple

from atlas.dataset.read import connect
from atlas.orbit import search_filters as filters
from atlas.orbit.db import labels_of
from atlas.orbit.fts_match import all_words_match, search_terms
from atlas.orbit.issues import ISSUE_TTL_S, READ_TIMEOUT_S, search_tags, tracker_changes
from atlas.orbit.search_filters import count_matches, data_ends_before, filter_conditions, issues_matching
from atlas.tools.arguments import Arg
from atlas.tools.registry import ToolContext, tool
from atlas.tracker.journal import LabelChanges

Group = Literal["author", "label", "state", "year", "month"]
_KEYS: dict[str, str] = {
    "author": "i.author",
    "state": "i.state",
    "year": "substr(i.created_at, 1, 4)",
    "month": "substr(i.created_at, 1, 7)",
}
_BY_TIME = frozenset({"year", "month"})


class TallyArgs(NamedTuple):
    by: Annotated[
        Group,
        Arg(
            description="What to group the issues by: their author, each label they carry, their state, or the year or "
            "month they were opened."
        ),
    ]
    query: Annotated[
        str,
        Arg(max_length=500, description="Only issues with all these plain words (as search_issues)."),
    ] = ""
    state: filters.State = None
    label: Annotated[str | None, Arg(description="Only issues with this label, one of the project's own.")] = None
    labels: Annotated[tuple[str, ...], Arg(max_length=5, description="Further labels each issue must have.")] = ()
    any_labels: filters.AnyLabels = ()
    without_labels: filters.WithoutLabels = ()
    author: filters.Author = None
    created_since: filters.CreatedSince = None
    created_before: filters.CreatedBefore = None
    updated_since: filters.UpdatedSince = None
    updated_before: filters.UpdatedBefore = None
    unlabelled: filters.Unlabelled = False
    limit: Annotated[
        int,
        Arg(ge=1, le=50, description="How many groups to return: the largest (for a year or month, the latest)."),
    ] = 10
    busiest_first: Annotated[
        bool,
        Arg(
            description="For a year or month: the ones with the most issues first, not the latest "
            "(`which month had the most new issues?`)."
        ),
    ] = False
    fewest_first: Annotated[
        bool,
        Arg(description="The groups with the fewest issues first (`which label has the fewest open issues?`)."),
    ] = False


def _sources(args: TallyArgs, data: Any) -> list[str]:
    return ["authors' logins and label names"] if args.by in {"author", "label"} else []


@tool(TallyArgs, timeout_s=READ_TIMEOUT_S, untrusted=_sources, cache_ttl_s=ISSUE_TTL_S, cache_tags=search_tags)
def count_issues_by(args: TallyArgs, ctx: ToolContext) -> dict[str, Any]:
    """Count the issues of {project} by author, label, state, or the year or month they were opened: the largest
    groups first (years and months: the latest first, unless busiest_first; fewest_first: the smallest first), with
    `total`, how many issues matched.
    Takes the filters of search_issues. For `who reports the most bugs?`, `open issues per label`, `how many issues
    each year?`."""
    changes = tracker_changes(ctx)
    result: dict[str, Any] = {"by": args.by, "groups": []}
    with connect(ctx.data, ctx.home) as conn:
        where, params, unknown = filter_conditions(
            conn, args, [args.label or "", *args.labels], changes, args.any_labels, args.without_labels
        )
        if unknown:
            return result | {"total": 0, "hint": unknown}
        terms = search_terms(args.query)
        match = all_words_match(conn, terms) if terms else None
        total = count_matches(conn, match, where, params)
        if not total and (stale := data_ends_before(conn, args)):
            result["note"] = stale
        without = None
        if args.by == "label":
            counts, without = _by_label(conn, match, where, params, changes)
        else:
            counts = _by_column(conn, _KEYS[args.by], match, where, params)
    if args.fewest_first:
        groups = sorted(counts.items(), key=lambda item: (item[1], str(item[0]).casefold()))
    elif args.by in _BY_TIME and not args.busiest_first:
        groups = sorted(counts.items(), key=lambda item: str(item[0]), reverse=True)
    else:
        groups = sorted(counts.items(), key=lambda item: (-item[1], str(item[0]).casefold()))
    shown = groups[: args.limit]
    result |= {"total": total, "group_count": len(groups)}
    result["groups"] = [{"key": key, "count": count} for key, count in shown]
    if without is not None:
        result["without_label"] = without
    if len(groups) > len(shown):
        result["note"] = f"{len(groups) - len(shown)} more groups: call again with a larger limit (at most 50)."
    if args.by == "author" and None in counts:
        result["author_note"] = "A key of null: the export did not say who opened those issues."
    return result


def _by_column(
    conn: sqlite3.Connection, key: str, match: str | None, where: str, params: list[Any]
) -> dict[str | None, int]:
    source, values = issues_matching(match, where, params)
    return {value: int(n) for value, n in conn.execute(f"SELECT {key}, count(*) {source} GROUP BY 1", values)}


def _by_label(
    conn: sqlite3.Connection, match: str | None, where: str, params: list[Any], changes: dict[int, LabelChanges]
) -> tuple[dict[str | None, int], int]:
    """Each label's issues among those matched (an issue counts once for each label it has), and how many have
    none; the issues Atlas changed the labels of counted as its writes left them."""
    source, values = issues_matching(match, where, params)
    counts: dict[str | None, int] = {
        name: int(n)
        for name, n in conn.execute(
            "SELECT l.name, count(*) FROM issue_labels il JOIN labels l ON l.id = il.label_id"
            f" WHERE il.issue_id IN (SELECT i.id {source}) GROUP BY l.id",
            values,
        )
    }
    bare = "NOT EXISTS (SELECT 1 FROM issue_labels il WHERE il.issue_id = i.id)"
    without = int(conn.execute(f"SELECT count(*) {source} AND {bare}", values).fetchone()[0])
    if changes:
        marks = ",".join("?" * len(changes))
        changed = [row[0] for row in conn.execute(f"SELECT i.id {source} AND i.id IN ({marks})", [*values, *changes])]
        for issue_id, before in labels_of(conn, changed).items():
            after = changes[issue_id].applied_to(before)
            for name in set(before) - set(after):
                counts[name] -= 1
            for name in set(after) - set(before):
                counts[name] = counts.get(name, 0) + 1
            without += (not after) - (not before)
    return {name: n for name, n in counts.items() if n > 0}, without
