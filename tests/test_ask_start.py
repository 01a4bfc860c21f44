"""What an offline `atlas ask` loads, in a fresh process as a user's is: no model SDK, no HTTP client,
no MCP SDK, no Typer, and not the editor a person opens only to change a comment before approving it;
with its output on pipes, not Rich either, which a terminal still gets."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pexpect

from tests.support.run import REPO, atlas_env
from tests.test_cli_fast import MODULES_AT_EXIT, SEED

NEVER_ON_AN_OFFLINE_ASK = {"openai", "httpx", "mcp", "typer", "click"}
"""Top-level packages: the openai SDK and httpx (about a second of imports) serve a real model only."""
ONLY_WHEN_A_PERSON_EDITS = "atlas.ui.editor"
ONLY_ON_A_TERMINAL = {"rich", "markdown_it", "pygments"}
"""Rich and the Markdown parser it renders answers with: a pipe gets plain lines and the answer's source."""
ONLY_FOR_A_NAME_NOT_FOUND = "difflib"
"""Close matches are looked for only when a model, a doc or a heading is not found."""
NOT_FOR_AN_ANSWER_THAT_FITS = {"uuid", "platform", "shlex"}
"""A run's session id is random bytes, not a UUID (`uuid` imports `platform`, which compiles nine
patterns); `shlex` quotes a command only for an inbox longer than its answer."""
ONLY_FOR_ARGUMENTS_IN_DOUBT = {"pydantic", "pydantic_core", "annotated_types", "importlib.metadata"}
"""A built-in tool's well-formed arguments are checked against its declared schema: pydantic (and the
plugin lookup its first model makes) is loaded only for arguments the check cannot accept."""


def modules_of_an_ask(home: Path, question: str) -> set[str]:
    done = subprocess.run(
        [sys.executable, "-c", MODULES_AT_EXIT, "ask", question],
        capture_output=True,
        text=True,
        env=atlas_env(home),
        cwd=REPO,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    return set(done.stderr.rsplit("MODULES ", 1)[1].split())


def test_the_seed_question_loads_no_sdk_no_typer_and_no_editor(tmp_path: Path) -> None:
    modules = modules_of_an_ask(tmp_path / "home", SEED)
    assert "atlas.offline.model" in modules  # it was answered offline, through the planner
    assert not {name for name in modules if name.split(".")[0] in NEVER_ON_AN_OFFLINE_ASK}
    assert ONLY_WHEN_A_PERSON_EDITS not in modules


def test_a_piped_ask_loads_no_rich(tmp_path: Path) -> None:
    modules = modules_of_an_ask(tmp_path / "home", SEED)  # standard output and error are pipes
    assert "atlas.ui.ask_screen" in modules
    assert not {name for name in modules if name.split(".")[0] in ONLY_ON_A_TERMINAL}
    assert ONLY_FOR_A_NAME_NOT_FOUND not in modules


def test_an_ask_whose_calls_are_well_formed_loads_no_pydantic(tmp_path: Path) -> None:
    modules = modules_of_an_ask(tmp_path / "home", SEED)
    assert {"atlas.orbit.issues", "atlas.orbit.docs"} <= modules  # its tools ran
    assert not modules & ONLY_FOR_ARGUMENTS_IN_DOUBT
    assert not modules & NOT_FOR_AN_ANSWER_THAT_FITS


def test_an_ask_on_a_terminal_still_draws_with_rich(tmp_path: Path) -> None:
    child = pexpect.spawn(
        sys.executable,
        ["-c", MODULES_AT_EXIT, "ask", SEED],
        env=atlas_env(tmp_path / "home", TERM="xterm-256color"),
        cwd=str(REPO),
        encoding="utf-8",
        timeout=60,
        dimensions=(40, 160),
    )
    child.expect(pexpect.EOF)
    screen, _, loaded = (child.before or "").rpartition("MODULES ")
    modules = set(loaded.split())
    assert {"rich.live", "rich.markdown"} <= modules  # the live rows, then the answer rendered
    assert "✓ get_issue(issue_id=41)" in screen and "\x1b[" in screen
