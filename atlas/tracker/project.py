"""Labels of a project's own dataset: what the trackers accept when the data is not Orbit's.

Kept apart from the GitHub tracker so that the mock tracker on an imported project never loads
the HTTP client.
"""

from __future__ import annotations

from atlas.errors import PermanentToolError
from atlas.github.folder import STATE_FILE
from atlas.orbit.db import connect
from atlas.tools.registry import ToolContext
from atlas.tracker.journal import MockTracker

SHOWN_LABELS = 40


def is_project_dataset(ctx: ToolContext) -> bool:
    """Whether the data folder was written by `atlas data import` or `sync` (its labels are its own)."""
    return (ctx.data / STATE_FILE).is_file()


def dataset_labels(ctx: ToolContext) -> list[str]:
    with connect(ctx.data, ctx.home) as conn:
        return [str(row[0]) for row in conn.execute("SELECT name FROM labels ORDER BY name")]


class ProjectTracker(MockTracker):
    """The mock tracker for an imported project: labels are checked against the project's own."""

    def __init__(self, ctx: ToolContext, project: str = "this project") -> None:
        super().__init__(ctx.home)
        self.ctx = ctx
        self.project = project

    def canonical_label(self, label: str) -> str:
        """A label the dataset uses, case forgiven (GitHub would create any other name silently)."""
        known = dataset_labels(self.ctx)
        found = {name.casefold(): name for name in known}.get(label.strip().casefold())
        if found is None:
            shown = ", ".join(known[:SHOWN_LABELS]) or "none"
            more = f", … ({len(known) - SHOWN_LABELS} more)" if len(known) > SHOWN_LABELS else ""
            raise PermanentToolError(f"{self.project} has no label {label!r}; its labels: {shown}{more}")
        return found
