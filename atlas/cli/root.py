"""The `atlas` command line: wiring only; each command's body lives in `atlas.commands`.

Bodies are imported inside the commands so that `atlas --help` stays fast and nothing heavy
(least of all the openai SDK) is loaded before a command needs it.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Annotated, TypeVar

import typer

from atlas import __version__
from atlas.cli.descriptors import fill_closed_descriptors
from atlas.cli.fast import COMPLETE_VAR
from atlas.cli.groups import data_app, mcp_app
from atlas.cli.options import (
    ApiOption,
    ConcurrencyOption,
    MaxRoundsOption,
    ModelOption,
    ToolTimeoutOption,
    examples,
    issue_number,
    plain_argument_help,
    since_time,
    within,
)
from atlas.cli.policy import policy_app
from atlas.cli.state import state_app
from atlas.cli.triage import register_triage
from atlas.foundation.sanitize import write_line

T = TypeVar("T", int, float)

if os.environ.get(COMPLETE_VAR):
    # The shell is asking for completions: typer's completers are registered only then, so that
    # every other run (`atlas --help` above all) does not pay for them.
    from typer._completion_classes import completion_init

    completion_init()

app = typer.Typer(
    no_args_is_help=True,
    add_completion=False,
    rich_markup_mode=None,
    pretty_exceptions_enable=False,
    context_settings={"help_option_names": ["-h", "--help"]},
)
plain_argument_help()
app.add_typer(data_app, name="data", short_help="Your own project: import a gh export, or sync from GitHub.")
app.add_typer(mcp_app, name="mcp", short_help="MCP servers' tools in Atlas, and Atlas's tools over MCP.")
app.add_typer(policy_app, name="policy", short_help="Approval rules: list them, check their examples, revoke, trust.")
app.add_typer(state_app, name="state", short_help="A team's shared state on PostgreSQL: push a local folder into it.")


def _version(value: bool) -> None:
    if value:
        write_line(f"atlas {__version__}")
        raise typer.Exit()


@app.callback()
def main(
    version: bool = typer.Option(False, "--version", callback=_version, is_eager=True, help="Show the version."),
) -> None:
    """Atlas answers a project's maintainers' questions through tools: the bundled Orbit demo, or your own
    project (`atlas data import`, `atlas data sync`, then ORBIT_DATA=FOLDER)."""


@app.command(
    short_help="Answer one question: live tool rows, y/N before side effects, then the answer.",
    epilog=examples(
        "atlas ask explain the error in 41",
        "atlas ask 'label #41 bug'",
        "atlas ask --read-only --json what are the open bugs",
        "atlas ask - < question.txt > answer.md",
    ),
)
def ask(
    question: Annotated[
        list[str],
        typer.Argument(metavar="QUESTION", help="The question (quotes optional), or - to read it from standard input."),
    ],
    model: ModelOption = None,
    api: ApiOption = None,
    read_only: bool = typer.Option(False, "--read-only", help="Do not offer side-effect tools to the model."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object (answer, calls, usage, cost)."),
    jsonl: bool = typer.Option(
        False, "--jsonl", help="Print one JSON event per line; exit 3 when actions were denied."
    ),
    max_rounds: MaxRoundsOption = 5,
    timeout: ToolTimeoutOption = 5.0,
    concurrency: ConcurrencyOption = 4,
    no_parallel: bool = typer.Option(False, "--no-parallel", help="Ask for and run one tool call at a time."),
    deadline: float | None = typer.Option(
        None,
        "--deadline",
        metavar="SECONDS",
        callback=within("--deadline"),
        help="Overall budget in seconds (0.1-3600).",
    ),
) -> None:
    """Answer one question: live tool rows, y/N before side effects, then the answer."""
    from atlas.commands import guarded
    from atlas.commands.ask import AskOptions, run_ask

    options = AskOptions(
        question=" ".join(question),
        model=model,
        api=api,
        read_only=read_only,
        as_json=as_json,
        max_rounds=max_rounds,
        timeout_s=timeout,
        concurrency=concurrency,
        parallel=not no_parallel,
        deadline_s=deadline,
        jsonl=jsonl,
    )
    if as_json and jsonl:
        raise typer.BadParameter("--json and --jsonl cannot be used together", param_hint="--jsonl")
    code = guarded(run_ask, options, state=True)
    raise typer.Exit(code)


@app.command(
    short_help="A conversation: the same loop, context kept across questions (/help inside).",
    epilog=examples("atlas chat", "atlas chat --continue", "atlas chat --read-only -m offline"),
)
def chat(
    model: ModelOption = None,
    api: ApiOption = None,
    read_only: bool = typer.Option(False, "--read-only", help="Start with side-effect tools switched off."),
    max_rounds: MaxRoundsOption = 5,
    timeout: ToolTimeoutOption = 5.0,
    concurrency: ConcurrencyOption = 4,
    resume: bool = typer.Option(False, "--continue", "-c", help="Take up the last conversation where it stopped."),
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
        resume=resume,
    )
    guarded(lambda: run_chat(options), state=True)


register_triage(app)


@app.command(
    short_help="Every tool call ever made: timings, error kinds, attempts.",
    epilog=examples(
        "atlas log --errors --since 2h", "atlas log --stats", "atlas log --script SESSION > run.json", "atlas log -f"
    ),
)
def log(
    limit: int = typer.Option(
        20,
        "-n",
        "--limit",
        metavar="N",
        callback=within("--limit"),
        help="How many of the latest calls (1-1,000,000,000).",
    ),
    tool: str | None = typer.Option(None, "--tool", metavar="NAME", help="Only calls of this tool."),
    kind: str | None = typer.Option(
        None, "--kind", metavar="KIND", help="Only calls that ended this way (ok, timeout, ...)."
    ),
    session: str | None = typer.Option(None, "--session", metavar="ID", help="Only calls of this session."),
    since: str | None = typer.Option(None, "--since", metavar="AGE", help="Only calls in the last 30m, 2h, 7d ..."),
    errors: bool = typer.Option(False, "--errors", help="Only calls that did not end ok."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per call and line, newest last."),
    stats: bool = typer.Option(False, "--stats", help="Per tool: calls, p50/p95/max ms, kinds, retries, denials."),
    follow: bool = typer.Option(False, "-f", "--follow", help="Keep printing new calls until Ctrl-C."),
    script: str | None = typer.Option(
        None, "--script", metavar="SESSION", help="Print a replay script of this session."
    ),
    mine: bool = typer.Option(False, "--mine", help="With a shared state: only your calls (your [state] person)."),
) -> None:
    """Every tool call ever made: timings, error kinds, attempts."""
    from atlas.commands import guarded
    from atlas.commands.log import LogOptions, run_log
    from atlas.foundation.errors import ErrorKind

    since_ts = since_time(since)
    try:
        kind_wanted = ErrorKind(kind) if kind is not None else None
    except ValueError:
        kinds = ", ".join(ErrorKind)
        raise typer.BadParameter(f"{kind!r} is not a kind; the kinds are {kinds}", param_hint="--kind") from None
    options = LogOptions(
        limit=limit, tool=tool, kind=kind_wanted, session=session, since=since_ts, errors=errors, as_json=as_json,
        stats=stats, follow=follow, script=script, mine=mine,
    )  # fmt: skip
    guarded(lambda: run_log(options), state=True)


@app.command(
    short_help="The tools the model may call: side effects, idempotency, timeouts.",
    epilog=examples("atlas tools", "atlas tools --json --read-only"),
)
def tools(
    as_json: bool = typer.Option(False, "--json", help="Print the schemas the model is given."),
    read_only: bool = typer.Option(False, "--read-only", help="Only the tools without side effects."),
) -> None:
    """The tools the model may call: side effects, idempotency, timeouts."""
    from atlas.commands import guarded
    from atlas.commands.tools import show_tools

    guarded(lambda: show_tools(as_json=as_json, read_only=read_only))


@app.command(
    short_help="The models the server at ATLAS_BASE_URL (or the OpenAI API) lists.",
    epilog=examples("atlas models", "ATLAS_API=chat ATLAS_BASE_URL=http://localhost:11434/v1 atlas models --json"),
)
def models(
    as_json: bool = typer.Option(False, "--json", help="One JSON object per model and line."),
) -> None:
    """The models the server at ATLAS_BASE_URL (or the OpenAI API) lists."""
    from atlas.commands import guarded
    from atlas.commands.models import show_models

    guarded(lambda: show_models(as_json=as_json))


@app.command(
    short_help="Show one issue, like `gh issue view`: body, labels, and the thread with --comments.",
    epilog=examples("atlas issue 87", "atlas issue 87 --comments", "atlas issue 87 --json | jq .comments"),
)
def issue(
    issue_id: str = typer.Argument(..., metavar="N", help="The issue's number: 41 or #41."),
    comments: bool = typer.Option(False, "--comments", "-c", help="Show every comment too."),
    as_json: bool = typer.Option(False, "--json", help="The issue and all its comments as JSON."),
    no_pager: bool = typer.Option(False, "--no-pager", help="Print it all, even when it is taller than the terminal."),
) -> None:
    """Show one issue, like `gh issue view`: body, labels, and with --comments the whole thread."""
    from atlas.commands import guarded
    from atlas.commands.issue import show_issue

    number = issue_number(issue_id)
    guarded(lambda: show_issue(number, comments=comments, as_json=as_json, pager=not no_pager), state=True)


@app.command(
    short_help="What approved actions wrote to the mock issue tracker.",
    epilog=examples("atlas tracker", "atlas tracker --json"),
)
def tracker(
    limit: int | None = typer.Option(None, "-n", "--limit", min=1, metavar="N", help="Only the latest N actions."),
    since: str | None = typer.Option(None, "--since", metavar="AGE", help="Only actions in the last 30m, 2h, 7d ..."),
    issue: int | None = typer.Option(None, "--issue", min=1, metavar="N", help="Only actions on this issue."),
    as_json: bool = typer.Option(False, "--json", help="One JSON object per action and line (times as atlas log's)."),
    mine: bool = typer.Option(False, "--mine", help="Only actions you wrote (your [state] person, else your OS user)."),
) -> None:
    """What approved actions wrote to the mock issue tracker."""
    from atlas.commands import guarded
    from atlas.commands.tracker import show_tracker

    since_ts = since_time(since)
    guarded(lambda: show_tracker(as_json=as_json, limit=limit, since=since_ts, issue=issue, mine=mine), state=True)


@app.command(
    "eval",
    short_help="Score the calls a model plans for a suite of questions.",
    epilog=examples(
        "atlas eval evals/planner.jsonl",
        "atlas eval evals/planner.jsonl --min 0.9 --json > eval.json",
        "atlas eval evals/faults.jsonl --faults -m offline -m gpt-6-luna",
    ),
)
def eval_(
    suite: str = typer.Argument(
        ..., metavar="SUITE", help="A JSONL suite: one case (question and expected calls) per line."
    ),
    models: list[str] | None = typer.Option(  # noqa: B008 (typer's own idiom)
        None, "--model", "-m", metavar="NAME", help="offline, replay:PATH or an OpenAI model (several with --faults)."
    ),
    faults: bool = typer.Option(False, "--faults", help="Make each read tool a case uses fail, with every kind."),
    as_json: bool = typer.Option(False, "--json", help="Print one JSON object: totals, tags and every case."),
    min_rate: float | None = typer.Option(
        None, "--min", min=0.0, max=1.0, metavar="RATE", help="Exit 1 below this pass rate (0-1)."
    ),
    max_rounds: int = typer.Option(
        5, "--max-rounds", min=1, max=50, metavar="N", help="Model requests per case (1-50)."
    ),
    timeout: float = typer.Option(
        5.0, "--timeout", min=0.05, metavar="SECONDS", help="Default per-tool deadline in seconds."
    ),
) -> None:
    """Score the calls a model plans for a suite of questions; side effects are never run."""
    from atlas.commands import guarded
    from atlas.commands.eval import EvalOptions, run_eval

    chosen: list[str | None] = list(models) if models else [None]
    if len(chosen) > 1 and not faults:
        raise typer.BadParameter("one model at a time, except with --faults", param_hint="--model")
    options = EvalOptions(
        suite=Path(suite), model=chosen[0], as_json=as_json, min_rate=min_rate, max_rounds=max_rounds, timeout_s=timeout
    )
    if faults:
        from atlas.commands.eval_faults import run_fault_sweep

        raise typer.Exit(guarded(lambda: run_fault_sweep(options, chosen)))
    raise typer.Exit(guarded(lambda: run_eval(options)))


@app.command(
    short_help="What Atlas will use and whether it works: model and API, dataset, state folder, plugins.",
    epilog=examples(
        "atlas doctor", "atlas doctor --json", "atlas doctor -m gpt-6-luna", "atlas doctor --contract --repo OWNER/REPO"
    ),
)
def doctor(
    model: str | None = typer.Option(
        None, "--model", "-m", metavar="NAME", help="Check this model instead of the default."
    ),
    as_json: bool = typer.Option(False, "--json", help="One JSON object: ok, and each check."),
    contract: bool = typer.Option(
        False, "--contract", help="Check GitHub's fields and enums and each MCP server's tools against their pins."
    ),
    repo: str | None = typer.Option(None, "--repo", metavar="OWNER/REPO", help="With --contract: this repository."),
) -> None:
    """What Atlas will use and whether it works: model and API, dataset, state folder, plugins."""
    from atlas.commands import guarded

    if contract:
        from atlas.commands.contract import run_contract

        raise typer.Exit(guarded(lambda: run_contract(repo, as_json=as_json)))
    from atlas.commands.doctor import run_doctor

    raise typer.Exit(guarded(lambda: run_doctor(as_json=as_json, model=model)))


SHELLS = ("bash", "zsh", "fish")


@app.command(
    short_help="Print a shell completion script (bash, zsh or fish).",
    epilog=examples(
        "atlas completion bash > ~/.local/share/bash-completion/completions/atlas",
        "atlas completion zsh > ~/.zfunc/_atlas",
        "atlas completion fish > ~/.config/fish/completions/atlas.fish",
    ),
)
def completion(shell: str = typer.Argument(..., metavar="SHELL", help="bash, zsh or fish.")) -> None:
    """Print the completion script for SHELL; load it from your shell's start-up files."""
    if shell not in SHELLS:
        raise typer.BadParameter(f"{shell!r} is not one of {', '.join(SHELLS)}", param_hint="SHELL")
    from typer._completion_classes import completion_init
    from typer._completion_shared import get_completion_script

    completion_init()
    write_line(get_completion_script(prog_name="atlas", complete_var=COMPLETE_VAR, shell=shell))


def entry_point() -> None:
    """The `atlas` script and `python -m atlas`: the command line, then a quick end of the process."""
    from atlas.cli.quick_exit import quick_exit

    fill_closed_descriptors()
    try:
        app(prog_name="atlas")
    except SystemExit as done:
        quick_exit(done.code)
    quick_exit(0)
