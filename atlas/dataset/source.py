"""A dataset folder's `atlas-source.json`: where its data came from, checked before anything trusts it.

`atlas data import` and `sync` write this file; it is what makes a folder theirs to update, and
what names the dataset (its GitHub repository, or an id of its own) so that tracker records of
one project never show on another. A file of that name that is a link, or whose content is not
what Atlas writes, makes the folder someone else's: it is refused, never replaced.
"""

from __future__ import annotations

import errno
import hashlib
import json
from pathlib import Path
from typing import Any, NamedTuple

from atlas.foundation import statefiles
from atlas.foundation.config import dataset_name
from atlas.foundation.errors import DataError
from atlas.foundation.sanitize import clean_line

STATE_FILE = "atlas-source.json"
"""Where the data came from, and for a synced repo what the next sync needs (watermark, ETags)."""
BUNDLED = "orbit"
"""The identity of the bundled Orbit dataset, and of any folder `atlas data` did not write."""
STATE_LIMIT_BYTES = statefiles.SOURCE_RECORD_LIMIT


def read_source(folder: Path) -> dict[str, Any] | None:
    """The folder's source record; None when it has none; a DataError when it is not one Atlas wrote."""
    path = folder / STATE_FILE
    shown = clean_line(path)
    try:
        raw = statefiles.read_limited(path, limit=STATE_LIMIT_BYTES, what="a source record", links=False)
    except FileNotFoundError:
        return None
    except statefiles.RefusedFile as exc:
        if exc.errno == errno.ELOOP:
            raise DataError(f"{shown} is a link, not a file `atlas data` wrote; refusing to touch the folder") from None
        raise DataError(f"{shown} is not a file `atlas data` wrote; refusing to touch the folder") from None
    except OSError as exc:
        raise DataError(f"cannot read {shown}: {exc.strerror}") from None
    try:
        state = json.loads(raw.decode("utf-8"))
        if not isinstance(state, dict):
            raise ValueError("not an object")
        from atlas.dataset.source_record import check_record  # pydantic, only when there is a record to read

        check_record(state)
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise DataError(f"{shown} was not written by `atlas data`; refusing to touch the folder") from None
    return state


def _read_state(path: Path) -> dict[str, Any]:
    try:
        return read_source(path.parent) or {}
    except DataError:
        return {}


_SOURCES = statefiles.ReadWhenChanged(_read_state)
"""Each folder's source record as last read."""


def source_state(folder: Path) -> dict[str, Any]:
    """The source record when the folder has a valid one, else {} (for readers that only look).

    Tools ask for it on every call (a synced record holds an ETag per issue), so it is read again
    only when the file has changed since: `atlas data` replaces it whole, which changes its inode."""
    return dict(_SOURCES.get(folder / STATE_FILE) or {})


def dataset_identity(folder: Path) -> str:
    """The name tracker records carry: the GitHub repository, an import's own id, or `orbit`."""
    return identity_of(source_state(folder))


def identity_of(state: dict[str, Any]) -> str:
    if not state:
        return BUNDLED
    for name in ("dataset", "repo"):
        if isinstance(state.get(name), str) and state[name]:
            return str(state[name]).casefold()
    # An import written before records named their dataset: its file and time are its identity.
    seed = f"{state.get('file')}\0{state.get('imported_at')}".encode()
    return "import:" + hashlib.sha256(seed).hexdigest()[:16]


def same_dataset(record: dict[str, Any], identity: str) -> bool:
    """Whether a tracker record belongs to the dataset: one without the field belongs to the bundled one."""
    named = record.get("dataset", BUNDLED)
    return isinstance(named, str) and named.casefold() == identity


def comments_recorded(folder: Path) -> bool | None:
    """Whether the folder's issues came with their comments: False for an export that carried none (REST's
    count, or no field at all), True for a sync or the bundled data, None for an import that did not say."""
    state = source_state(folder)
    if state.get("source") != "import":
        return True
    known = state.get("comments_known")
    return known if isinstance(known, bool) else None


class Project(NamedTuple):
    """What a session tells of its dataset, read once when it opens rather than at every question: the
    project's name (`dataset_name`) and whether its issues came with their comments (`comments_recorded`)."""

    name: str
    comments_recorded: bool | None = True


def project_of(folder: Path) -> Project:
    """The project the dataset folder holds."""
    return Project(dataset_name(folder), comments_recorded(folder))
