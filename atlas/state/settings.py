"""The shared state's settings: `ATLAS_STATE_URL`, else `[state]` in the state folder's config.toml.

`[state] url` and `[state] person` are read only from a config.toml the user chose (`ATLAS_HOME`'s
or the user state folder's): a `.atlas/config.toml` found above the working folder may have come
with a cloned repository, and must not send the team's records to a database it names.
"""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import NamedTuple

from atlas.foundation import statefiles
from atlas.foundation.config import state_folder
from atlas.foundation.errors import ConfigError
from atlas.foundation.redact import HIDDEN, redact_secrets, redact_url, url_secrets
from atlas.foundation.sanitize import clean_line

URL_ENV = "ATLAS_STATE_URL"
CONFIG_FILE = "config.toml"
SCHEMES = ("postgresql", "postgres")


SECRET_PARAMETERS = ("password", "sslpassword")
"""Connection parameters (`?password=…`) libpq reads a secret from."""
_USERINFO = re.compile(r"://([^@/?#]*)@")


def url_credentials(url: str) -> list[str]:
    """Every secret a database URL carries, as written and as decoded: the user and password (even
    when they cannot be decoded) and any secret parameter's value."""
    found = list(url_secrets(url))
    if userinfo := _USERINFO.search(url):
        found += [part for part in userinfo.group(1).split(":", 1) if part]
    found += re.findall(rf"[?&](?:{'|'.join(SECRET_PARAMETERS)})=([^&#]*)", url, flags=re.IGNORECASE)
    return found


def shown_url(url: str) -> str:
    """A database URL as a person may see it: no user, password or secret parameter."""
    hidden = re.sub(
        rf"([?&](?:{'|'.join(SECRET_PARAMETERS)})=)[^&#]*", rf"\g<1>{HIDDEN}", redact_url(url), flags=re.IGNORECASE
    )
    return redact_secrets(hidden, url_credentials(url))


class StateSettings(NamedTuple):
    url: str = ""
    """The database URL (credentials and all); empty: the state folder's local files."""
    person: str = ""
    """The name records carry (`[state] person`); empty: the OS user."""

    @property
    def shown(self) -> str:
        """The URL as a person may see it: no credentials."""
        return shown_url(self.url)


def _table(home: Path) -> dict[str, object]:
    path = home / CONFIG_FILE
    table = _state_table(path)
    if not table:
        return {}
    chosen = state_folder()
    if chosen.path == home.resolve() and chosen.found_by.startswith("the nearest"):
        return {}  # a found folder's file names no database (see the module's note)
    return table


def _state_table(path: Path) -> dict[str, object]:
    """The file's `[state]` table; {} when it has none. Every journal a tool call opens asks, so the
    file is read again only when it has changed since."""
    return _STATE_TABLES.get(path) or {}


def _read_state_table(path: Path) -> dict[str, object] | None:
    try:
        raw = statefiles.read_bytes(path)
    except (OSError, statefiles.UnsafeStateFile):
        return None  # the policy's loader says what is wrong with this file, once
    if raw is None:
        return None
    import tomllib  # only with a file to read: ~5 ms of every start otherwise

    try:
        document = tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError):
        return None
    table = document.get("state", {})
    if not isinstance(table, dict):
        raise ConfigError(f"{clean_line(path)}: [state] must be a table")
    return table


_STATE_TABLES = statefiles.ReadWhenChanged(_read_state_table)
"""Each config.toml's `[state]` table as last read."""


def state_settings(home: Path) -> StateSettings:
    """The settings in force for this state folder; a ConfigError for a URL that is not PostgreSQL's."""
    table = _table(home)
    url = os.environ.get(URL_ENV, "").strip()
    where = URL_ENV
    if not url:
        value = table.get("url", "")
        if not isinstance(value, str):
            raise ConfigError(f"{clean_line(home / CONFIG_FILE)}: [state] url must be a string")
        url, where = value.strip(), f"[state] url in {clean_line(home / CONFIG_FILE)}"
    if url and url.split("://", 1)[0].lower() not in SCHEMES:
        raise ConfigError(f"{where}: {clean_line(shown_url(url))} is not a postgresql:// URL")
    person = table.get("person", "")
    if not isinstance(person, str):
        raise ConfigError(f"{clean_line(home / CONFIG_FILE)}: [state] person must be a string")
    return StateSettings(url, clean_line(person.strip()))
