"""Before any tool runs: the issues db is made fresh at start-up, never under a tool call's deadline."""

from __future__ import annotations

from pathlib import Path

from atlas.dataset.ensure import ensure_db
from atlas.foundation.errors import DataError
from atlas.foundation.sanitize import write_line
from atlas.ui.build_progress import BuildProgress


def prepare_issues_db(data: Path, home: Path) -> None:
    """Build the issues db now when it is missing or stale (in O(1) when it is fresh).

    A dataset that cannot be read is not fatal here: the issue tools report it to the model,
    which can still answer from the docs.
    """
    with BuildProgress() as progress:
        try:
            ensure_db(data, home, progress)
        except DataError as exc:
            if progress.stage:
                write_line(f"atlas: the issues db was not built: {exc}", file=progress.stream, flush=True)
            progress.stage = ""  # the tools say why to the model
