"""Which MCP servers may start: a state folder Atlas found runs nothing its user has not trusted.

Atlas finds its state folder as git finds `.git`, so a cloned repository can ship `.atlas/config.toml`
naming any command as a server. Servers of a folder the user chose (`ATLAS_HOME`, or the user's own
state folder) start as configured; those of a found folder start only once the user has trusted
them, by name and exact command (`atlas mcp trust NAME`). Trust is kept in the user's own config
folder, never in the found one, keyed by the folder's real path, the name and a hash of the command
with its arguments, environment and working directory: a changed command must be trusted again.
"""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from atlas.foundation import statefiles
from atlas.foundation.config import STATE_FOLDER_NAME, StateFolder, state_folder
from atlas.foundation.errors import ConfigError
from atlas.foundation.notices import warning_line
from atlas.foundation.sanitize import clean_line
from atlas.mcp.config import ServerConfig

TRUST_FILE = "trusted-mcp-servers.json"
FOUND = f"the nearest {STATE_FOLDER_NAME} folder"


def store_path() -> Path:
    """The user's own record of trusted servers (`~/.config/atlas/` on Linux), outside any project."""
    import platformdirs

    return platformdirs.user_config_path("atlas") / TRUST_FILE


def fingerprint(server: ServerConfig) -> str:
    """A hash of everything that decides what runs: command, arguments, environment, working folder."""
    what = {"command": server.command, "args": server.args, "env": server.env, "cwd": server.cwd}
    return hashlib.sha256(json.dumps(what, sort_keys=True, ensure_ascii=True).encode()).hexdigest()


@dataclass(frozen=True)
class Trust:
    """The state folder's servers and whether each may start."""

    folder: StateFolder

    @property
    def needed(self) -> bool:
        """Only a folder Atlas found (not one the user chose) needs its servers trusted."""
        return self.folder.found_by == FOUND

    def _entry(self, server: ServerConfig) -> dict[str, str]:
        return {"folder": str(self.folder.path.resolve()), "name": server.name, "sha256": fingerprint(server)}

    def allows(self, server: ServerConfig) -> bool:
        return not self.needed or self._entry(server) in _entries()

    def record(self, server: ServerConfig) -> None:
        """Trust `server` as configured now (an older entry for its name in this folder is replaced)."""
        entry = self._entry(server)
        kept = [e for e in _entries() if (e.get("folder"), e.get("name")) != (entry["folder"], entry["name"])]
        _write([*kept, entry])

    def split(self, servers: list[ServerConfig]) -> tuple[list[ServerConfig], list[ServerConfig]]:
        """(the servers that may start, those waiting to be trusted)."""
        entries = _entries() if self.needed else []
        allowed = [s for s in servers if not self.needed or self._entry(s) in entries]
        return allowed, [s for s in servers if s not in allowed]

    def warning(self, waiting: list[ServerConfig]) -> str:
        """One line for a run that left servers unstarted: which, why, and how to trust one."""
        names = ", ".join(server.name for server in waiting)
        return warning_line(
            f"MCP servers not started ({names}): {clean_line(self.folder.path)} was found "
            f"here, not chosen by you; check its command with atlas mcp list, then atlas mcp trust NAME"
        )


def trust_for(home: Path) -> Trust:
    """The trust rules for the state folder `home`: chosen unless it is the one Atlas found here."""
    folder = state_folder()
    if folder.path != home:
        folder = StateFolder(home, "the caller")
    return Trust(folder)


def _entries() -> list[dict[str, Any]]:
    path = store_path()
    try:
        document = json.loads(statefiles.read_text(path, limit=statefiles.STATE_FILE_LIMIT, what="a trust store"))
    except FileNotFoundError:
        return []
    except (OSError, ValueError, RecursionError) as exc:
        raise ConfigError(f"{clean_line(path)} cannot be read: {exc}") from None
    servers = document.get("servers") if isinstance(document, dict) else None
    return [entry for entry in servers if isinstance(entry, dict)] if isinstance(servers, list) else []


def _write(entries: list[dict[str, Any]]) -> None:
    path = store_path()
    try:
        statefiles.replace_file(path, (json.dumps({"servers": entries}, indent=2) + "\n").encode("utf-8"))
    except OSError as exc:
        raise ConfigError(f"{clean_line(path)} cannot be written: {exc}") from None
