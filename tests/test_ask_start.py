"""What an offline `atlas ask` loads, in a fresh process as a user's is: no model SDK, no HTTP client,
no MCP SDK, no Typer, and not the editor a person opens only to change a comment before approving it."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests.support.run import REPO, atlas_env
from tests.test_cli_fast import MODULES_AT_EXIT, SEED

NEVER_ON_AN_OFFLINE_ASK = {"openai", "httpx", "mcp", "typer", "click"}
"""Top-level packages: the openai SDK and httpx (about a second of imports) serve a real model only."""
ONLY_WHEN_A_PERSON_EDITS = "atlas.ui.editor"


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
