"""`atlas mcp list|add|serve`: the configured MCP servers, a new one, and Atlas's tools served to MCP hosts."""

from __future__ import annotations

import sys

from atlas.config import Settings
from atlas.errors import ConfigError, UnavailableToolError
from atlas.ui.render import data_table, make_console
from atlas.ui.safe import clean_line


def list_servers() -> None:
    """Each server: its command, state and tools (enabled servers are started to list them)."""
    from atlas.mcp.config import load_servers

    home = Settings().home
    servers = load_servers(home)
    console = make_console(for_tables=True)
    if not servers:
        console.print(f"No MCP servers configured in {clean_line(home / 'config.toml')}; add one with atlas mcp add.")
        return
    from atlas.mcp.host import host_for
    from atlas.mcp.tools import SEPARATOR, server_specs

    host = host_for(home)
    rows = []
    for server in servers:
        command = " ".join([server.command, *server.args])
        if not server.enabled:
            rows.append((server.name, command, "disabled", server.trust, ""))
            continue
        try:
            specs = server_specs(host, server)
        except UnavailableToolError as exc:
            rows.append((server.name, command, "failed", server.trust, clean_line(exc)))
            continue
        prefix = server.name + SEPARATOR
        tools = ", ".join(spec.name.removeprefix(prefix) + (" (asks)" if spec.side_effect else "") for spec in specs)
        rows.append((server.name, command, host.state(server.name), server.trust, tools))
    console.print(data_table(("server", "command", "state", "trust", "tools"), rows))
    host.stop()


def add_server(name: str, command: list[str]) -> None:
    from atlas.mcp.config import add_server as append_server

    if not command:
        raise ConfigError("give the server's command after --, e.g. atlas mcp add git -- uvx mcp-server-git")
    path = append_server(Settings().home, name, command[0], command[1:])
    print(f"Added MCP server {name!r} to {clean_line(path)}: {clean_line(' '.join(command))}")
    try:
        pin_server(name)
    except UnavailableToolError as exc:
        print(f"atlas: warning: {clean_line(exc)}; its tools are pinned when it first starts", file=sys.stderr)


def pin_server(name: str) -> None:
    """Start the server, record each tool as it is now, and say what changed since the last pins."""
    from atlas.mcp.config import load_servers
    from atlas.mcp.host import host_for
    from atlas.mcp.pins import record
    from atlas.mcp.tools import START_TIMEOUT_S

    home = Settings().home
    config = next((server for server in load_servers(home) if server.name == name), None)
    if config is None:
        raise ConfigError(f"no MCP server named {name!r} is configured (atlas mcp list shows them)")
    host = host_for(home)
    try:
        tools = host.tools(config, timeout_s=max(START_TIMEOUT_S, config.timeout_s))
    finally:
        host.stop()
    review = record(home, config, tools)
    for line in review.lines(name):
        print(line.replace(" held back:", " approved:"))
    print(f"Pinned {len(tools)} tools of MCP server {name!r}: {clean_line(', '.join(t.name for t in tools))}")
