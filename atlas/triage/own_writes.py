"""What Atlas itself wrote to a dataset's issues, as the inbox and the triage plan take it into account."""

from __future__ import annotations

from pathlib import Path

from atlas.foundation.errors import ToolError
from atlas.triage.corpus import Issue
from atlas.triage.groups import missing_groups
from atlas.triage.project import Project


def atlas_comments(home: Path, data: Path) -> dict[int, int]:
    """How many comments Atlas posted on each issue of `data` (a plan drafts no second one)."""
    from atlas.dataset.source import dataset_identity
    from atlas.tracker.journal import MockTracker

    try:
        records = MockTracker(home, dataset_identity(data)).records()
    except ToolError:
        return {}
    counts: dict[int, int] = {}
    for record in records:
        if record["action"] == "post_comment":
            counts[record["issue_id"]] = counts.get(record["issue_id"], 0) + 1
    return counts


def commented_through_atlas(project: Project) -> set[int]:
    """The issues Atlas commented on: answered, for the inbox."""
    return set(atlas_comments(project.corpus.home, project.corpus.data))


def untriaged(project: Project, limit: int) -> list[Issue]:
    """The newest open issues with no label or a label group missing, at most `limit`."""
    picked = []
    for issue in project.corpus.newest(10 * limit + 1000, state="open"):
        if not issue.labels or missing_groups(project.groups, issue.labels):
            picked.append(issue)
            if len(picked) >= limit:
                break
    return picked
