"""CLI conventions as a user meets them in a shell: errors written for people, arguments as typed."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from typer.testing import CliRunner

from atlas.cli.root import app
from tests.support.run import Run, invoke


def atlas(*args: str, env: dict[str, str] | None = None, stdin: str | None = None) -> Run:
    return invoke(*args, env={**os.environ, **(env or {})}, stdin=stdin)


# Click's runner lays help out 80 wide whatever COLUMNS says; a shell with COLUMNS=80 gets 78.
HELP_WIDTH = 78


def help_of(*args: str) -> Run:
    """Help in this process, under the program name `python -m atlas` gives it."""
    done = CliRunner().invoke(app, [*args], prog_name="atlas", terminal_width=HELP_WIDTH)
    return Run(done.exit_code, done.stdout_bytes, done.stderr_bytes or b"")


def test_a_missing_issue_is_explained_to_a_person_not_to_a_model() -> None:
    done = atlas("ask", "-m", "offline", "show issue #999")
    assert done.returncode == 0, done.stderr
    assert "There is no issue #999 in Orbit (160 issues, #1–#160)" in done.stdout
    for advice in ("do not guess", "Use only issue ids", "Hint:", "This exact call will fail again"):
        assert advice not in done.stdout


def test_a_missing_dataset_is_one_startup_error(tmp_path: Path) -> None:
    nowhere = tmp_path / "no-such-dataset"
    done = atlas("ask", "-m", "offline", "Compare issues #41 and #87", env={"ORBIT_DATA": str(nowhere)})
    assert done.returncode == 1 and done.stdout == ""
    assert done.stderr.splitlines() == [
        f"atlas: error: the dataset folder {nowhere} does not exist (ORBIT_DATA); set ORBIT_DATA to a dataset folder"
    ]
    empty = tmp_path / "empty"
    (empty / "docs").mkdir(parents=True)
    done = atlas("ask", "-m", "offline", "show issue #41", env={"ORBIT_DATA": str(empty)})
    assert done.returncode == 1 and len(done.stderr.splitlines()) == 1
    assert "ORBIT_DATA" in done.stderr and str(empty) in done.stderr and "issues/issues.jsonl" in done.stderr


def test_a_misspelt_offline_model_is_unknown_and_offline_is_suggested() -> None:
    done = atlas("ask", "-m", "offlne", "show issue #41")
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr.strip() == "atlas: error: unknown model 'offlne': did you mean --model offline?"


def test_unquoted_words_are_one_question() -> None:
    done = atlas("ask", "--json", "-m", "offline", "explain", "the", "error", "in", "#41")
    assert done.returncode == 0, done.stderr
    asked = json.loads(done.stdout)
    assert next(call["arguments"] for call in asked["calls"]) == {"issue_id": 41}
    assert "ORB-1101" in asked["answer"]


def test_every_command_shows_examples_and_the_summaries_are_whole() -> None:
    top = help_of("--help")
    assert top.returncode == 0 and "..." not in top.stdout.split("Commands:")[1]
    assert "then the answer." in top.stdout and "dataset, state folder, plugins." in top.stdout
    for command in ("ask", "chat", "log", "tools", "tracker", "doctor", "completion"):
        shown = help_of(command, "--help")
        assert shown.returncode == 0 and "Examples:" in shown.stdout, command
        assert f"  $ atlas {command}" in shown.stdout, command
    ask = help_of("ask", "--help").stdout
    assert "QUESTION" in ask and "--model NAME" in ask and "--timeout SECONDS" in ask


def test_completion_scripts_for_the_shells_atlas_knows() -> None:
    for shell in ("bash", "zsh", "fish"):
        script = atlas("completion", shell)
        assert script.returncode == 0 and "_ATLAS_COMPLETE=complete_" in script.stdout, shell
    refused = atlas("completion", "tcsh")
    assert refused.returncode == 2 and "'tcsh' is not one of bash, zsh, fish" in refused.stderr


def test_the_completions_a_completion_script_asks_for() -> None:
    # A process: the completion request is answered as `atlas.cli` is imported, before any command.
    env = {**os.environ, "COMP_WORDS": "atlas do", "COMP_CWORD": "1", "_ATLAS_COMPLETE": "complete_bash"}
    # What the bash script runs on Tab after `atlas do`:
    asked = subprocess.run([sys.executable, "-m", "atlas"], env=env, capture_output=True, text=True, timeout=60)
    assert asked.stdout.split() == ["doctor"]


def test_help_loads_neither_the_sdk_nor_the_state_folder_lookup() -> None:
    """`atlas --help` stays fast: nothing it does not need is imported (bench/startup.py times it)."""
    done = subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "atlas", "--help"], capture_output=True, text=True, timeout=60
    )
    imported = {line.split("|")[-1].strip() for line in done.stderr.splitlines() if "|" in line}
    assert "atlas.cli" in imported
    assert not {"openai", "platformdirs", "httpx"} & imported
