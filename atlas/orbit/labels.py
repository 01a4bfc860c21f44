"""The label tools: add and remove one label, where a `severity:*` label replaces the one before.

Each declares a `check` the executor runs before it asks anyone: a call that would change nothing
is answered `changed: false`, and one the tracker would refuse fails, both without a prompt.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable
from typing import Annotated, Any, NamedTuple

from atlas.foundation.errors import ToolError
from atlas.foundation.sanitize import clean_line
from atlas.orbit.db import IssueId, issue_brief
from atlas.orbit.issues import changes_issue
from atlas.tools.arguments import Arg
from atlas.tools.registry import ArgsT, ToolContext, tool
from atlas.tracker import open_tracker
from atlas.tracker.journal import IssueBrief, MockTracker

EXCLUSIVE_PREFIXES = ("severity:", "priority:")
"""Label families an issue has at most one of: adding one replaces the other."""


class AddLabelArgs(NamedTuple):
    issue_id: IssueId
    label: Annotated[
        str,
        Arg(
            description="A label the project's issues already use, as they spell it (an unknown one is refused "
            "with the list). A severity label replaces the issue's current one."
        ),
    ]


class RemoveLabelArgs(NamedTuple):
    issue_id: IssueId
    label: Annotated[str, Arg(description="The label to take off the issue, as the issue shows it.")]


def replaced_by(label: str, current: list[str]) -> list[str]:
    """The labels `label` replaces on an issue that has `current`: another of its exclusive family."""
    family = next((prefix for prefix in EXCLUSIVE_PREFIXES if label.startswith(prefix)), None)
    if family is None:
        return []
    return [other for other in current if other.startswith(family) and other != label]


def _target(ctx: ToolContext, issue_id: int, label: str) -> tuple[MockTracker, IssueBrief, str, list[str]]:
    """The tracker, the issue, the label as the tracker spells it, and the issue's labels now."""
    tracker = open_tracker(ctx)
    canonical = tracker.canonical_label(label)
    issue = issue_brief(ctx.data, ctx.home, issue_id)
    return tracker, issue, canonical, tracker.labels_of(issue)


def _unchanged(issue_id: int, label: str, labels: list[str]) -> dict[str, Any]:
    return {"issue_id": issue_id, "label": label, "changed": False, "labels": labels}


def _named(issue: IssueBrief) -> str:
    """`#41 (“Worker crashes when …”)`: the issue a label goes to, by number and title, so a mistyped number shows."""
    title = clean_line(issue.title)
    return f"#{issue.id} (“{title if len(title) <= _TITLE_SHOWN else title[: _TITLE_SHOWN - 1] + '…'}”)"


_TITLE_SHOWN = 40


def _shown(labels: list[str]) -> str:
    """Labels as one line: one from outside holding a newline or a control is quoted with escapes."""
    return f"[{', '.join(clean_line(label) for label in labels)}]"


def check_add_label(args: AddLabelArgs, ctx: ToolContext) -> dict[str, Any] | None:
    """`changed: false` when the issue has the label already; raises when it would be refused."""
    _, issue, label, current = _target(ctx, args.issue_id, args.label)
    return _unchanged(issue.id, label, current) if label in current else None


def check_remove_label(args: RemoveLabelArgs, ctx: ToolContext) -> dict[str, Any] | None:
    """`changed: false` when the issue does not have the label; raises when it would be refused."""
    _, issue, label, current = _target(ctx, args.issue_id, args.label)
    return None if label in current else _unchanged(issue.id, label, current)


def preview_add_label(args: AddLabelArgs, ctx: ToolContext) -> str:
    """`#41 (“Title”) labels: [comp:core, severity:S2] → [comp:core, severity:S1] (severity:S2 → severity:S1)`."""
    return _preview(ctx, args.issue_id, args.label, adding=True)


def preview_remove_label(args: RemoveLabelArgs, ctx: ToolContext) -> str:
    """`#41 (“Title”) labels: [comp:core, type:bug] → [comp:core] (remove type:bug)`."""
    return _preview(ctx, args.issue_id, args.label, adding=False)


def _preview(ctx: ToolContext, issue_id: int, asked: str, *, adding: bool) -> str:
    """The issue's labels before and after one label is added or removed, or why the change would be refused."""
    try:
        tracker, issue, label, before = _target(ctx, issue_id, asked)
    except (LookupError, ToolError) as exc:
        action = f"add label {asked!r} to" if adding else f"remove label {asked!r} from"
        return f"{action} #{issue_id} (will be refused: {exc})"
    named, shown = _named(issue), clean_line(label)
    if (label in before) == adding:
        unchanged = f"already labelled {shown}" if adding else f"no {shown} to remove"
        return f"{named} labels: {_shown(before)} ({unchanged}: nothing changes){tracker.where}"
    if not adding:
        after = [x for x in before if x != label]
        return f"{named} labels: {_shown(before)} → {_shown(after)} (remove {shown}){tracker.where}"
    replaced = replaced_by(label, before)
    after = [x for x in before if x not in replaced] + [label]
    swap = f" ({', '.join(map(clean_line, replaced))} → {shown})" if replaced else ""
    return f"{named} labels: {_shown(before)} → {_shown(after)}{swap}{tracker.where}"


def _label_write(
    args_model: type[ArgsT],
    *,
    preview: Callable[[ArgsT, ToolContext], str],
    check: Callable[[ArgsT, ToolContext], Any],
) -> Callable[[Callable[[ArgsT, ToolContext], Any]], Callable[[ArgsT, ToolContext], Any]]:
    """A tool that adds or removes one label: a side effect, safe to repeat, never cached, and the
    issue's cached reads are stale after it."""
    return tool(
        args_model,
        side_effect=True,
        idempotent=True,
        timeout_s=10.0,
        preview=preview,
        check=check,
        cache_ttl_s=0,
        invalidates=changes_issue,
    )


@_label_write(AddLabelArgs, preview=preview_add_label, check=check_add_label)
def add_label(args: AddLabelArgs, ctx: ToolContext) -> dict[str, Any]:
    """Add one label to an issue of {project}. If the issue already has it, nothing changes (changed: false).

    An issue has one severity or priority: adding one to an issue that has another (`severity:` or
    `priority:` labels) replaces it."""
    tracker, issue, label, current = _target(ctx, args.issue_id, args.label)
    key = ctx.idempotency_key or f"auto-{uuid.uuid4().hex}"
    replaced = replaced_by(label, current)
    for old in replaced:
        # Its own record: the log shows the removal as well as the addition.
        tracker.remove_label(issue, old, key=f"{key}-replaces-{old}", session=ctx.session)
    result = tracker.add_label(issue, label, key=key, session=ctx.session)
    return {**result, "replaced": replaced} if replaced else result


@_label_write(RemoveLabelArgs, preview=preview_remove_label, check=check_remove_label)
def remove_label(args: RemoveLabelArgs, ctx: ToolContext) -> dict[str, Any]:
    """Remove one label from an issue of {project}. If the issue does not have it, nothing changes
    (changed: false)."""
    tracker, issue, label, _ = _target(ctx, args.issue_id, args.label)
    key = ctx.idempotency_key or f"auto-{uuid.uuid4().hex}"
    return tracker.remove_label(issue, label, key=key, session=ctx.session)
