"""Pinned MCP tools: what each tool said it was when a person approved its server, and what changed since.

`atlas mcp add` and `atlas mcp trust NAME` record, for each tool of the server, its name,
description, input schema, output schema and annotations in `$ATLAS_HOME/mcp-pins.json` (with the
command the server was started with). Later, a tool that differs from its pin, or that was not there, is
held back — not offered to the model — until a person runs `atlas mcp trust NAME` again; each is
reported in one line saying what changed. A pinned tool the server no longer lists is reported.
This is what stops a server from changing a trusted tool's description or schemas after approval.

A server that was never pinned (written into config.toml by hand) is pinned the first time its
tools are listed. A pin file written before output schemas were pinned still loads: each tool that
matches its pin gets its output schema pinned as it is then, and is held to it from then on. The
file carries a digest of its pins: one edited by hand, or damaged, is a one-line error, never
silently re-trusted.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import mcp_types as types

from atlas.foundation import statefiles
from atlas.foundation.errors import ConfigError
from atlas.foundation.notices import warn
from atlas.foundation.sanitize import clean_line
from atlas.mcp.config import ServerConfig

PIN_FILE = "mcp-pins.json"
FORMAT = 1
SHOWN_CHARS = 60
PINNED_PARTS = ("description", "input_schema", "output_schema", "annotations")
LATER_PARTS = frozenset({"output_schema"})
"""Parts an older pin file may not have: absent from a pin, such a part is pinned as the tool has it then."""


class PinError(ConfigError):
    """The pin file cannot be used: unreadable, not Atlas's, or changed outside Atlas."""


def pin_of(tool: types.Tool) -> dict[str, Any]:
    """What is pinned of a tool: everything the model would be shown of it, and its hints."""
    annotations = tool.annotations.model_dump(mode="json", by_alias=True, exclude_none=True) if tool.annotations else {}
    return {
        "description": tool.description or "",
        "input_schema": tool.input_schema if isinstance(tool.input_schema, dict) else {},
        # What its results are checked against (and what a client may show of them); None: it declares none.
        "output_schema": tool.output_schema if isinstance(tool.output_schema, dict) else None,
        "annotations": annotations,
    }


def _digest(servers: dict[str, Any]) -> str:
    return hashlib.sha256(json.dumps(servers, sort_keys=True, ensure_ascii=True).encode("ascii")).hexdigest()


def load_pins(home: Path) -> dict[str, Any]:
    """Every server's pins by name (`command`, `tools`); {} when nothing was pinned yet."""
    path = home / PIN_FILE
    broken = f"{clean_line(path)} was changed outside Atlas or is damaged"
    redo = "move it aside and run `atlas mcp trust NAME` for each server"
    try:
        raw = statefiles.read_bytes(path)
    except NotADirectoryError:
        return {}
    except OSError as exc:
        raise PinError(f"{clean_line(path)} cannot be read: {exc}") from None
    if raw is None:
        return {}
    try:
        document = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        raise PinError(f"{broken} (not JSON); {redo}") from None
    servers = document.get("servers") if isinstance(document, dict) else None
    if not isinstance(servers, dict) or document.get("format") != FORMAT or not _well_formed(servers):
        raise PinError(f"{broken} (not the shape Atlas writes); {redo}")
    if document.get("digest") != _digest(servers):
        raise PinError(f"{broken} (its digest does not match its pins); {redo}")
    return servers


def check_pins(home: Path) -> None:
    """Raise PinError now if the pin file cannot be used: before a server is started for nothing."""
    load_pins(home)


def _well_formed(servers: dict[str, Any]) -> bool:
    for entry in servers.values():
        if not isinstance(entry, dict) or not isinstance(entry.get("tools"), dict):
            return False
        if not isinstance(entry.get("command"), list):
            return False
        if not all(isinstance(pin, dict) for pin in entry["tools"].values()):
            return False
    return True


def command_of(config: ServerConfig) -> list[str]:
    return [config.command, *config.args]


def record(home: Path, config: ServerConfig, tools: Sequence[types.Tool]) -> Review:
    """Pin the server's tools as they are now; the review says what changed against the old pins."""
    home.mkdir(parents=True, exist_ok=True)
    with statefiles.locked(home / f"{PIN_FILE}.lock", timeout=10):
        servers = load_pins(home)
        review = compare(servers.get(config.name), config, tools)
        servers[config.name] = {
            "command": command_of(config),
            "pinned_at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime()),
            "tools": {tool.name: pin_of(tool) for tool in tools},
        }
        _write(home, servers)
    return review


def _write(home: Path, servers: dict[str, Any]) -> None:
    body = {"format": FORMAT, "digest": _digest(servers), "servers": servers}
    statefiles.replace_file(home / PIN_FILE, (json.dumps(body, indent=1, sort_keys=True) + "\n").encode("utf-8"))


@dataclass
class Review:
    """A server's listed tools against its pins."""

    offered: list[types.Tool] = field(default_factory=list)
    held: list[str] = field(default_factory=list)
    """One line per tool held back: new, or changed (and how)."""
    removed: list[str] = field(default_factory=list)
    """Pinned tools the server no longer lists."""

    def lines(self, server: str) -> list[str]:
        held = [f"MCP server {server}: {line}" for line in self.held]
        return held + [f"MCP server {server}: tool {clean_line(name)} was pinned but is gone" for name in self.removed]


def compare(pinned: dict[str, Any] | None, config: ServerConfig, tools: Iterable[types.Tool]) -> Review:
    """Which tools match their pins (offered), which do not (held, with a line each), which are gone."""
    review = Review()
    listed = list(tools)
    if pinned is None:
        review.offered = listed
        return review
    same_command = pinned["command"] == command_of(config)
    for tool in listed:
        old = pinned["tools"].get(tool.name)
        name = clean_line(tool.name)
        if not same_command:
            review.held.append(f"tool {name} held back: the server's command changed since it was pinned")
        elif old is None:
            review.held.append(f"tool {name} held back: new since the server was pinned")
        elif (change := difference(old, pin_of(tool))) is not None:
            review.held.append(f"tool {name} held back: {change}")
        else:
            review.offered.append(tool)
    names = {tool.name for tool in listed}
    review.removed = sorted(name for name in pinned["tools"] if name not in names)
    return review


def difference(old: dict[str, Any], new: dict[str, Any]) -> str | None:
    """What changed between two pins of a tool, in one line; None when nothing did."""
    for part in PINNED_PARTS:
        if part in LATER_PARTS and part not in old:
            continue  # pinned before this part was: `adopt_later_parts` pins it as it is now
        if old.get(part) != new.get(part):
            where, before, after = _first_difference(old.get(part), new.get(part), part)
            return f"{where} changed: {_shown(before)} → {_shown(after)}"
    return None


_ABSENT = object()


def _first_difference(old: Any, new: Any, where: str) -> tuple[str, Any, Any]:
    if isinstance(old, dict) and isinstance(new, dict):
        for key in sorted(set(old) | set(new), key=str):
            if old.get(key, _ABSENT) != new.get(key, _ABSENT):
                return _first_difference(old.get(key, _ABSENT), new.get(key, _ABSENT), f"{where}.{key}")
    return where, old, new


def _shown(value: Any) -> str:
    if value is _ABSENT:
        return "(absent)"
    text = clean_line(json.dumps(value, ensure_ascii=False) if not isinstance(value, str) else repr(value))
    return text if len(text) <= SHOWN_CHARS else text[: SHOWN_CHARS - 1] + "…"


def admitted(home: Path, config: ServerConfig, tools: list[types.Tool]) -> list[types.Tool]:
    """The tools that match their pins; a line on stderr for each held back or gone. A server never
    pinned is pinned now. A pin file that cannot be used holds every tool back (PinError)."""
    pinned = load_pins(home).get(config.name)
    if pinned is None:
        record(home, config, tools)
        return tools
    review = compare(pinned, config, tools)
    if any(part not in pinned["tools"].get(tool.name, {}) for tool in review.offered for part in LATER_PARTS):
        adopt_later_parts(home, config, review.offered)
    for line in review.lines(config.name):
        warn(f"{line}")
    if review.held:
        warn(f"run `atlas mcp trust {config.name}` to approve the changes")
    return review.offered


def adopt_later_parts(home: Path, config: ServerConfig, matching: Sequence[types.Tool]) -> None:
    """Pins from an older file get the parts they lack (`LATER_PARTS`) from `matching`, tools that
    match their pins in every part they have; nothing a pin already holds is changed."""
    with statefiles.locked(home / f"{PIN_FILE}.lock", timeout=10):
        servers = load_pins(home)
        entry = servers.get(config.name)
        if entry is None or entry["command"] != command_of(config):
            return
        added = False
        for tool in matching:
            pin = entry["tools"].get(tool.name)
            if pin is None or difference(pin, pin_of(tool)) is not None:
                continue  # re-pinned or changed since it was compared: left as it is
            for part in LATER_PARTS - set(pin):
                pin[part] = pin_of(tool)[part]
                added = True
        if added:
            _write(home, servers)
