"""The labels a tracker accepts: exactly the ones the dataset's issues use, whatever the project.

Read from the dataset (the bundled Orbit data, an imported or a synced project) rather than
written into the code, so a write can never create a label the project does not have.
"""

from __future__ import annotations

from pathlib import Path

from atlas.dataset_read import connect
from atlas.errors import PermanentToolError

SHOWN_LABELS = 40


def dataset_labels(data: Path, home: Path) -> list[str]:
    with connect(data, home) as conn:
        return [str(row[0]) for row in conn.execute("SELECT name FROM labels ORDER BY name")]


def _folded(label: str, *, spaces: bool) -> str:
    folded = label.strip().casefold()
    return folded if spaces else "".join(folded.split())


def known_label(known: list[str], label: str, project: str) -> str:
    """The one of `known` that `label` means: case forgiven, and spaces too when that leaves one match
    (`Comp: Worker` is `comp:worker`); else a PermanentToolError that lists the project's labels."""
    for spaces in (True, False):
        matches = [name for name in known if _folded(name, spaces=spaces) == _folded(label, spaces=spaces)]
        if len(matches) == 1:
            return matches[0]
    shown = ", ".join(known[:SHOWN_LABELS]) or "none"
    more = f", … ({len(known) - SHOWN_LABELS} more)" if len(known) > SHOWN_LABELS else ""
    raise PermanentToolError(f"{project} has no label {label!r}; its labels: {shown}{more}")
