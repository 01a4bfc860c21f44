"""The issues db as the built-in tools read it: issue ids, an issue's labels, a brief of its target.

Connections come from `atlas.dataset.read`, where SQLite's failures are translated.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Iterable
from pathlib import Path
from typing import Annotated

from atlas.dataset.read import connect
from atlas.foundation.config import dataset_name
from atlas.tools.arguments import Arg
from atlas.tracker.journal import IssueBrief as IssueBrief  # where the tools name it

MAX_ISSUE_ID = 2**63 - 1
"""SQLite's largest integer: a bigger id cannot name an issue, and binding one overflows."""

IssueId = Annotated[int, Arg(ge=1, le=MAX_ISSUE_ID, description="The issue's number, e.g. 41 for #41.")]
"""The argument type of every tool that takes an issue id: bounded where the model's input is checked."""


def no_such_issue(conn: sqlite3.Connection, issue_id: int, data: Path) -> LookupError:
    """The first sentence is for a person (the offline answer shows only it), the rest for the model."""
    count, low, high = conn.execute("SELECT count(*), min(id), max(id) FROM issues").fetchone()
    extent = f"{count:,} issues, #{low}–#{high}" if count else "no issues"
    return LookupError(
        f"There is no issue #{issue_id} in {dataset_name(data)} ({extent}). "
        "Use only issue ids the user gave or a search returned; do not guess ids."
    )


def labels_of(conn: sqlite3.Connection, issue_ids: Iterable[int]) -> dict[int, list[str]]:
    """Each issue's labels from the dataset, in a stable order."""
    ids = list(issue_ids)
    found: dict[int, list[str]] = {issue_id: [] for issue_id in ids}
    if not ids:
        return found
    marks = ",".join("?" * len(ids))
    rows = conn.execute(
        "SELECT il.issue_id, l.name FROM issue_labels il JOIN labels l ON l.id = il.label_id "
        f"WHERE il.issue_id IN ({marks}) ORDER BY l.name",
        ids,
    )
    for issue_id, name in rows:
        found[issue_id].append(name)
    return found


def issue_brief(data: Path, home: Path, issue_id: int) -> IssueBrief:
    """Title and dataset labels of an existing issue; LookupError when there is none."""
    with connect(data, home) as conn:
        row = conn.execute("SELECT id, title FROM issues WHERE id = ?", (issue_id,)).fetchone()
        if row is None:
            raise no_such_issue(conn, issue_id, data)
        return IssueBrief(id=row["id"], title=row["title"], labels=labels_of(conn, [issue_id])[issue_id])
