"""The check a command that reads or writes state makes first: the shared database, when set, is reachable."""

from __future__ import annotations

from pathlib import Path

from atlas.foundation.config import atlas_home
from atlas.state.settings import state_settings


def require_shared_state(home: Path | None = None) -> str:
    """Open the shared database of `home` (None: Atlas's home) now (connected, migrated), or stop
    with one line before anything is written; where the state is, for a person (empty: the state
    folder's local files)."""
    url = state_settings(atlas_home() if home is None else home).url
    if not url:
        return ""
    from atlas.state.postgres.database import shared_database  # psycopg only when a database is set

    return shared_database(url).shown
