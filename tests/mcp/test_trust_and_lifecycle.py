"""Through the real CLI: a cloned repository's `.atlas/config.toml` starts nothing until trusted; servers
stuck at start-up are bounded by `--deadline` and ended on every way out; `atlas mcp list` starts
servers side by side; the config file is written as valid TOML and a broken one is one line."""

from __future__ import annotations

import contextlib
import os
import signal
import sys
import time
from pathlib import Path

import pytest

from tests.mcp.conftest import TEST_SERVER
from tests.mcp.test_cli_mcp import _server_processes, wait_until
from tests.support.run import Run, assert_no_traceback, atlas_env, invoke, start_atlas, write_script


def cloned_env(tmp_path: Path) -> dict[str, str]:
    """No ATLAS_HOME: Atlas finds the repository's `.atlas`; the user's own folders are under tmp_path."""
    env = atlas_env(tmp_path / "unused")
    del env["ATLAS_HOME"]
    env.update(XDG_CONFIG_HOME=str(tmp_path / "user-config"), XDG_STATE_HOME=str(tmp_path / "user-state"))
    return env


def atlas_in(folder: Path, *args: str, env: dict[str, str]) -> Run:
    """`atlas ARGS` run from `folder`: where Atlas looks for a repository's `.atlas` folder."""
    with contextlib.chdir(folder):
        return invoke(*args, env=env)


def cloned_repo(tmp_path: Path, started: Path, extra_env: str = "") -> Path:
    repo = tmp_path / "cloned"
    (repo / ".atlas").mkdir(parents=True)
    (repo / "src").mkdir()
    (repo / ".atlas" / "config.toml").write_text(
        f'[mcp_servers.helper]\ncommand = "{sys.executable}"\nargs = ["{TEST_SERVER}"]\ntimeout_s = 40\n'
        f'env = {{ ATLAS_TEST_STARTED = "{started}"{extra_env} }}\n'
    )
    return repo


@pytest.mark.usefixtures("patient_start")
def test_a_cloned_repositorys_server_starts_only_once_trusted_by_its_exact_command(tmp_path: Path) -> None:
    started = tmp_path / "server-was-started"
    repo = cloned_repo(tmp_path, started)
    env = cloned_env(tmp_path)
    script = write_script(tmp_path, [{"calls": [{"name": "helper__echo", "arguments": {"text": "x"}}]}, {"text": "ok"}])

    listed = atlas_in(repo / "src", "mcp", "list", env=env)
    assert listed.returncode == 0, listed.stderr
    assert "no: atlas mcp trust helper" in listed.stdout and "not started" in listed.stdout
    asked = atlas_in(repo / "src", "ask", "--model", script, "echo x", env=env)
    assert asked.returncode == 0, asked.stderr
    warnings = [line for line in asked.stderr.splitlines() if line.startswith("atlas: warning")]
    assert len(warnings) == 1 and "atlas mcp trust NAME" in warnings[0] and "helper" in warnings[0]
    assert "helper__echo()" not in asked.stderr or "unknown_tool" in asked.stderr
    assert not started.exists()  # the repository's command never ran

    trusted = atlas_in(repo / "src", "mcp", "trust", "helper", env=env)
    assert trusted.returncode == 0, trusted.stderr
    assert "Trusted MCP server 'helper'" in trusted.stdout and str(TEST_SERVER) in trusted.stdout
    store = tmp_path / "user-config" / "atlas" / "trusted-mcp-servers.json"
    assert store.is_file() and not any("trusted" in p.name for p in repo.rglob("*"))
    listed = atlas_in(repo / "src", "mcp", "list", env=env)
    assert listed.returncode == 0, listed.stderr
    assert started.exists() and "running" in listed.stdout and "echo" in listed.stdout

    # The repository changes the command (here its environment): not trusted any more.
    started.unlink()
    cloned_repo_config = repo / ".atlas" / "config.toml"
    cloned_repo_config.write_text(cloned_repo_config.read_text().replace(" }", ', EXTRA = "1" }'))
    again = atlas_in(repo / "src", "ask", "--model", script, "echo x", env=env)
    assert again.returncode == 0 and "atlas mcp trust" in again.stderr
    assert not started.exists()


@pytest.mark.usefixtures("patient_start")
def test_a_folder_the_user_chose_needs_no_trust(tmp_path: Path) -> None:
    started = tmp_path / "started"
    # Only whether it starts is checked: a server that exits once it has said so serves, no protocol needed.
    repo = cloned_repo(tmp_path, started, extra_env=', ATLAS_TEST_EXIT_AT_START = "1"')
    env = {**cloned_env(tmp_path), "ATLAS_HOME": str(repo / ".atlas")}
    listed = atlas_in(repo, "mcp", "list", env=env)
    assert listed.returncode == 0 and "yes (your folder)" in listed.stdout, listed
    assert started.exists()


def hung_config(home: Path, marker: str, names: list[str]) -> None:
    home.mkdir(parents=True, exist_ok=True)
    tables = [
        f'[mcp_servers.{name}]\ncommand = "{sys.executable}"\nargs = ["{TEST_SERVER}"]\n'
        f'env = {{ ATLAS_TEST_HANG_AT_START = "1", {marker} = "1" }}\n'
        for name in names
    ]
    (home / "config.toml").write_text("\n".join(tables))


def test_a_server_stuck_at_initialize_is_bounded_by_the_deadline_and_ended(tmp_path: Path) -> None:
    marker = f"ATLAS_TEST_MARKER_{os.getpid()}_{time.monotonic_ns()}"
    env = atlas_env(tmp_path / "home")
    hung_config(tmp_path / "home", marker, ["stuck"])
    script = write_script(tmp_path, [{"text": "answered without the server"}])
    baseline = atlas_env(tmp_path / "other")
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "config.toml").write_text('[mcp_servers.gone]\ncommand = "/nonexistent/server"\n')
    started = time.monotonic()
    assert invoke("ask", "--model", script, "--deadline", "2", "hello", env=baseline).code == 0
    fails_at_once = time.monotonic() - started  # the interpreter, the SDK's import, a start that fails
    started = time.monotonic()
    asked = invoke("ask", "--model", script, "--deadline", "2", "hello", env=env)
    elapsed = time.monotonic() - started
    assert asked.code == 0, asked
    assert "did not start" in asked.stderr or "no time left" in asked.stderr
    assert "answered without the server" in asked.stdout
    assert_no_traceback(asked)
    assert "Future exception" not in asked.stderr
    # The deadline, and ending the server (a second after SIGTERM), with room for a loaded machine:
    # a run that ignored the deadline would wait out the 10 s start bound.
    assert elapsed - fails_at_once < 2 + 6, (elapsed, fails_at_once)
    assert _server_processes(marker) == []  # it ignores SIGTERM: SIGKILL to its group ended it


def test_mcp_list_starts_hung_servers_side_by_side(tmp_path: Path) -> None:
    marker = f"ATLAS_TEST_MARKER_{os.getpid()}_{time.monotonic_ns()}"
    env = atlas_env(tmp_path / "home")
    hung_config(tmp_path / "home", marker, ["one", "two", "three"])
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "config.toml").write_text('[mcp_servers.gone]\ncommand = "/nonexistent/server"\n')
    started = time.monotonic()
    assert invoke("mcp", "list", env=atlas_env(tmp_path / "other")).code == 0
    fails_at_once = time.monotonic() - started
    started = time.monotonic()
    listed = invoke("mcp", "list", env=env)
    elapsed = time.monotonic() - started
    assert listed.code == 0, listed
    assert listed.stdout.count("did not start within 10 s") == 3
    # One start timeout, not three (30 s) nor two (20 s), with room for ending them on a loaded machine.
    assert elapsed - fails_at_once < 10 + 8, (elapsed, fails_at_once)
    assert _server_processes(marker) == []


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_every_way_out_ends_the_servers(tmp_path: Path, signum: signal.Signals) -> None:
    marker = f"ATLAS_TEST_MARKER_{os.getpid()}_{time.monotonic_ns()}"
    hanging = tmp_path / "hanging"
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        f'[mcp_servers.t]\ncommand = "{sys.executable}"\nargs = ["{TEST_SERVER}"]\ntimeout_s = 60\n'
        f'env = {{ {marker} = "1", ATLAS_TEST_HANGING = "{hanging}" }}\n'
    )
    script = write_script(tmp_path, [{"calls": [{"name": "t__hang", "arguments": {}}]}, {"text": "never"}])
    process = start_atlas("ask", "--model", script, "hang", env=atlas_env(home))
    assert wait_until(hanging.exists, 90), "the hung call never reached the server"
    assert _server_processes(marker)
    process.send_signal(signum)
    out, err = process.communicate(timeout=30)
    assert b"Traceback" not in out + err
    if signum == signal.SIGINT:  # Ctrl-C: Atlas's own exit code, its servers ended before it exits
        assert process.returncode == 130, err
        assert _server_processes(marker) == []
    assert process.returncode in (-signum, 128 + signum, 130), (process.returncode, err)
    assert wait_until(lambda: not _server_processes(marker), 10), _server_processes(marker)


def test_mcp_add_escapes_control_characters_and_refuses_them_in_names(tmp_path: Path) -> None:
    env = atlas_env(tmp_path / "home")
    # `add` (to pin it) and `list` start the server; what is checked is how its arguments are written
    # and read back, so a command that exits at once, as a real server given unknown options does, serves.
    added = invoke("mcp", "add", "odd", "--", "false", "--x\x7fy", "tab\there", '"quoted\\"', env=env)
    assert added.code == 0, added
    import tomllib

    document = tomllib.loads((tmp_path / "home" / "config.toml").read_text())
    assert document["mcp_servers"]["odd"]["args"] == ["--x\x7fy", "tab\there", '"quoted\\"']
    assert invoke("mcp", "list", env=env).code == 0
    refused = invoke("mcp", "add", "bad\x7f", "--", "x", env=env)
    assert refused.code == 2 and refused.stderr.count("\n") == 1 and "not a server name" in refused.stderr
    newline = invoke("mcp", "add", "bad\n", "--", "x", env=env)
    assert newline.code == 2 and "not a server name" in newline.stderr


def test_a_corrupt_config_is_one_line_for_every_mcp_command(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    env = atlas_env(home)
    for broken in ("[mcp_servers.x\n", "x = " + "[" * 5000 + "]" * 5000 + "\n", "\xff\n"):
        (home / "config.toml").write_bytes(
            broken.encode("utf-8", "surrogateescape") if broken != "\xff\n" else b"\xff\n"
        )
        for args in (["mcp", "list"], ["mcp", "remove", "x"], ["mcp", "add", "y", "--", "z"], ["tools"]):
            done = invoke(*args, env=env)
            assert done.code == 2, (args, done)
            assert done.stderr.count("\n") == 1 and "config.toml is not valid TOML" in done.stderr, (args, done)


def test_mcp_remove_keeps_every_other_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    text = (
        "# my servers\n"
        '[mcp_servers.a]\ncommand = "x"\n\n[mcp_servers.b]\ncommand = "y"\n[mcp_servers.b.env]\nK = "v"\n\n'
        '[mcp_servers.c]\ncommand = "z" # keep\n'
    )
    (home / "config.toml").write_text(text)
    env = atlas_env(home)
    removed = invoke("mcp", "remove", "b", env=env)
    assert removed.code == 0 and "Removed MCP server 'b'" in removed.stdout, removed
    assert (home / "config.toml").read_text() == (
        '# my servers\n[mcp_servers.a]\ncommand = "x"\n\n[mcp_servers.c]\ncommand = "z" # keep\n'
    )
    missing = invoke("mcp", "remove", "b", env=env)
    assert missing.code == 2 and "no MCP server named 'b'" in missing.stderr
