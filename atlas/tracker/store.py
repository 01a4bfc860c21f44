"""Where tracker records are kept: the interface every backend implements, and the check every write makes.

A backend keeps whole records (JSON objects) oldest first, and offers one lock shared by every
process that writes (`locked()`): inside it, what `read()` returns and what `append()` adds are one
step, so a write's check ("already commented?", "has the rule used up its count?") and its record
cannot be split by another process's. The local file (`file_journal.FileJournal`) holds a file lock;
a shared database (`atlas.state`) holds a transaction under an advisory lock.
"""

from __future__ import annotations

import contextlib
from collections.abc import Iterable
from pathlib import Path
from typing import Any, NamedTuple, Protocol

from atlas.tools.registry import WriteLimits
from atlas.tracker.file_journal import FileJournal


class Journal(Protocol):
    """The tracker's records, in one place every process writing them shares."""

    where: str
    """Where they are, for a person (a path, or a database URL without its credentials)."""
    skipped: int
    """How many unreadable records the last `read()` skipped."""

    def read(self) -> list[dict[str, Any]]:
        """Every whole record (of every dataset), oldest first."""
        ...

    def with_key(self, key: str) -> list[dict[str, Any]]:
        """The records written under one idempotency key."""
        ...

    def locked(self) -> contextlib.AbstractContextManager[None]:
        """The one lock across processes: reads and appends inside it are one step."""
        ...

    def append(self, record: dict[str, Any]) -> None:
        """Keep one record; the caller holds `locked()`. Kept for good when `locked()` ends without an error."""
        ...

    def issue_lock(self, name: str) -> contextlib.AbstractContextManager[None]:
        """A lock on one issue (`name` says which), held across a network call and the record it decides."""
        ...


class Refusal(NamedTuple):
    """Why a write is not recorded: `settled` when what it wanted is already done (a comment is there)."""

    message: str
    settled: bool = False


def refusal(
    limits: WriteLimits, records: Iterable[dict[str, Any]], *, action: str, issue_id: int, key: str, session: str
) -> Refusal | None:
    """Why a write may not be recorded now, given everyone's records of its dataset; None when it may.

    Counts only what people see (labels and comments, not a replaced label's bookkeeping) and never
    the write's own earlier record (a replay under the same key is answered before this)."""
    if not limits.rule and not limits.first_comment:
        return None
    decided_by = f"rule:{limits.rule}"
    on_issue = in_run = 0
    for record in records:
        if record.get("key") == key:
            continue
        commented = record.get("action") == "post_comment" and record.get("issue_id") == issue_id
        if limits.first_comment and action == "post_comment" and commented:
            when = record.get("ts")
            return Refusal(f"Atlas already commented on #{issue_id} ({when}); no second comment", settled=True)
        if not limits.rule or record.get("decided_by") != decided_by or "-replaces-" in str(record.get("key")):
            continue
        on_issue += record.get("issue_id") == issue_id
        in_run += record.get("session") == session
    rule = limits.rule
    if limits.max_per_issue is not None and on_issue >= limits.max_per_issue:
        return Refusal(f"rule {rule} allows {limits.max_per_issue} per issue, used on #{issue_id}; nothing written")
    if limits.max_per_run is not None and in_run >= limits.max_per_run:
        return Refusal(f"rule {rule} allows {limits.max_per_run} per run, already used in this run; nothing written")
    return None


def open_journal(home: Path) -> Journal:
    """The journal of this state folder: the shared database when one is set, else its local file."""
    from atlas.state.settings import state_settings

    url = state_settings(home).url
    if not url:
        return FileJournal(home)
    from atlas.state.postgres.database import shared_database  # psycopg only when a database is set
    from atlas.state.postgres.journal import PgJournal

    return PgJournal(shared_database(url))
