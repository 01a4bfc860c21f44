"""`atlas mcp add/list` and `atlas ask` with MCP servers: the reference git and time servers from PyPI
and the in-repo test server, through the real CLI, on a pipe and on a real pseudo-terminal."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.mcp.conftest import TEST_SERVER
from tests.support.run import (
    assert_no_traceback,
    atlas_env,
    finish,
    invoke,
    logged_calls,
    spawn_atlas,
    write_script,
)

# Imported at collection, not in the test: pytest compiles the module it rewrites, and after the
# in-process runs of earlier tests (threads of theirs may still be at work) that can trip CPython
# 3.11's shared AST recursion counter ("AST constructor recursion depth mismatch", gh-106905).
from tests.test_cli import _modules_after


def git_repo(folder: Path) -> Path:
    repo = folder / "repo"
    repo.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "Ada", "GIT_AUTHOR_EMAIL": "ada@example.org"}
    env |= {"GIT_COMMITTER_NAME": "Ada", "GIT_COMMITTER_EMAIL": "ada@example.org"}
    subprocess.run(["git", "init", "-q", "-b", "main", str(repo)], check=True, env=env)
    for number, message in enumerate(["Add the scheduler", "Fix lease renewal", "Document retries", "Bump"]):
        (repo / f"file{number}.txt").write_text(message + "\n")
        subprocess.run(["git", "-C", str(repo), "add", "-A"], check=True, env=env)
        subprocess.run(["git", "-C", str(repo), "commit", "-q", "-m", message], check=True, env=env)
    return repo


@pytest.mark.usefixtures("patient_start")
def test_one_mcp_add_then_a_question_about_the_last_three_commits(tmp_path: Path) -> None:
    env = atlas_env(tmp_path / "home")
    repo = git_repo(tmp_path)
    added = invoke("mcp", "add", "git", "--", "mcp-server-git", "--repository", str(repo), env=env)
    assert added.code == 0, added
    assert "Added MCP server 'git'" in added.stdout
    script = write_script(
        tmp_path,
        [
            {"calls": [{"name": "git__git_log", "arguments": {"repo_path": str(repo), "max_count": 3}}]},
            {"text": "The last three commits fixed lease renewal and documented retries."},
        ],
    )
    asked = invoke("ask", "--model", script, "what changed in the last three commits?", env=env)
    assert asked.code == 0, asked
    assert_no_traceback(asked)
    assert "git__git_log(" in asked.stderr and " ok " in asked.stderr  # rows go to stderr on a pipe
    assert "documented retries" in asked.stdout
    [call] = logged_calls(env)
    assert call["name"] == "git__git_log" and call["kind"] == "ok"
    listed = invoke("mcp", "list", env=env)
    assert listed.code == 0, listed
    assert "git_log" in listed.stdout and "git_commit (asks)" in listed.stdout and "running" in listed.stdout
    assert not (tmp_path / "home" / "mcp-git.log").is_symlink()


@pytest.mark.usefixtures("patient_start")
def test_the_time_server_answers_and_a_broken_config_is_one_line(tmp_path: Path, time_added_home: Path) -> None:
    shutil.copytree(time_added_home, tmp_path / "home")  # after `atlas mcp add time -- mcp-server-time ...`
    env = atlas_env(tmp_path / "home")
    script = write_script(
        tmp_path, [{"calls": [{"name": "time__get_current_time", "arguments": {"timezone": "UTC"}}]}, {"text": "ok"}]
    )
    asked = invoke("ask", "--model", script, "what time is it?", env=env)
    assert asked.code == 0 and "time__get_current_time(timezone='UTC')  ok" in asked.stderr, asked
    (tmp_path / "home" / "config.toml").write_text("[mcp_servers.time\ncommand = 1\n")
    broken = invoke("ask", "--model", script, "what time is it?", env=env)
    assert broken.code == 2, broken
    assert broken.stderr.count("\n") == 1 and "config.toml is not valid TOML" in broken.stderr
    assert invoke("mcp", "add", "bad name", "--", "x", env=env).code == 2


@pytest.mark.usefixtures("patient_start")
def test_a_hung_tool_costs_one_rows_deadline_not_the_question(tmp_path: Path) -> None:
    env = atlas_env(tmp_path / "home")
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        f'[mcp_servers.t]\ncommand = "{sys.executable}"\nargs = ["{TEST_SERVER}"]\ntimeout_s = 1.0\n'
    )
    script = write_script(
        tmp_path,
        [
            {"calls": [{"name": "t__hang", "arguments": {}}, {"name": "t__echo", "arguments": {"text": "hi"}}]},
            {"calls": [{"name": "t__crash", "arguments": {}}]},
            {"text": "One check timed out; the server crashed."},
        ],
    )
    asked = invoke("ask", "--model", script, "check", env=env)
    assert asked.code == 0, asked
    assert "t__hang()  timeout" in asked.stderr and "t__echo(text='hi')  ok" in asked.stderr
    assert "t__crash()  unavailable" in asked.stderr
    assert "the server crashed" in asked.stdout
    assert "crashing on purpose" not in asked.output  # the server's stderr goes to its log file
    assert "crashing on purpose" in (home / "mcp-t.log").read_text()
    kinds = {call["name"]: call["kind"] for call in logged_calls(env)}
    assert kinds == {"t__hang": "timeout", "t__echo": "ok", "t__crash": "unavailable"}


def test_approval_on_a_terminal_for_a_tool_without_annotations(tmp_path: Path) -> None:
    notes = tmp_path / "notes.txt"
    env = atlas_env(tmp_path / "home")
    (tmp_path / "home").mkdir()
    # A server gets a clean environment (PATH, HOME ...) plus its own `env` table, not Atlas's.
    (tmp_path / "home" / "config.toml").write_text(
        f'[mcp_servers.t]\ncommand = "{sys.executable}"\nargs = ["{TEST_SERVER}"]\n'
        f'env = {{ ATLAS_TEST_NOTES = "{notes}" }}\n'
        "timeout_s = 40\n"  # a busy machine may take seconds to start the test server
    )
    script = write_script(
        tmp_path,
        [
            {"calls": [{"name": "t__echo", "arguments": {"text": "please note"}}]},
            {"calls": [{"name": "t__note", "arguments": {"text": "approved note"}}]},
            {"text": "Noted."},
        ],
    )
    child = spawn_atlas("ask", "--model", script, "note it", env=env, timeout=60)
    child.expect(r"MCP tool 'note' on server 't'")
    child.expect(r"MCP server t \(echo\)")  # the untrusted source is named
    child.expect(r"\[y/N\]")
    child.sendline("y")
    code, _ = finish(child)
    assert code == 0
    assert notes.read_text() == "approved note\n"


def _server_processes(marker: str) -> list[int]:
    found = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                environ = (entry / "environ").read_bytes()
            except OSError:
                continue
            if marker.encode() in environ:
                found.append(int(entry.name))
    return found


def wait_until(condition: Callable[[], object], timeout: float) -> bool:
    """Poll `condition` until it holds or `timeout` seconds pass; whether it held."""
    deadline = time.monotonic() + timeout
    while not condition():
        if time.monotonic() > deadline:
            return False
        time.sleep(0.1)
    return True


def test_commands_without_an_mcp_server_never_import_the_mcp_sdk(tmp_path: Path) -> None:
    for args in (["--help"], ["tools"], ["ask", "-m", "offline", "show issue #41"], ["mcp", "--help"]):
        done, modules = _modules_after(args, tmp_path)
        assert done.returncode == 0, done.stderr
        assert not {"mcp", "mcp_types", "jsonschema", "anyio"} & modules, args


def test_a_state_folder_that_cannot_exist_means_no_servers(tmp_path: Path) -> None:
    from atlas.mcp.config import load_servers

    (tmp_path / "a-file").write_text("")
    assert load_servers(tmp_path / "a-file" / "home") == []
