"""`atlas mcp list|add|remove|trust|serve`: the configured MCP servers, and Atlas's tools served to MCP hosts."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

from atlas.foundation.config import Settings
from atlas.foundation.errors import ConfigError, UnavailableToolError
from atlas.foundation.notices import warn
from atlas.foundation.sanitize import clean_line, write_line
from atlas.ui.render import data_table, make_console

if TYPE_CHECKING:
    from atlas.mcp.config import ServerConfig
    from atlas.mcp.trust import Trust


def _command_line(server: ServerConfig) -> str:
    env = " ".join(f"{key}={value}" for key, value in sorted(server.env.items()))
    return " ".join([*([env] if env else []), server.command, *server.args])


def _trusted(trust: Trust, server: ServerConfig) -> str:
    if not trust.needed:
        return "yes (your folder)"
    return "yes" if trust.allows(server) else f"no: atlas mcp trust {server.name}"


def list_servers() -> None:
    """Each server: its command, whether it may start, its state and tools (trusted, enabled servers
    are started side by side to list them)."""
    from atlas.mcp.config import load_servers
    from atlas.mcp.offer import mcp_sdk_missing
    from atlas.mcp.trust import trust_for

    home = Settings().home
    servers = load_servers(home)
    console = make_console(for_tables=True)
    if not servers:
        console.print(f"No MCP servers configured in {clean_line(home / 'config.toml')}; add one with atlas mcp add.")
        return
    trust = trust_for(home)
    startable = [server for server in servers if server.enabled and trust.allows(server)]
    missing = mcp_sdk_missing() if startable else None
    if startable and not missing:
        from atlas.mcp.pins import check_pins

        check_pins(home)
    outcomes = {} if missing or not startable else _start(home, startable)
    rows = []
    for server in servers:
        if not server.enabled:
            state, tools = "disabled", ""
        elif server not in startable:
            state, tools = "not started", "(trust it first)"
        elif missing:
            state, tools = "not started", clean_line(missing)
        else:
            state, tools = outcomes[server.name]
        rows.append((server.name, clean_line(_command_line(server)), _trusted(trust, server), state, tools))
    console.print(data_table(("server", "command", "trusted", "state", "tools"), rows))


def _start(home: Path, servers: list[ServerConfig]) -> dict[str, tuple[str, str]]:
    """(state, tools) per server, all started at once: hung servers cost one start timeout together."""
    from atlas.mcp.host import host_for
    from atlas.mcp.tools import SEPARATOR, offered, start_timeout

    host = host_for(home)
    try:
        started = host.start_all(servers, start_timeout(servers, None))
        shown: dict[str, tuple[str, str]] = {}
        for server in servers:
            outcome = started[server.name]
            if isinstance(outcome, UnavailableToolError):
                shown[server.name] = ("failed", clean_line(outcome))
                continue
            prefix = server.name + SEPARATOR
            specs = offered(host, server, outcome)
            names = [spec.name.removeprefix(prefix) + (" (asks)" if spec.side_effect else "") for spec in specs]
            shown[server.name] = (host.state(server.name), ", ".join(names))
        return shown
    finally:
        host.stop()


def add_server(name: str, command: list[str]) -> None:
    from atlas.mcp.config import add_server as append_server
    from atlas.mcp.config import load_servers
    from atlas.mcp.offer import mcp_sdk_missing
    from atlas.mcp.trust import trust_for

    if not command:
        raise ConfigError("give the server's command after --, e.g. atlas mcp add git -- uvx mcp-server-git")
    home = Settings().home
    path = append_server(home, name, command[0], command[1:])
    write_line(f"Added MCP server {name!r} to {clean_line(path)}: {clean_line(' '.join(command))}")
    trust = trust_for(home)
    if trust.needed:  # the user typed this command here: it is theirs, trusted as written
        [added] = [server for server in load_servers(home) if server.name == name]
        trust.record(added)
    missing = mcp_sdk_missing()
    if missing is not None:
        warn(f"{missing} (its tools are offered once it is)")
        return
    try:
        pin_server(name)
    except UnavailableToolError as exc:
        warn(f"{clean_line(exc)}; its tools are pinned when it first starts")


def remove_server(name: str) -> None:
    from atlas.mcp.config import remove_server as drop_server

    path = drop_server(Settings().home, name)
    write_line(f"Removed MCP server {name!r} from {clean_line(path)}")


def trust_server(name: str) -> None:
    """Let a server of a found state folder start, as its command reads now."""
    from atlas.mcp.config import load_servers
    from atlas.mcp.trust import store_path, trust_for

    home = Settings().home
    found = [server for server in load_servers(home) if server.name == name]
    if not found:
        raise ConfigError(
            f"no MCP server named {clean_line(name)!r} is configured in {clean_line(home / 'config.toml')}"
        )
    trust = trust_for(home)
    if not trust.needed:
        write_line(
            f"{clean_line(home)} is your own state folder ({trust.folder.found_by}): its servers start without trust."
        )
        return
    trust.record(found[0])
    write_line(f"Trusted MCP server {name!r} of {clean_line(home)}: {clean_line(_command_line(found[0]))}")
    write_line(f"(kept in {clean_line(store_path())}; if its command changes, it must be trusted again)")


def pin_server(name: str) -> None:
    """Start the server, record each tool as it is now, and say what changed since the last pins."""
    from atlas.mcp.config import load_servers
    from atlas.mcp.host import host_for
    from atlas.mcp.pins import check_pins, record
    from atlas.mcp.tools import START_TIMEOUT_S

    home = Settings().home
    config = next((server for server in load_servers(home) if server.name == name), None)
    if config is None:
        raise ConfigError(f"no MCP server named {name!r} is configured (atlas mcp list shows them)")
    check_pins(home)  # a pin file that cannot be used cannot take new pins either
    host = host_for(home)
    try:
        tools = host.tools(config, timeout_s=max(START_TIMEOUT_S, config.timeout_s))
    finally:
        host.stop()
    review = record(home, config, tools)
    for line in review.lines(name):
        write_line(line.replace(" held back:", " approved:"))
    write_line(f"Pinned {len(tools)} tools of MCP server {name!r}: {clean_line(', '.join(t.name for t in tools))}")
