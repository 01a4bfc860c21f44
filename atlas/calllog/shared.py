"""The call log's copy in the team's shared database (`atlas.state`), beside the local `log.db`.

Every finished call written to the local log is also written there, with who made it and where,
for `atlas log` to show the team's calls. Like the local log's writes, this never raises: a database
that went away costs one warning, and the local log still has the call.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas.foundation.errors import AtlasError, ToolError
from atlas.foundation.notices import warn
from atlas.protocol.events import CallRecord

if TYPE_CHECKING:
    from atlas.state.postgres.database import SharedDatabase

_warned: set[str] = set()


def mirror_calls(home: Path, records: Sequence[CallRecord], *, session: str, turn: int) -> None:
    """Finished calls, with who made them, in the shared database when one is set."""
    _mirror(home, "record_calls", lambda who: [_row(record, session, turn, who) for record in records])


def mirror_turn(home: Path, turn: dict[str, Any]) -> None:
    """An answered question (ts, session, turn, question, answer), with who asked it, in the shared database."""
    _mirror(home, "record_turns", lambda who: [{**turn, **who}])


def _mirror(home: Path, writer: str, rows: Callable[[dict[str, str]], list[dict[str, Any]]]) -> None:
    """Write `rows` (made with who wrote them) through `atlas.state.postgres.records.<writer>`: psycopg is
    imported only when a database is set."""
    from atlas.state.settings import state_settings

    try:
        url = state_settings(home).url
    except AtlasError:
        return  # the command's own check says what is wrong with the setting
    if not url:
        return
    from atlas.state.postgres import records
    from atlas.state.postgres.database import shared_database
    from atlas.state.who import author

    write: Callable[[SharedDatabase, Sequence[dict[str, Any]]], None] = getattr(records, writer)
    try:
        write(shared_database(url), rows(author(home)))
    except (ToolError, AtlasError) as exc:
        if str(exc) not in _warned:
            _warned.add(str(exc))
            warn(f"the call log's shared copy was not written: {exc}")


def _row(record: CallRecord, session: str, turn: int, who: dict[str, str]) -> dict[str, Any]:
    arguments = record.arguments if isinstance(record.arguments, str) else json.dumps(record.arguments, default=str)
    return {
        "ts": record.ts,
        "session": session,
        "turn": turn,
        "call_id": record.call_id,
        "name": record.name,
        "arguments": arguments,
        "kind": str(record.kind),
        "ms": record.ms,
        "attempts": record.attempts,
        "message": record.message,
        "approved": record.approved,
        "decided_by": record.decided_by,
        "round": record.round,
        "position": record.position,
        **who,
    }
