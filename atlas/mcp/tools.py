"""An MCP server's tools as registry `ToolSpec`s: named `SERVER__tool`, checked against their schema,
run through the host's loop, approved according to their annotations — which are hints from a
server, so only `readOnlyHint: true` is ever taken at its word, and only when `trust` allows it.
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from functools import partial
from typing import Any

import mcp_types as types

from atlas.foundation.errors import ProtocolToolError, UnavailableToolError
from atlas.foundation.notices import warn
from atlas.foundation.sanitize import clean_line
from atlas.mcp.config import ServerConfig
from atlas.mcp.content import result_data
from atlas.mcp.host import McpHost, ServerExited
from atlas.mcp.schema import JsonSchemaArgs, PatternTooSlow, args_model_for, bounded_validator, first_error
from atlas.tools.registry import ToolContext, ToolSpec

SEPARATOR = "__"
NAME_LIMIT = 64
"""Function names the model accepts: letters, digits, `_` and `-`, at most 64 characters."""
START_TIMEOUT_S = 10.0
"""How long a server gets to start and list its tools (less when the question's deadline is nearer)."""
MIN_START_S = 0.1
"""Less of the deadline than this left: no server is started at all."""
UNSETTLED_HINT = (
    "The server ended while this action ran, so it may have been done. Do not retry it; tell the user to "
    "check whether it happened."
)


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


def _checked_output(config: ServerConfig, tool: types.Tool, result: types.CallToolResult) -> None:
    """A successful result against the tool's output schema, in bounded time; ProtocolToolError if it breaks it."""
    if tool.output_schema is None or result.is_error:
        return
    where = f"MCP server {config.name!r} ({tool.name})"
    if result.structured_content is None:
        raise ProtocolToolError(f"{where} declares an output schema but sent no structured content")
    try:
        problem = first_error(bounded_validator(tool.output_schema), result.structured_content)
    except PatternTooSlow as exc:
        raise ProtocolToolError(
            f"{where}: its output schema has a pattern too slow to check ({str(exc)[:80]!r})"
        ) from None
    if problem is not None:
        raise ProtocolToolError(f"{where} sent a result that breaks its output schema: {problem}")


def _call(host: McpHost, config: ServerConfig, tool: types.Tool, args: JsonSchemaArgs, context: ToolContext) -> Any:
    result = host.call(config, tool.name, args.arguments())
    _checked_output(config, tool, result)
    return result_data(result)


def _write(host: McpHost, config: ServerConfig, tool: types.Tool, args: JsonSchemaArgs, context: ToolContext) -> Any:
    """A side effect: a server that ended mid-call may have done it, and the model is told so."""
    try:
        return _call(host, config, tool, args, context)
    except ServerExited as exc:
        raise ServerExited(f"{exc}: it may have taken effect", hint=UNSETTLED_HINT) from None


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
        fn=partial(_call if read_only else _write, host, config, tool),
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
        annotations=_hints(hints),
        cache_ttl_s=config.cache_ttl_s if read_only else 0,
        cache_tags=partial(_server_tag, config.name),
        invalidates=partial(_server_tag, config.name),
    )


def _hints(hints: types.ToolAnnotations | None) -> dict[str, bool]:
    """The hints the server set, by the names policy rules use."""
    if hints is None:
        return {}
    named = {
        "read_only": hints.read_only_hint,
        "destructive": hints.destructive_hint,
        "idempotent": hints.idempotent_hint,
        "open_world": hints.open_world_hint,
    }
    return {name: value for name, value in named.items() if isinstance(value, bool)}


def offered(host: McpHost, config: ServerConfig, listed: list[types.Tool]) -> list[ToolSpec[Any]]:
    """The tools that match their pins (`pins.py`) and the allow-list."""
    from atlas.mcp.pins import admitted

    allowed = None if config.tools is None else set(config.tools)
    pinned = admitted(host.home, config, listed)
    return [spec_for(host, config, tool) for tool in pinned if allowed is None or tool.name in allowed]


def server_specs(host: McpHost, config: ServerConfig) -> list[ToolSpec[Any]]:
    """The server's tools (its allow-list applied); UnavailableToolError when it does not start."""
    return offered(host, config, host.tools(config, timeout_s=max(START_TIMEOUT_S, config.timeout_s)))


def mcp_specs(host: McpHost, servers: Iterable[ServerConfig], deadline_s: float | None = None) -> list[ToolSpec[Any]]:
    """Every enabled server's tools, started side by side within `deadline_s`; one that does not start
    costs its tools and one warning line, and so does each tool whose listing Atlas cannot use."""
    enabled = [config for config in servers if config.enabled]
    if deadline_s is not None and deadline_s < MIN_START_S:
        names = ", ".join(config.name for config in enabled)
        warn(f"no time left in --deadline to start MCP servers ({names})")
        return []
    outcomes = host.start_all(enabled, start_timeout(enabled, deadline_s))
    specs: list[ToolSpec[Any]] = []
    for config in enabled:
        outcome = outcomes[config.name]
        if isinstance(outcome, UnavailableToolError):
            warn(f"{clean_line(outcome)}; its tools are not offered")
            continue
        for line in host.dropped(config.name):
            warn(f"MCP server {config.name!r}: {clean_line(line)}")
        specs.extend(offered(host, config, outcome))
    return specs


def start_timeout(servers: Iterable[ServerConfig], deadline_s: float | None) -> float:
    """How long starting `servers` may take: the start timeout (or a longer call timeout), within the deadline."""
    timeout = max([START_TIMEOUT_S, *(config.timeout_s for config in servers)])
    return timeout if deadline_s is None else min(timeout, deadline_s)
