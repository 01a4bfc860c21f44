"""The labels a tracker accepts: exactly the ones the dataset's issues use, whatever the project.

Read from the dataset (the bundled Orbit data, an imported or a synced project) rather than
written into the code, so a write can never create a label the project does not have.
"""

from __future__ import annotations

from pathlib import Path

from atlas.dataset.read import connect
from atlas.foundation.errors import PermanentToolError
from atlas.foundation.label_names import resolve_label, unknown_label


def dataset_labels(data: Path, home: Path) -> list[str]:
    with connect(data, home) as conn:
        return [str(row[0]) for row in conn.execute("SELECT name FROM labels ORDER BY name")]


def known_label(known: list[str], label: str, project: str) -> str:
    """The one of `known` that `label` means, as a person may spell it (`"Bug"`, `Comp: Worker`, `severity S1`,
    `S1` when only one label has that value); else a PermanentToolError naming the nearest and the labels."""
    found = resolve_label(label, known)
    if found is None:
        raise PermanentToolError(unknown_label(label, known, project))
    return found
