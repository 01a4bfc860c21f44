"""Which items of which plans were applied: `atlas apply` never applies an item twice.

With a shared database (`atlas.state`), a row per applied item there, for the whole team. Otherwise
one JSON line per applied item in `$ATLAS_HOME/triage/applied.jsonl`, appended under a lock;
unreadable lines are skipped (an item they named may then be offered again, and its write is
still idempotent: a label already there is not added, a comment's key is not posted twice).
"""

from __future__ import annotations

import json
import os
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING

from atlas.foundation import statefiles
from atlas.state.settings import state_settings
from atlas.state.who import author

if TYPE_CHECKING:
    from atlas.state.postgres.database import SharedDatabase

JOURNAL = "applied.jsonl"
LOCK_TIMEOUT_S = 5.0


def journal_path(home: Path) -> Path:
    return home / "triage" / JOURNAL


def _shared(home: Path) -> SharedDatabase | None:
    url = state_settings(home).url
    if not url:
        return None
    from atlas.state.postgres.database import shared_database

    return shared_database(url)


def applied(home: Path, checksum: str) -> dict[int, str]:
    """Item number → when it was applied, for one plan."""
    database = _shared(home)
    if database is not None:
        from atlas.state.postgres.records import applied as applied_in

        return applied_in(database, checksum)
    try:
        raw = statefiles.read_bytes(journal_path(home))
    except (OSError, statefiles.UnsafeStateFile):
        return {}
    found: dict[int, str] = {}
    for line in (raw or b"").splitlines():
        try:
            record = json.loads(line)
        except (ValueError, RecursionError):
            continue
        if isinstance(record, dict) and record.get("plan") == checksum and isinstance(record.get("item"), int):
            found[record["item"]] = str(record.get("ts", ""))
    return found


def record_applied(home: Path, checksum: str, items: list[int]) -> None:
    if not items:
        return
    now = datetime.now(UTC).isoformat(timespec="seconds")
    database = _shared(home)
    if database is not None:
        from atlas.state.postgres.records import record_applied as record_in

        record_in(database, checksum, items, now, author(home))
        return
    path = journal_path(home)
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = "".join(json.dumps({"plan": checksum, "item": n, "ts": now}) + "\n" for n in items).encode()
    with statefiles.locked(path.with_suffix(".lock"), timeout=LOCK_TIMEOUT_S):
        fd = statefiles.open_fd(path, os.O_WRONLY | os.O_APPEND, create=True)
        try:
            statefiles.write_all(fd, lines)
            os.fsync(fd)
        finally:
            os.close(fd)
