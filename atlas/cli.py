"""The `atlas` command line: wiring only; each command's body lives in `atlas.commands`.

Bodies are imported inside the commands so that `atlas --help` stays fast and nothing heavy
(least of all the openai SDK) is loaded before a command needs it.
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import typer

from atlas import __version__

T = TypeVar("T", int, float)

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
data_app = typer.Typer(
    no_args_is_help=True, help="Your own project: a GitHub export or repository as a dataset folder (ORBIT_DATA)."
)
app.add_typer(data_app, name="data")


def _within(option: str) -> Callable[[T | None], T | None]:
    """A callback that refuses a value outside `option`'s bounds in `atlas.config.BOUNDS` (a usage error)."""

    def check(value: T | None) -> T | None:
        from atlas.config import BOUNDS

        why = None if value is None else BOUNDS[option].check(float(value))
        if why is not None:
            raise typer.BadParameter(f"{why}, got {value:g}", param_hint=option)
        return value

    return check


def _version(value: bool) -> None:
    if value:
        typer.echo(f"atlas {__version__}")
        raise typer.Exit()


mcp_app = typer.Typer(
    no_args_is_help=True,
    help="MCP: other servers' tools for Atlas, and Atlas's tools for MCP hosts.",
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)
app.add_typer(mcp_app, name="mcp")


@app.callback()
def main(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version."),
) -> None:
    """Atlas answers Orbit maintainers' questions through tools."""


@app.command()
def ask(
    question: str = typer.Argument(..., help="The question, or - to read it from standard input."),
    model: str | None = typer.Option(None, "--model", "-m", help="offline, replay:PATH or an OpenAI model."),
    api: str | None = typer.Option(None, "--api", help="The server's API: responses (default) or chat."),
    read_only: bool = typer.Option(False, "--read-only", help="Do not offer side-effect tools to the model."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object (answer, calls, usage, cost)."),
    max_rounds: int = typer.Option(
        5, "--max-rounds", callback=_within("--max-rounds"), help="Model requests before giving up (1-50)."
    ),
    timeout: float = typer.Option(
        5.0, "--timeout", callback=_within("--timeout"), help="Default per-tool deadline in seconds (0.05-600)."
    ),
    concurrency: int = typer.Option(
        4, "--concurrency", callback=_within("--concurrency"), help="Tool calls running at once (1-64)."
    ),
    no_parallel: bool = typer.Option(False, "--no-parallel", help="Ask for and run one tool call at a time."),
    deadline: float | None = typer.Option(
        None, "--deadline", callback=_within("--deadline"), help="Overall budget in seconds (0.1-3600)."
    ),
) -> None:
    """Answer one question: live tool rows, y/N before side effects, then the answer."""
    from atlas.commands import guarded
    from atlas.commands.ask import AskOptions, run_ask

    options = AskOptions(
        question=question,
        model=model,
        api=api,
        read_only=read_only,
        as_json=as_json,
        max_rounds=max_rounds,
        timeout_s=timeout,
        concurrency=concurrency,
        parallel=not no_parallel,
        deadline_s=deadline,
    )
    code = guarded(lambda: run_ask(options))
    raise typer.Exit(code)


@app.command()
def chat(
    model: str | None = typer.Option(None, "--model", "-m", help="offline, replay:PATH or an OpenAI model."),
    api: str | None = typer.Option(None, "--api", help="The server's API: responses (default) or chat."),
    read_only: bool = typer.Option(False, "--read-only", help="Start with side-effect tools switched off."),
    max_rounds: int = typer.Option(
        5, "--max-rounds", callback=_within("--max-rounds"), help="Model requests per question (1-50)."
    ),
    timeout: float = typer.Option(
        5.0, "--timeout", callback=_within("--timeout"), help="Default per-tool deadline in seconds (0.05-600)."
    ),
    concurrency: int = typer.Option(
        4, "--concurrency", callback=_within("--concurrency"), help="Tool calls running at once (1-64)."
    ),
) -> None:
    """A conversation: the same loop, context kept across questions (/help inside)."""
    from atlas.commands import guarded
    from atlas.commands.chat import ChatOptions, run_chat

    options = ChatOptions(
        model=model,
        api=api,
        read_only=read_only,
        max_rounds=max_rounds,
        timeout_s=timeout,
        concurrency=concurrency,
    )
    guarded(lambda: run_chat(options))


@app.command()
def log(
    limit: int = typer.Option(
        20, "-n", "--limit", callback=_within("--limit"), help="How many of the latest calls (1-1,000,000,000)."
    ),
    tool: str | None = typer.Option(None, "--tool", help="Only calls of this tool."),
    kind: str | None = typer.Option(None, "--kind", help="Only calls that ended this way (ok, timeout, ...)."),
    session: str | None = typer.Option(None, "--session", help="Only calls of this session."),
    since: str | None = typer.Option(None, "--since", help="Only calls in the last 30m, 2h, 7d ..."),
    errors: bool = typer.Option(False, "--errors", help="Only calls that did not end ok."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per call and line, newest last."),
    stats: bool = typer.Option(False, "--stats", help="Per tool: calls, p50/p95/max ms, kinds, retries, denials."),
    follow: bool = typer.Option(False, "-f", "--follow", help="Keep printing new calls until Ctrl-C."),
    script: str | None = typer.Option(None, "--script", help="Print a replay script of this session."),
) -> None:
    """Every tool call ever made: timings, error kinds, attempts."""
    from atlas.commands import guarded
    from atlas.commands.log import LogOptions, parse_since, run_log
    from atlas.errors import ErrorKind

    try:
        since_ts = parse_since(since) if since is not None else None
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--since") from None
    try:
        kind_wanted = ErrorKind(kind) if kind is not None else None
    except ValueError:
        kinds = ", ".join(ErrorKind)
        raise typer.BadParameter(f"{kind!r} is not a kind; the kinds are {kinds}", param_hint="--kind") from None
    options = LogOptions(
        limit=limit,
        tool=tool,
        kind=kind_wanted,
        session=session,
        since=since_ts,
        errors=errors,
        as_json=as_json,
        stats=stats,
        follow=follow,
        script=script,
    )
    guarded(lambda: run_log(options))


@app.command()
def tools(
    as_json: bool = typer.Option(False, "--json", help="Print the schemas the model is given."),
    read_only: bool = typer.Option(False, "--read-only", help="Only the tools without side effects."),
) -> None:
    """The tools the model may call: side effects, idempotency, timeouts."""
    from atlas.commands import guarded
    from atlas.commands.tools import show_tools

    guarded(lambda: show_tools(as_json=as_json, read_only=read_only))


@app.command()
def models(
    as_json: bool = typer.Option(False, "--json", help="One JSON object per model and line."),
) -> None:
    """The models the server at ATLAS_BASE_URL (or the OpenAI API) lists."""
    from atlas.commands import guarded
    from atlas.commands.models import show_models

    guarded(lambda: show_models(as_json=as_json))


@app.command()
def tracker(
    as_json: bool = typer.Option(False, "--json", help="One JSON object per action and line."),
) -> None:
    """What approved actions wrote to the mock issue tracker."""
    from atlas.commands import guarded
    from atlas.commands.tracker import show_tracker

    guarded(lambda: show_tracker(as_json=as_json))


@data_app.command("import")
def data_import(
    file: str = typer.Argument(..., help="The JSON of `gh issue list --state all --json ...` or of the REST API."),
    to: str = typer.Option(..., "--to", help="The dataset folder to write (new, empty, or one atlas wrote)."),
    docs: str | None = typer.Option(None, "--docs", help="A folder of markdown docs to copy in."),
) -> None:
    """Import exported issues (offline, no token) into a dataset folder."""
    from pathlib import Path

    from atlas.commands import guarded
    from atlas.commands.data import run_import

    guarded(lambda: run_import(Path(file), Path(to), Path(docs) if docs else None))


@data_app.command("sync")
def data_sync(
    repo: str = typer.Argument(..., help="OWNER/REPO on GitHub (GITHUB_API_URL for GitHub Enterprise)."),
    to: str = typer.Option(..., "--to", help="The dataset folder to write or bring up to date."),
    docs: str | None = typer.Option(None, "--docs", help="A folder of markdown docs to copy in."),
    full: bool = typer.Option(False, "--full", help="Fetch everything again, not only what changed."),
    concurrency: int = typer.Option(8, "--concurrency", min=1, max=32, help="Comment lists fetched at once."),
) -> None:
    """Fetch a repository's issues and comments; a second sync fetches only what changed."""
    from pathlib import Path

    from atlas.commands import guarded
    from atlas.commands.data import run_sync

    folder, docs_folder = Path(to), Path(docs) if docs else None
    guarded(lambda: run_sync(repo, folder, docs_folder, full=full, concurrency=concurrency))


@app.command("eval")
def eval_(
    suite: str = typer.Argument(..., help="A JSONL suite: one case (question and expected calls) per line."),
    model: str | None = typer.Option(None, "--model", "-m", help="offline, replay:PATH or an OpenAI model."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object: totals, tags and every case."),
    min_rate: float | None = typer.Option(None, "--min", min=0.0, max=1.0, help="Exit 1 below this pass rate."),
    max_rounds: int = typer.Option(5, "--max-rounds", min=1, max=50, help="Model requests per case."),
    timeout: float = typer.Option(5.0, "--timeout", min=0.05, help="Default per-tool deadline in seconds."),
) -> None:
    """Score the calls a model plans for a suite of questions; side effects are never run."""
    from atlas.commands import guarded
    from atlas.commands.eval import EvalOptions, run_eval

    options = EvalOptions(
        suite=Path(suite), model=model, as_json=as_json, min_rate=min_rate, max_rounds=max_rounds, timeout_s=timeout
    )
    raise typer.Exit(guarded(lambda: run_eval(options)))


@mcp_app.command("list")
def mcp_list() -> None:
    """The configured MCP servers: command, state, trust and tools ((asks): approval first)."""
    from atlas.commands import guarded
    from atlas.commands.mcp import list_servers

    guarded(list_servers)


@mcp_app.command("add")
def mcp_add(
    name: str = typer.Argument(..., help="The server's name: its tools are offered as NAME__tool."),
    command: list[str] | None = typer.Argument(  # noqa: B008 (typer's own idiom)
        None, help="After --: the command that starts the server, and its arguments."
    ),
) -> None:
    """Add a stdio MCP server to config.toml: atlas mcp add NAME -- COMMAND ARGS..."""
    from atlas.commands import guarded
    from atlas.commands.mcp import add_server

    guarded(lambda: add_server(name, list(command or [])))


@mcp_app.command("serve")
def mcp_serve(
    allow_writes: bool = typer.Option(
        False, "--allow-writes", help="Also serve side effects; each asks the host's user (elicitation) first."
    ),
    timeout: float = typer.Option(
        5.0, "--timeout", callback=_within("--timeout"), help="Default per-tool deadline in seconds (0.05-600)."
    ),
) -> None:
    """Serve Atlas's tools to an MCP host over stdio (read-only unless --allow-writes)."""
    from atlas.commands import guarded
    from atlas.mcp.serve import serve

    guarded(lambda: serve(allow_writes=allow_writes, timeout_s=timeout))
