"""What triage remembers in the state folder: until when the last inbox had seen issues, per dataset
(with a shared database, per dataset and person there: each maintainer's "new since you last looked").

A small JSON file written whole (a temporary file renamed); one that cannot be read is forgotten,
never trusted: at worst no issue is marked new once.
"""

from __future__ import annotations

import contextlib
import json
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas.foundation import statefiles
from atlas.state.settings import state_settings
from atlas.state.who import person

if TYPE_CHECKING:
    from atlas.state.postgres.database import SharedDatabase

INBOX_FILE = "inbox.json"


def write_json(path: Path, value: Any) -> None:
    """The whole file replaced at once; an OSError is left to the caller."""
    statefiles.replace_file(path, json.dumps(value, ensure_ascii=False, indent=1).encode("utf-8"))


def read_json(path: Path) -> Any:
    """The file's JSON, or None when there is none or it is not JSON (or not a plain file)."""
    try:
        raw = statefiles.read_bytes(path)
        return None if raw is None else json.loads(raw.decode("utf-8"))
    except (OSError, statefiles.UnsafeStateFile, UnicodeDecodeError, ValueError, RecursionError):
        return None


def _shared(home: Path) -> tuple[SharedDatabase, str] | None:
    """The shared database and this person's name, when one is set."""
    url = state_settings(home).url
    if not url:
        return None
    from atlas.state.postgres.database import shared_database

    return shared_database(url), person(home)


def last_seen(home: Path, identity: str) -> str | None:
    """The `created_at` of the newest issue the last inbox of this dataset showed; None the first time."""
    shared = _shared(home)
    if shared is not None:
        from atlas.state.postgres.records import last_seen as seen_in

        return seen_in(shared[0], identity, shared[1])
    found = read_json(home / "triage" / INBOX_FILE)
    if not isinstance(found, dict):
        return None
    value = found.get(identity)
    return value if isinstance(value, str) else None


def remember_seen(home: Path, identity: str, newest: str) -> None:
    shared = _shared(home)
    if shared is not None:
        from atlas.state.postgres.records import remember_seen as remember_in

        remember_in(shared[0], identity, shared[1], newest)
        return
    path = home / "triage" / INBOX_FILE
    found = read_json(path)
    kept = found if isinstance(found, dict) else {}
    with contextlib.suppress(OSError):
        write_json(path, {**kept, identity: newest})
