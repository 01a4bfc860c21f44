"""The `atlas data` and `atlas mcp` command groups: wiring only, as in `atlas.cli`."""

from __future__ import annotations

import typer

from atlas.cli.options import ToolTimeoutOption, command_group, examples

data_app = typer.Typer(
    no_args_is_help=True, help="Your own project: a GitHub export or repository as a dataset folder (ORBIT_DATA)."
)
mcp_app = command_group("MCP: other servers' tools for Atlas, and Atlas's tools for MCP hosts.")


@data_app.command(
    "import",
    short_help="Import exported issues (offline, no token) into a dataset folder.",
    epilog=examples(
        "gh issue list --state all --limit 5000 --json number,title,body,state,labels,author,comments,createdAt,url"
        " > issues.json",
        "atlas data import issues.json --to ~/quill-data --docs ./docs",
    ),
)
def data_import(
    file: str = typer.Argument(
        ..., metavar="FILE", help="The JSON of `gh issue list --state all --json ...` or of the REST API."
    ),
    to: str = typer.Option(
        ..., "--to", metavar="DIR", help="The dataset folder to write (new, empty, or one atlas wrote)."
    ),
    docs: str | None = typer.Option(None, "--docs", metavar="DIR", help="A folder of markdown docs to copy in."),
) -> None:
    """Import exported issues (offline, no token) into a dataset folder."""
    from pathlib import Path

    from atlas.commands import guarded
    from atlas.commands.data import run_import

    guarded(lambda: run_import(Path(file), Path(to), Path(docs) if docs else None))


@data_app.command(
    "sync",
    short_help="Fetch a repository's issues and comments; a second sync fetches only what changed.",
    epilog=examples("atlas data sync owner/repo --to ~/repo-data", "ORBIT_DATA=~/repo-data atlas ask open bugs"),
)
def data_sync(
    repo: str = typer.Argument(
        ..., metavar="OWNER/REPO", help="The repository on GitHub (GITHUB_API_URL for GitHub Enterprise)."
    ),
    to: str = typer.Option(..., "--to", metavar="DIR", help="The dataset folder to write or bring up to date."),
    docs: str | None = typer.Option(None, "--docs", metavar="DIR", help="A folder of markdown docs to copy in."),
    full: bool = typer.Option(False, "--full", help="Fetch everything again, not only what changed."),
    concurrency: int = typer.Option(
        8, "--concurrency", min=1, max=32, metavar="N", help="Comment lists fetched at once (1-32)."
    ),
) -> None:
    """Fetch a repository's issues and comments; a second sync fetches only what changed."""
    from pathlib import Path

    from atlas.commands import guarded
    from atlas.commands.data import run_sync

    folder, docs_folder = Path(to), Path(docs) if docs else None
    guarded(lambda: run_sync(repo, folder, docs_folder, full=full, concurrency=concurrency))


@mcp_app.command(
    "list",
    short_help="The configured MCP servers: command, state, trust and tools ((asks): approval first).",
    epilog=examples("atlas mcp list"),
)
def mcp_list() -> None:
    """The configured MCP servers: command, state, trust and tools ((asks): approval first)."""
    from atlas.commands import guarded
    from atlas.commands.mcp import list_servers

    guarded(list_servers)


@mcp_app.command(
    "add",
    short_help="Add a stdio MCP server to config.toml: atlas mcp add NAME -- COMMAND ARGS...",
    epilog=examples("atlas mcp add git -- mcp-server-git --repository .", "atlas mcp add time -- mcp-server-time"),
)
def mcp_add(
    name: str = typer.Argument(..., metavar="NAME", help="The server's name: its tools are offered as NAME__tool."),
    command: list[str] | None = typer.Argument(  # noqa: B008 (typer's own idiom)
        None, metavar="COMMAND", help="After --: the command that starts the server, and its arguments."
    ),
) -> None:
    """Add a stdio MCP server to config.toml: atlas mcp add NAME -- COMMAND ARGS..."""
    from atlas.commands import guarded
    from atlas.commands.mcp import add_server

    guarded(lambda: add_server(name, list(command or [])))


@mcp_app.command("remove", short_help="Remove a server from config.toml.", epilog=examples("atlas mcp remove git"))
def mcp_remove(name: str = typer.Argument(..., help="The server's name, as atlas mcp list shows it.")) -> None:
    """Remove a server from config.toml (every other line stays as it was)."""
    from atlas.commands import guarded
    from atlas.commands.mcp import remove_server

    guarded(lambda: remove_server(name))


@mcp_app.command(
    "trust",
    short_help="Trust a server's command and pin its tools as they are now.",
    epilog=examples("atlas mcp list", "atlas mcp trust git"),
)
def mcp_trust(name: str = typer.Argument(..., help="The server's name, as atlas mcp list shows it.")) -> None:
    """Trust a server as it is now: its command (a project's .atlas folder may then start it) and its
    tools' descriptions, schemas and hints, which are pinned."""
    from atlas.commands import guarded
    from atlas.commands.mcp import pin_server, trust_server

    def trust_and_pin() -> None:
        trust_server(name)
        pin_server(name)

    guarded(trust_and_pin)


@mcp_app.command(
    "serve",
    short_help="Serve Atlas's tools to an MCP host over stdio (read-only unless --allow-writes).",
    epilog=examples("atlas mcp serve", "atlas mcp serve --allow-writes"),
)
def mcp_serve(
    allow_writes: bool = typer.Option(
        False, "--allow-writes", help="Also serve side effects; each asks the host's user (elicitation) first."
    ),
    timeout: ToolTimeoutOption = 5.0,
) -> None:
    """Serve Atlas's tools to an MCP host over stdio (read-only unless --allow-writes)."""
    from atlas.commands import guarded
    from atlas.commands.mcp_serve import serve

    # With a shared state, it is opened before serving: unreachable, one line and no server.
    guarded(lambda: serve(allow_writes=allow_writes, timeout_s=timeout), state=True)
