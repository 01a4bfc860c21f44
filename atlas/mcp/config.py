"""The `[mcp_servers.NAME]` tables of `$ATLAS_HOME/config.toml`: read, checked, and appended to.

The shape is the one Codex CLI and Claude Code users know: `command`, `args`, `env`, `cwd`,
`timeout_s`, `enabled`, `tools` (an allow-list) and Atlas's own `trust`. The file is read and
written through `atlas.foundation.statefiles`, so a link planted in the state folder is never followed.
"""

from __future__ import annotations

import os
import re
import tomllib
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from atlas.foundation import statefiles
from atlas.foundation.errors import ConfigError
from atlas.foundation.limits import MCP_DEFAULT
from atlas.foundation.sanitize import clean_line

CONFIG_FILE = "config.toml"
SERVER_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9-]{0,31}$")
"""Letters, digits and dashes: `NAME__tool` must stay a valid function name for the model."""
DEFAULT_TIMEOUT_S = 10.0
MAX_TIMEOUT_S = 600.0
MAX_CONCURRENCY = 64
MAX_CACHE_TTL_S = 86400.0
SETTINGS = ("command", "args", "env", "cwd", "timeout_s", "enabled", "tools", "trust", "max_concurrency", "cache_ttl_s")
Trust = Literal["read-only-hints", "ask-all"]
TRUST_LEVELS: tuple[Trust, ...] = ("read-only-hints", "ask-all")


@dataclass(frozen=True)
class ServerConfig:
    """One configured MCP server."""

    name: str
    command: str
    args: list[str] = field(default_factory=list)
    env: dict[str, str] = field(default_factory=dict)
    cwd: str | None = None
    timeout_s: float = DEFAULT_TIMEOUT_S
    enabled: bool = True
    tools: list[str] | None = None
    """Only these of the server's tools are offered (None: all of them)."""
    trust: Trust = "read-only-hints"
    """`read-only-hints`: a tool marked readOnlyHint runs without asking; `ask-all`: every call asks."""
    max_concurrency: int = MCP_DEFAULT
    """Calls at once to this server from the whole process (`atlas.foundation.limits`)."""
    cache_ttl_s: float = 0.0
    """How long a read-only tool's result stays fresh in a conversation; 0: never cached."""


def config_path(home: Path) -> Path:
    return home / CONFIG_FILE


def load_servers(home: Path) -> list[ServerConfig]:
    """Every server in `config.toml` (none when there is no file); a ConfigError names what is wrong."""
    path = config_path(home)
    try:
        raw = statefiles.read_bytes(path)
    except NotADirectoryError:
        return []  # no state folder can exist there: no servers (the tracker and log say why)
    except OSError as exc:
        raise ConfigError(f"{clean_line(path)} cannot be read: {exc}") from None
    if raw is None:
        return []
    tables = _document(raw, path).get("mcp_servers", {})
    if not isinstance(tables, dict):
        raise ConfigError(f"{clean_line(path)}: mcp_servers must be a table of servers")
    return [_server(name, table, path) for name, table in tables.items()]


def _document(raw: bytes, path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise ConfigError(f"{clean_line(path)} is not valid TOML: {exc}") from None
    except RecursionError:  # arrays nested thousands deep: tomllib recurses
        raise ConfigError(f"{clean_line(path)} is not valid TOML: nested too deeply") from None


def _server(name: str, table: Any, path: Path) -> ServerConfig:
    where = f"{clean_line(path)}: [mcp_servers.{clean_line(name)}]"
    if not SERVER_NAME.fullmatch(name):
        raise ConfigError(f"{where}: a server name is 1-32 letters, digits and dashes")
    if not isinstance(table, dict):
        raise ConfigError(f"{where} must be a table")
    unknown = set(table) - {*SETTINGS}
    if unknown:
        raise ConfigError(f"{where}: unknown setting {clean_line(sorted(unknown)[0])}")
    command = table.get("command")
    if not isinstance(command, str) or not command.strip():
        raise ConfigError(f"{where}: command must be a non-empty string")
    timeout = table.get("timeout_s", DEFAULT_TIMEOUT_S)
    if isinstance(timeout, bool) or not isinstance(timeout, (int, float)) or not 0 < timeout <= MAX_TIMEOUT_S:
        raise ConfigError(f"{where}: timeout_s must be more than 0 and at most {MAX_TIMEOUT_S:g} seconds")
    trust = table.get("trust", "read-only-hints")
    if trust not in TRUST_LEVELS:
        raise ConfigError(f"{where}: trust must be one of {', '.join(TRUST_LEVELS)}")
    tools = table.get("tools")
    concurrency = table.get("max_concurrency", MCP_DEFAULT)
    if isinstance(concurrency, bool) or not isinstance(concurrency, int) or not 1 <= concurrency <= MAX_CONCURRENCY:
        raise ConfigError(f"{where}: max_concurrency must be a whole number from 1 to {MAX_CONCURRENCY}")
    ttl = table.get("cache_ttl_s", 0)
    if isinstance(ttl, bool) or not isinstance(ttl, (int, float)) or not 0 <= ttl <= MAX_CACHE_TTL_S:
        raise ConfigError(f"{where}: cache_ttl_s must be from 0 to {MAX_CACHE_TTL_S:g} seconds")
    return ServerConfig(
        name=name,
        command=command,
        args=_strings(table.get("args", []), f"{where}: args"),
        env=_env(table.get("env", {}), where),
        cwd=_optional_string(table.get("cwd"), f"{where}: cwd"),
        timeout_s=float(timeout),
        enabled=_boolean(table.get("enabled", True), f"{where}: enabled"),
        tools=None if tools is None else _strings(tools, f"{where}: tools"),
        trust=trust,
        max_concurrency=concurrency,
        cache_ttl_s=float(ttl),
    )


def _strings(value: Any, what: str) -> list[str]:
    if not isinstance(value, list) or not all(isinstance(item, str) for item in value):
        raise ConfigError(f"{what} must be a list of strings")
    return list(value)


def _env(value: Any, where: str) -> dict[str, str]:
    if not isinstance(value, dict) or not all(isinstance(v, str) for v in value.values()):
        raise ConfigError(f"{where}: env must be a table of strings")
    return dict(value)


def _optional_string(value: Any, what: str) -> str | None:
    if value is not None and not isinstance(value, str):
        raise ConfigError(f"{what} must be a string")
    return value


def _boolean(value: Any, what: str) -> bool:
    if not isinstance(value, bool):
        raise ConfigError(f"{what} must be true or false")
    return value


def toml_string(text: str) -> str:
    """`text` as a TOML basic string: quotes and backslashes escaped, and every character that is not
    printable (controls, DEL, C1, bidi overrides) as a `\\u` escape, so the file is valid and inert."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        raise ConfigError(f"{clean_line(text)} cannot be written to config.toml: it is not valid text") from None
    escaped = []
    for char in text:
        if char in '"\\':
            escaped.append("\\" + char)
        elif char.isprintable():
            escaped.append(char)
        else:
            escaped.append(f"\\u{ord(char):04X}" if ord(char) <= 0xFFFF else f"\\U{ord(char):08X}")
    return '"' + "".join(escaped) + '"'


def check_name(name: str) -> None:
    if not SERVER_NAME.fullmatch(name):
        raise ConfigError(f"{clean_line(name)} is not a server name: use 1-32 letters, digits and dashes")


def add_server(home: Path, name: str, command: str, args: list[str]) -> Path:
    """Append `[mcp_servers.NAME]` to `config.toml` (created if missing); refuses a name in use."""
    check_name(name)
    if any(server.name == name for server in load_servers(home)):
        raise ConfigError(f"an MCP server named {name!r} is configured already")
    lines = [
        f"\n[mcp_servers.{name}]",
        f"command = {toml_string(command)}",
        f"args = [{', '.join(toml_string(arg) for arg in args)}]",
    ]
    home.mkdir(parents=True, exist_ok=True)
    path = config_path(home)
    fd = statefiles.open_fd(path, os.O_WRONLY | os.O_APPEND, create=True)
    try:
        statefiles.write_all(fd, ("\n".join(lines) + "\n").encode("utf-8"))
        os.fsync(fd)
    finally:
        os.close(fd)
    return path


_HEADER = re.compile(r"^\s*\[\[?\s*([^\]]*?)\s*\]\]?\s*(#.*)?$")


def _without_tables(text: str, name: str) -> str:
    """`text` without the lines of `[mcp_servers.NAME]` and its sub-tables (up to the next header)."""
    kept: list[str] = []
    dropping = False
    for line in text.splitlines(keepends=True):
        header = _HEADER.match(line)
        if header:
            key = header.group(1).replace('"', "").replace("'", "")
            dropping = key == f"mcp_servers.{name}" or key.startswith(f"mcp_servers.{name}.")
        if not dropping:
            kept.append(line)
    return "".join(kept)


def remove_server(home: Path, name: str) -> Path:
    """Remove `[mcp_servers.NAME]` from `config.toml`, leaving every other line as it was.

    The result is checked to be the same document without that server before it replaces the file
    (atomically); a server written some other way (an inline table) is left for a person to edit."""
    check_name(name)
    path = config_path(home)
    raw = statefiles.read_bytes(path)
    before = _document(raw, path) if raw is not None else {}
    servers = dict(before.get("mcp_servers", {}))
    if name not in servers:
        raise ConfigError(f"no MCP server named {name!r} is configured in {clean_line(path)}")
    assert raw is not None
    text = _without_tables(raw.decode("utf-8"), name)
    del servers[name]
    try:
        after = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        after = {"mcp_servers": None}
    others = {key: value for key, value in before.items() if key != "mcp_servers"}
    if after.pop("mcp_servers", {}) != servers or after != others:
        why = f"{name!r} is written in a way Atlas does not rewrite: remove it from {clean_line(path)} by hand"
        raise ConfigError(why)
    statefiles.replace_file(path, text.encode("utf-8"), mode=0o644)
    return path
