"""The MCP servers' tools offered to a run: configured, enabled, trusted, and the SDK installed.

Imported by every command that may offer MCP tools; it imports the SDK only once a server is
configured, so a run without one never pays for it.
"""

from __future__ import annotations

from pathlib import Path

from atlas.foundation.notices import warn
from atlas.foundation.sanitize import write_line
from atlas.protocol.deadline import QuestionDeadline
from atlas.tools.registry import Registry

MISSING_SDK = "the MCP SDK is not installed: pip install 'atlas-orbit[mcp]'"


def mcp_sdk_missing() -> str | None:
    """Why MCP servers cannot be used here (the `mcp` extra is not installed), or None when they can."""
    try:
        import jsonschema  # noqa: F401
        import mcp  # noqa: F401
        import regex  # noqa: F401
    except ImportError:
        return MISSING_SDK
    return None


def with_mcp_tools(tools: Registry, home: Path, deadline: QuestionDeadline | None = None) -> Registry:
    """The registry plus the tools of every enabled, trusted MCP server in `config.toml`.

    The servers start within what is left of `deadline`, the question's (None: their own start bound).
    The MCP SDK is imported, and the servers started, only when one is configured; a server of a
    state folder Atlas found is started only once trusted (`atlas.mcp.trust`); without the SDK, or
    for what does not start, one warning line each and the built-in tools.
    """
    from atlas.mcp.config import load_servers

    servers = [server for server in load_servers(home) if server.enabled]
    if not servers:
        return tools
    from atlas.mcp.trust import trust_for

    trust = trust_for(home)
    allowed, waiting = trust.split(servers)
    if waiting:
        write_line(trust.warning(waiting), err=True)
    if not allowed:
        return tools
    missing = mcp_sdk_missing()
    if missing is not None:
        warn(f"MCP servers are configured but {missing}; their tools are not offered")
        return tools
    from atlas.mcp.host import host_for
    from atlas.mcp.pins import check_pins
    from atlas.mcp.tools import mcp_specs

    check_pins(home)
    # Importing the SDK took part of the deadline already: the servers get what is left of it.
    left = None if deadline is None else deadline.left_s()
    return tools.with_tools(*mcp_specs(host_for(home), allowed, left))
