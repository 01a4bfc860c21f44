"""Help as people read it: metavars that say what a value is, and every command's whole summary."""

from __future__ import annotations

import re

import pytest
from typer.testing import CliRunner

from atlas.cli.root import app

COMMANDS = [
    ["ask"], ["chat"], ["log"], ["tools"], ["models"], ["issue"], ["tracker"], ["eval"], ["doctor"],
    ["completion"], ["data", "import"], ["data", "sync"], ["mcp", "list"], ["mcp", "add"], ["mcp", "serve"],
]  # fmt: skip

# Click's runner lays help out 80 wide whatever COLUMNS says; a shell with COLUMNS=80 gets 78.
HELP_WIDTH = 78


def help_of(*command: str) -> str:
    # In this process: help needs no state, and the program name is the one `python -m atlas` gives.
    done = CliRunner().invoke(app, [*command, "--help"], prog_name="atlas", terminal_width=HELP_WIDTH)
    assert done.exit_code == 0, done.output
    return done.stdout


@pytest.mark.parametrize("command", COMMANDS, ids=" ".join)
def test_no_type_placeholders_in_any_help(command: list[str]) -> None:
    text = help_of(*command)
    assert not re.search(r"<(?:str|int|float|list|int range|float range)[^>]*>", text), text
    usage = text.splitlines()[0]
    assert "{" not in usage, usage


def test_the_options_read_as_what_they_take() -> None:
    assert re.search(r"--since AGE\b", help_of("tracker")) and re.search(r"--issue N\b", help_of("tracker"))
    assert re.search(r"--timeout SECONDS\b", help_of("eval")) and re.search(r"--min RATE\b", help_of("eval"))
    assert "Usage: atlas issue [OPTIONS] N" in help_of("issue")


@pytest.mark.parametrize("group", ["data", "mcp"])
def test_group_summaries_are_whole(group: str) -> None:
    text = help_of(group)
    commands = text.split("Commands:", 1)[1]
    assert "..." not in commands.replace("ARGS...", ""), commands
