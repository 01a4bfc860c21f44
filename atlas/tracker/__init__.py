"""The tracker: where Atlas's only side effects (labels, comments) go.

`journal.py` is the action journal in `$ATLAS_HOME/tracker_actions.jsonl`; `labels.py` checks
labels against the dataset's own; `github.py` writes to GitHub first
(`ATLAS_TRACKER=github:OWNER/REPO`) and journals what GitHub confirmed. `open_tracker` chooses.
"""

from __future__ import annotations

from atlas.tools.registry import ToolContext
from atlas.tracker.journal import MockTracker


def open_tracker(ctx: ToolContext) -> MockTracker:
    """The action journal (labels checked against the dataset's), or with
    `ATLAS_TRACKER=github:OWNER/REPO` one that writes to GitHub first."""
    tracker: MockTracker
    if ctx.tracker in ("", "mock"):
        from atlas.dataset.source import dataset_identity
        from atlas.foundation.config import dataset_name

        tracker = MockTracker(ctx.home, dataset_identity(ctx.data), data=ctx.data, project=dataset_name(ctx.data))
    else:
        from atlas.tracker.github import open_github_tracker  # httpx only when GitHub is the tracker

        tracker = open_github_tracker(ctx.tracker, ctx)
    tracker.decided_by = ctx.decided_by  # who approved it is kept with what it wrote
    tracker.limits = ctx.limits  # and what it must still meet is checked as it is recorded
    return tracker
