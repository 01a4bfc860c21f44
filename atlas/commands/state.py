"""`atlas state push`: a local state folder's history into the team's shared database, once."""

from __future__ import annotations

from pathlib import Path

from atlas.foundation.config import atlas_home
from atlas.foundation.errors import ConfigError, ToolError
from atlas.foundation.sanitize import clean_line
from atlas.state.settings import URL_ENV, state_settings
from atlas.state.who import author
from atlas.tracker.file_journal import FileJournal
from atlas.ui.render import make_console


def run_push(folder: Path | None) -> None:
    home = atlas_home()
    url = state_settings(home).url
    if not url:
        raise ConfigError(f"atlas state push copies into a shared database: set {URL_ENV} or [state] url first")
    source = (folder or home).expanduser().resolve()
    if not source.is_dir():
        raise ConfigError(f"{clean_line(source)} is not a folder")
    try:
        records = FileJournal(source).read()
    except ToolError as exc:
        raise ConfigError(str(exc)) from None
    from atlas.state.postgres.database import shared_database
    from atlas.state.postgres.push import push

    database = shared_database(url)
    try:
        pushed = push(database, source, author(home), records)
    except ToolError as exc:
        raise ConfigError(str(exc)) from None
    console = make_console()
    console.print(f"From {clean_line(source)} to {database.shown}:", soft_wrap=True)
    for what, found in pushed.found.items():
        added = pushed.added[what]
        console.print(f"  {what}: {found} found, {added} copied, {found - added} already there")
