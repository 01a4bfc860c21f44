"""What the command-line modules share: bounds-checked options and the Examples section of help."""

from __future__ import annotations

from collections.abc import Callable
from datetime import date, datetime
from typing import Annotated, TypeVar

import typer

T = TypeVar("T", int, float)


def within(option: str) -> Callable[[T | None], T | None]:
    """A callback that refuses a value outside `option`'s bounds in `atlas.foundation.config.BOUNDS` (a usage error)."""

    def check(value: T | None) -> T | None:
        from atlas.foundation.config import BOUNDS

        why = None if value is None else BOUNDS[option].check(float(value))
        if why is not None:
            raise typer.BadParameter(f"{why}, got {value:g}", param_hint=option)
        return value

    return check


def since_time(since: str | None) -> float | None:
    """`--since AGE` (30m, 2h, 7d ...) as the Unix time it names; a bad one is the option's usage error."""
    if since is None:
        return None
    from atlas.commands.log import parse_since

    try:
        return parse_since(since)
    except ValueError as exc:
        raise typer.BadParameter(str(exc), param_hint="--since") from None


def since_day(since: str | None) -> date | None:
    """`--since DAY`: a day (2025-01-31) or an age back from today (14d, 2w); a bad one is the option's usage error."""
    if since is None:
        return None
    try:
        return date.fromisoformat(since.strip())
    except ValueError:
        from atlas.commands.log import parse_since

        try:
            return datetime.fromtimestamp(parse_since(since.strip())).date()
        except ValueError:
            raise typer.BadParameter(
                f"a day is written 2025-01-31, or an age 14d or 2w; got {since!r}", param_hint="--since"
            ) from None


def command_group(summary: str) -> typer.Typer:
    """A group of subcommands (`atlas policy`, `atlas state`, ...): its help when called bare, `-h`
    beside `--help`, and every string shown as plain text."""
    shown = {"help_option_names": ["-h", "--help"]}
    return typer.Typer(no_args_is_help=True, help=summary, rich_markup_mode=None, context_settings=shown)


def examples(*lines: str) -> str:
    """The `Examples` section of a command's help, kept as written (`\b` stops click rewrapping it)."""
    return "\b\nExamples:\n" + "\n".join(f"  $ {line}" for line in lines)


MAX_ISSUE_NUMBER = 2**63 - 1
"""The largest number SQLite (and GitHub's ids) can hold."""


def issue_number(value: str) -> int:
    """`41` or `#41` (as issues are written everywhere) as a number; anything else is a usage error."""
    text = value.strip().removeprefix("#")
    if not (text.isascii() and text.isdigit()) or not 1 <= int(text) <= MAX_ISSUE_NUMBER:
        raise typer.BadParameter(f"an issue number is written 41 or #41, got {value!r}", param_hint="N")
    return int(text)


def plain_argument_help() -> None:
    """Arguments in help as `QUESTION...` and `SUITE`, as click writes them, not `{QUESTION}... <list[str]>`.

    Every argument of Atlas has a metavar that says what it is; typer's type placeholder after it
    (`<str>`, `<int range>`) and its braces around a required one only get in the reader's way.
    """
    from typer.core import TyperArgument

    def usage_name(self: TyperArgument) -> str:
        name = self.display_name_raw if self.required else f"[{self.display_name_raw}]"
        return name + ("..." if self.nargs != 1 else "")

    TyperArgument.display_type_rich = lambda self, ctx: None  # type: ignore[method-assign]
    TyperArgument._usage_display_name = usage_name  # type: ignore[method-assign]


# The options every command that asks a model shares (`ask`, `chat`), declared once so that their
# names, bounds and help cannot drift apart; the defaults stay in each signature, as typer wants.
ModelOption = Annotated[
    str | None, typer.Option("--model", "-m", metavar="NAME", help="offline, replay:PATH or an OpenAI model.")
]
ApiOption = Annotated[
    str | None, typer.Option("--api", metavar="API", help="The server's API: responses (default) or chat.")
]
MaxRoundsOption = Annotated[
    int,
    typer.Option(
        "--max-rounds", metavar="N", callback=within("--max-rounds"), help="Model requests per question (1-50)."
    ),
]
ToolTimeoutOption = Annotated[
    float,
    typer.Option(
        "--timeout",
        metavar="SECONDS",
        callback=within("--timeout"),
        help="Default per-tool deadline in seconds (0.05-600).",
    ),
]
ConcurrencyOption = Annotated[
    int,
    typer.Option(
        "--concurrency", metavar="N", callback=within("--concurrency"), help="Tool calls running at once (1-64)."
    ),
]
