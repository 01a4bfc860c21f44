"""`atlas ask WORDS...` without Typer: the most common command line, run as `atlas.cli` would run it.

Typer builds a pydantic validator for each of a command's parameters before running it, and it
and click are ~120 ms of imports: together about a third of an offline answer. A question with
no option (no word that starts with `-`, except `-` alone: read it from standard input) has
nothing for them to parse, so it goes straight to the command's body with the defaults `atlas.cli`
declares; every other command line, and shell completion, goes through Typer. What the user sees
is the same either way (`tests/test_cli_fast.py` runs both).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import NoReturn

COMPLETE_VAR = "_ATLAS_COMPLETE"
"""Set by the shell when it asks for completions (the same name as `atlas.cli.root.COMPLETE_VAR`)."""


def plain_question(args: Sequence[str], environ: Mapping[str, str]) -> list[str] | None:
    """The question's words when `args` are `ask` and words alone; None when Typer has work to do."""
    if len(args) < 2 or args[0] != "ask" or environ.get(COMPLETE_VAR):
        return None
    words = list(args[1:])
    if any(word.startswith("-") and word != "-" for word in words):
        return None  # an option, `--`, or `-h`: Typer's to parse
    return words


def ask_plainly(words: list[str]) -> NoReturn:
    """Answer the question as `atlas ask WORDS...` does, then end the process as `entry_point` does."""
    from atlas.cli.descriptors import fill_closed_descriptors
    from atlas.cli.quick_exit import quick_exit

    fill_closed_descriptors()
    quick_exit(_answer(words))


def _answer(words: list[str]) -> int:
    """The exit code, with what click's main does around a command: Ctrl-C is 130, end of input aborts."""
    try:
        from atlas.commands import Failed, attempt
        from atlas.commands.ask import AskOptions, run_ask

        outcome = attempt(run_ask, AskOptions(question=" ".join(words)), state=True)
    except KeyboardInterrupt:
        return 130
    except EOFError:
        from atlas.foundation.sanitize import write_line

        write_line("\nAborted!", err=True)
        return 1
    except BrokenPipeError:
        return 1
    return outcome.code if isinstance(outcome, Failed) else outcome
