"""The filters of `search_issues` as SQL: state, labels (as Atlas's own changes left them), author, days.

Every value is a parameter; the conditions are appended to a query over `issues i`.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Sequence
from datetime import date
from typing import Annotated, Any, Literal, Protocol

from atlas.foundation.label_names import alternatives, resolve_label, unquoted
from atlas.tools.arguments import Arg
from atlas.tracker.journal import LabelChanges

State = Annotated[Literal["open", "closed"] | None, Arg(description="Only issues in this state.")]
AnyLabels = Annotated[
    tuple[str, ...], Arg(max_length=5, description="Only issues with at least one of these labels (for `X or Y`).")
]
WithoutLabels = Annotated[
    tuple[str, ...], Arg(max_length=30, description="Only issues with none of these labels (for `not X`).")
]
CreatedSince = Annotated[date | None, Arg(description="Only issues opened on or after this day (YYYY-MM-DD).")]
CreatedBefore = Annotated[date | None, Arg(description="Only issues opened before this day (YYYY-MM-DD).")]
Unlabelled = Annotated[bool, Arg(description="Only issues with no label at all.")]
Author = Annotated[
    str | None, Arg(max_length=100, description="Only issues opened by this user (their login, e.g. svetlana-k).")
]
UpdatedSince = Annotated[
    date | None, Arg(description="Only issues with activity (opened or commented) on or after this day (YYYY-MM-DD).")
]
UpdatedBefore = Annotated[
    date | None,
    Arg(description="Only issues whose last activity (opened or commented) was before this day (YYYY-MM-DD)."),
]
"""The filters `search_issues` and `count_issues_by` take alike, as their records declare them."""


class Filters(Protocol):
    """What a search is narrowed by (`SearchArgs`, `TallyArgs`): read only."""

    @property
    def author(self) -> str | None: ...

    @property
    def created_since(self) -> date | None: ...

    @property
    def created_before(self) -> date | None: ...

    @property
    def updated_since(self) -> date | None: ...

    @property
    def updated_before(self) -> date | None: ...

    @property
    def unlabelled(self) -> bool: ...

    @property
    def state(self) -> str | None:
        """`SearchArgs` narrows it to `open` or `closed`."""
        ...


def search_filters(
    args: Filters, overlay: dict[str, tuple[list[int], list[int]]], labelled_by_atlas: Sequence[int] = ()
) -> tuple[str, list[Any]]:
    """The conditions: state, author, days, and each label as Atlas's own changes left it (added, removed);
    `unlabelled`: no label in the data, and none added through Atlas (`labelled_by_atlas`)."""
    where, params = "", list[Any]()
    if args.state:
        where, params = " AND i.state = ?", [args.state]
    if args.author:
        where += " AND i.author = ? COLLATE NOCASE"
        params.append(args.author.strip().lstrip("@"))
    if args.created_since:
        where += " AND i.created_at >= ?"
        params.append(args.created_since.isoformat())
    if args.created_before:
        where += " AND i.created_at < ?"
        params.append(args.created_before.isoformat())
    for day, compare in ((args.updated_since, ">="), (args.updated_before, "<")):
        if day:
            where += f" AND {LAST_ACTIVITY} {compare} ?"
            params.append(day.isoformat())
    if args.unlabelled:
        where += " AND NOT EXISTS (SELECT 1 FROM issue_labels il WHERE il.issue_id = i.id)"
        if labelled_by_atlas:
            where += f" AND i.id NOT IN ({','.join('?' * len(labelled_by_atlas))})"
            params += list(labelled_by_atlas)
    for label, (added, removed) in overlay.items():
        has, values = has_label(label, added, removed)
        where += f" AND ({has})"
        params += values
    return where, params


def has_label(label: str, added: list[int], removed: list[int]) -> tuple[str, list[Any]]:
    """The condition that an issue carries `label` as Atlas's own changes left it, and its parameters."""
    # A key lookup per candidate: ranking and "newest first" stop early, no id list is built.
    has = (
        "EXISTS (SELECT 1 FROM issue_labels il WHERE il.issue_id = i.id AND il.label_id IN"
        " (SELECT l.id FROM labels l WHERE l.name = ? COLLATE NOCASE))"
    )
    params: list[Any] = [label]
    if removed:
        has += f" AND i.id NOT IN ({','.join('?' * len(removed))})"
        params += removed
    if added:
        has = f"({has}) OR i.id IN ({','.join('?' * len(added))})"
        params += added
    return has, params


LAST_ACTIVITY = "max(i.created_at, coalesce((SELECT max(c.created_at) FROM comments c WHERE c.issue_id = i.id), ''))"
"""When an issue last moved: its newest comment, else its opening (the data keeps no other update time)."""


def data_ends_before(conn: sqlite3.Connection, args: Filters) -> str:
    """When a "since" day is later than anything in the data, say so: an empty answer then means the data
    stops early (an old import or sync), not that nothing happened. Empty otherwise."""
    since = max((day for day in (args.created_since, args.updated_since) if day), default=None)
    if since is None:
        return ""
    newest = conn.execute(
        "SELECT max(day) FROM (SELECT max(created_at) AS day FROM issues"
        " UNION ALL SELECT max(created_at) FROM comments)"
    ).fetchone()[0]
    if not newest or str(newest)[:10] >= since.isoformat():
        return ""
    return (
        f"This data's last activity is on {str(newest)[:10]}, before {since.isoformat()}:"
        " it may be behind the tracker (`atlas data sync` fetches what is newer)."
    )


def issues_matching(match: str | None, where: str, params: list[Any]) -> tuple[str, list[Any]]:
    """`FROM … WHERE …` over `issues i`, for the issues with the words (an FTS5 match, or None) and the filters,
    and its parameters; more conditions can follow as `AND …`."""
    if match is None:
        return f"FROM issues i WHERE 1 = 1{where}", params
    return f"FROM issues_fts JOIN issues i ON i.id = issues_fts.rowid WHERE issues_fts MATCH ?{where}", [match, *params]


def count_matches(
    conn: sqlite3.Connection, match: str | None, where: str, params: list[Any], at_most: int | None = None
) -> int:
    """How many issues match the words (as `match` joins them) and the filters: no ranking, no snippets. `at_most`:
    counting stops there (a common word in 100,000 issues takes a tenth of a second to count in full)."""
    source, values = issues_matching(match, where, params)
    if at_most is None:
        return int(conn.execute(f"SELECT count(*) {source}", values).fetchone()[0])
    return int(conn.execute(f"SELECT count(*) FROM (SELECT 1 {source} LIMIT ?)", [*values, at_most]).fetchone()[0])


def filter_conditions(
    conn: sqlite3.Connection,
    args: Filters,
    labels: list[str],
    changes: dict[int, LabelChanges],
    any_labels: Sequence[str] = (),
    without_labels: Sequence[str] = (),
) -> tuple[str, list[Any], str]:
    """The conditions of every filter, each label resolved through the project's names and Atlas's own writes; when
    a label is on no issue, no conditions and the hint that says so (what `search_issues` and `count_issues_by`
    share). `any_labels`: an issue needs at least one of them; only when none is known is that a hint.
    `without_labels`: an issue has none of them."""
    overlay, unknown = label_overlay(conn, labels, changes)
    if unknown:
        return "", [], unknown
    labelled = sorted(issue_id for issue_id, change in changes.items() if change.added)
    where, params = search_filters(args, overlay, labelled_by_atlas=labelled)
    if [name for name in any_labels if unquoted(name)]:
        either, values, unknown = _any_of(conn, list(any_labels), changes)
        if unknown:
            return "", [], unknown
        where += either
        params += values
    for name in (name for name in without_labels if unquoted(name)):
        excluded, unknown = label_overlay(conn, [name], changes)
        if unknown:
            return "", [], unknown
        for label, (added, removed) in excluded.items():
            has, values = has_label(label, added, removed)
            where += f" AND NOT ({has})"
            params += values
    return where, params, ""


def _any_of(conn: sqlite3.Connection, names: list[str], changes: dict[int, LabelChanges]) -> tuple[str, list[Any], str]:
    """` AND (has one OR has another …)` over the labels that are on some issue, its parameters, and a hint
    when none of them is."""
    known: dict[str, tuple[list[int], list[int]]] = {}
    first_unknown = ""
    for name in names:
        overlay, unknown = label_overlay(conn, [name], changes)
        if unknown:
            first_unknown = first_unknown or unknown
        else:
            known.update(overlay)
    if not known:
        return "", [], first_unknown
    conditions, params = [], list[Any]()
    for label, (added, removed) in known.items():
        has, values = has_label(label, added, removed)
        conditions.append(f"({has})")
        params += values
    return f" AND ({' OR '.join(conditions)})", params, ""


def label_overlay(
    conn: sqlite3.Connection, names: list[str], changes: dict[int, LabelChanges]
) -> tuple[dict[str, tuple[list[int], list[int]]], str]:
    """The labels asked for, as the project spells them, each with the issues Atlas added it to and took it off;
    and, when one is on no issue, a hint naming it and what comes closest (empty otherwise)."""
    known = [name for (name,) in conn.execute("SELECT name FROM labels ORDER BY name")]
    folded = {name.casefold() for name in known}
    named = [name.strip() for name in names if unquoted(name)]
    wanted = list(dict.fromkeys(resolve_label(name, known) or unquoted(name) for name in named))
    overlay = {
        label: (
            _with_label(changes, label.casefold(), removed=False),
            _with_label(changes, label.casefold(), removed=True),
        )
        for label in wanted
    }
    if unknown := [label for label in wanted if label.casefold() not in folded and not overlay[label][0]]:
        return overlay, f"No issue has the label {unknown[0]!r}; {alternatives(unknown[0], known)}."
    return overlay, ""


def _with_label(changes: dict[int, LabelChanges], label: str, *, removed: bool) -> list[int]:
    """The issues Atlas added `label` to (or, with `removed`, took it off), casefolded."""
    if not label:
        return []
    return sorted(
        issue_id
        for issue_id, change in changes.items()
        if label in {name.casefold() for name in (change.removed if removed else change.added)}
    )
