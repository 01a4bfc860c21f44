"""What a side effect is about, as the rules see it: its label, issue, text, repository and dataset."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from atlas.foundation.errors import AtlasError, ToolError
from atlas.policy.decide import Facts
from atlas.tools.registry import ToolContext
from atlas.tracker import open_tracker
from atlas.tracker.journal import MockTracker


def repository(context: ToolContext) -> str | None:
    """The GitHub repository writes go to (`ATLAS_TRACKER`, read once into the context), else the one the
    dataset was synced from."""
    backend = context.tracker
    if backend.startswith("github:"):
        return backend.removeprefix("github:").strip() or None
    from atlas.github.folder import read_state

    synced = read_state(context.data).get("repo")
    return synced if isinstance(synced, str) else None


def issue_state(context: ToolContext, issue_id: int) -> str | None:
    from atlas.dataset.read import connect

    try:
        with connect(context.data, context.home) as conn:
            row = conn.execute("SELECT state FROM issues WHERE id = ?", (issue_id,)).fetchone()
    except (ToolError, AtlasError, OSError):
        return None
    return str(row["state"]).lower() if row is not None else None


def canonical(context: ToolContext, label: str) -> str:
    try:
        return str(open_tracker(context).canonical_label(label))
    except (ToolError, AtlasError, OSError, ValueError):
        return label


def removed_by_person(records: Sequence[dict[str, Any]], issue_id: int, label: str) -> bool:
    """Whether the label's last change on the issue was a removal no rule decided (a person's)."""
    removed = False
    for record in records:
        if record.get("issue_id") != issue_id or record.get("label") != label:
            continue
        if record.get("action") == "remove_label":
            removed = not str(record.get("decided_by") or "person").startswith("rule:")
        elif record.get("action") == "add_label":
            removed = False
    return removed


def removed_on_tracker(context: ToolContext, issue_id: int, label: str) -> tuple[bool, str]:
    """Whether someone removed the label outside Atlas (on GitHub: the issue's events), and why it
    is said; when the tracker cannot tell, the guard holds (a person decides)."""
    try:
        elsewhere = open_tracker(context).removed_elsewhere(issue_id)
    except (ToolError, AtlasError, OSError) as exc:
        return True, f"#{issue_id}'s label history could not be read ({exc}): a person decides"
    if label.casefold() in elsewhere:
        return True, f"someone removed {label} from #{issue_id} on the tracker: a rule cannot put it back"
    return False, ""


def tracker_records(context: ToolContext) -> list[dict[str, Any]]:
    try:
        from atlas.dataset.source import dataset_identity

        return MockTracker(context.home, dataset_identity(context.data)).records()
    except (ToolError, OSError):
        return []


def facts_for(
    name: str,
    arguments: dict[str, Any],
    untrusted: Sequence[str],
    context: ToolContext,
    annotations: dict[str, bool] | None = None,
) -> Facts:
    raw_label = arguments.get("label")
    label = canonical(context, raw_label) if isinstance(raw_label, str) else None
    raw_issue = arguments.get("issue_id")
    issue_id = raw_issue if isinstance(raw_issue, int) and not isinstance(raw_issue, bool) else None
    body = arguments.get("body")
    removed, note = False, ""
    if name == "add_label" and label is not None and issue_id is not None:
        removed = removed_by_person(tracker_records(context), issue_id, label)
        if not removed:
            removed, note = removed_on_tracker(context, issue_id, label)
    return Facts(
        tool=name,
        arguments=dict(arguments),
        label=label,
        issue_id=issue_id,
        issue_state=issue_state(context, issue_id) if issue_id is not None else None,
        comment=body if isinstance(body, str) else None,
        repository=repository(context),
        dataset=str(context.data.resolve()),
        untrusted=bool(untrusted),
        annotations=dict(annotations or {}),
        removed_by_person=removed,
        removal_note=note,
    )
