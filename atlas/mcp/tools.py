"""An MCP server's tools as registry `ToolSpec`s: named `SERVER__tool`, checked against their schema,
run through the host's loop, approved according to their annotations — which are hints from a
server, so only `readOnlyHint: true` is ever taken at its word, and only when `trust` allows it.
"""

from __future__ import annotations

import json
import re
import sys
from collections.abc import Iterable
from functools import partial
from typing import Any

import mcp_types as types

from atlas.errors import UnavailableToolError
from atlas.mcp.config import ServerConfig
from atlas.mcp.content import result_data
from atlas.mcp.host import McpHost
from atlas.mcp.schema import JsonSchemaArgs, args_model_for
from atlas.tools.registry import ToolContext, ToolSpec
from atlas.ui.safe import clean_line

SEPARATOR = "__"
NAME_LIMIT = 64
"""Function names the model accepts: letters, digits, `_` and `-`, at most 64 characters."""
START_TIMEOUT_S = 20.0


def tool_name(server: str, tool: str) -> str:
    return (server + SEPARATOR + re.sub(r"[^A-Za-z0-9_-]", "_", tool))[:NAME_LIMIT]


def is_read_only(config: ServerConfig, tool: types.Tool) -> bool:
    """Runs without asking only when the server says read-only and the user's `trust` lets it say so."""
    hints = tool.annotations
    return config.trust == "read-only-hints" and hints is not None and hints.read_only_hint is True


def _preview(config: ServerConfig, tool: types.Tool, args: JsonSchemaArgs, context: ToolContext) -> str:
    hints = tool.annotations
    destructive = hints is None or hints.destructive_hint is not False
    effect = "may delete or overwrite data (destructiveHint)" if destructive else "adds only (destructiveHint: false)"
    shown = json.dumps(args.arguments(), ensure_ascii=False, indent=2)
    return (
        f"MCP tool {tool.name!r} on server {config.name!r} — {effect}\n"
        f"(what it does is the server's own description, not checked by Atlas)\n"
        f"arguments:\n{shown}"
    )


def _call(host: McpHost, config: ServerConfig, tool: str, args: JsonSchemaArgs, context: ToolContext) -> Any:
    return result_data(host.call(config, tool, args.arguments()))


def _sources(config: ServerConfig, tool: str, args: Any, data: Any) -> list[str]:
    return [f"MCP server {config.name} ({tool})"]


def _server_tag(server: str, args: Any) -> set[str]:
    """What an MCP tool's result depends on, and what its writes change: the whole server."""
    return {f"mcp:{server}"}


def spec_for(host: McpHost, config: ServerConfig, tool: types.Tool) -> ToolSpec[Any]:
    name = tool_name(config.name, tool.name)
    hints = tool.annotations
    read_only = is_read_only(config, tool)
    schema = tool.input_schema if isinstance(tool.input_schema, dict) else {"type": "object"}
    return ToolSpec(
        name=name,
        fn=partial(_call, host, config, tool.name),
        args_model=args_model_for(name, schema),
        description=(tool.description or tool.name).strip() + f" (MCP server {config.name})",
        side_effect=not read_only,
        # A read may be retried; a write only when the server says repeating it is harmless.
        idempotent=read_only or (hints is not None and hints.idempotent_hint is True),
        timeout_s=config.timeout_s,
        preview=None if read_only else partial(_preview, config, tool),
        untrusted=partial(_sources, config, tool.name),
        input_schema=schema,
        breaker_key=f"mcp:{config.name}",
        cache_ttl_s=config.cache_ttl_s if read_only else 0,
        cache_tags=partial(_server_tag, config.name),
        invalidates=partial(_server_tag, config.name),
    )


def _offered(host: McpHost, config: ServerConfig, listed: list[types.Tool]) -> list[ToolSpec[Any]]:
    """The tools that match their pins (`pins.py`) and the allow-list."""
    from atlas.mcp.pins import admitted

    allowed = None if config.tools is None else set(config.tools)
    pinned = admitted(host.home, config, listed)
    return [spec_for(host, config, tool) for tool in pinned if allowed is None or tool.name in allowed]


def server_specs(host: McpHost, config: ServerConfig) -> list[ToolSpec[Any]]:
    """The server's tools (its allow-list applied); UnavailableToolError when it does not start."""
    return _offered(host, config, host.tools(config, timeout_s=max(START_TIMEOUT_S, config.timeout_s)))


def mcp_specs(host: McpHost, servers: Iterable[ServerConfig]) -> list[ToolSpec[Any]]:
    """Every enabled server's tools, started side by side; one that does not start costs its tools
    and one warning line."""
    enabled = [config for config in servers if config.enabled]
    timeout = max([START_TIMEOUT_S, *(config.timeout_s for config in enabled)])
    outcomes = host.start_all(enabled, timeout)
    specs: list[ToolSpec[Any]] = []
    for config in enabled:
        outcome = outcomes[config.name]
        if isinstance(outcome, UnavailableToolError):
            print(f"atlas: warning: {clean_line(outcome)}; its tools are not offered", file=sys.stderr)
        else:
            specs.extend(_offered(host, config, outcome))
    return specs
