"""Who wrote a record and where: a person (`[state] person`, else the OS user) and the machine's name."""

from __future__ import annotations

import functools
import getpass
import socket
from pathlib import Path

from atlas.foundation.sanitize import clean_line
from atlas.state.settings import state_settings


@functools.cache
def _os_user() -> str:
    try:
        return getpass.getuser()
    except (KeyError, OSError):  # no name for this uid (a container's): its number says who
        import os

        return f"uid {os.getuid()}"


@functools.cache
def machine() -> str:
    return clean_line(socket.gethostname()) or "unknown"


def person(home: Path) -> str:
    from atlas.foundation.errors import ConfigError

    try:
        named = state_settings(home).person
    except ConfigError:
        named = ""
    return named or clean_line(_os_user())


def author(home: Path) -> dict[str, str]:
    """The fields every record carries: `person` and `machine`."""
    return {"person": person(home), "machine": machine()}
