"""Through the real CLI: a cloned repository's `.atlas/config.toml` starts nothing until trusted; servers
stuck at start-up are bounded by `--deadline` and ended on every way out; `atlas mcp list` starts
servers side by side; the config file is written as valid TOML and a broken one is one line."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.mcp.conftest import TEST_SERVER
from tests.mcp.test_cli_mcp import _server_processes
from tests.support.run import assert_no_traceback, atlas_env, run_atlas, start_atlas, write_script


def cloned_env(tmp_path: Path) -> dict[str, str]:
    """No ATLAS_HOME: Atlas finds the repository's `.atlas`; the user's own folders are under tmp_path."""
    env = atlas_env(tmp_path / "unused")
    del env["ATLAS_HOME"]
    env.update(XDG_CONFIG_HOME=str(tmp_path / "user-config"), XDG_STATE_HOME=str(tmp_path / "user-state"))
    return env


def atlas_in(folder: Path, *args: str, env: dict[str, str], timeout: float = 90.0) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "atlas", *args],
        cwd=folder,
        env=env,
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=timeout,
        start_new_session=True,
    )


def cloned_repo(tmp_path: Path, started: Path, extra_env: str = "") -> Path:
    repo = tmp_path / "cloned"
    (repo / ".atlas").mkdir(parents=True)
    (repo / "src").mkdir()
    (repo / ".atlas" / "config.toml").write_text(
        f'[mcp_servers.helper]\ncommand = "{sys.executable}"\nargs = ["{TEST_SERVER}"]\ntimeout_s = 40\n'
        f'env = {{ ATLAS_TEST_STARTED = "{started}"{extra_env} }}\n'
    )
    return repo


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


def test_a_folder_the_user_chose_needs_no_trust(tmp_path: Path) -> None:
    started = tmp_path / "started"
    repo = cloned_repo(tmp_path, started)
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
    assert run_atlas("ask", "--model", script, "--deadline", "2", "hello", env=baseline).code == 0
    fails_at_once = time.monotonic() - started  # the interpreter, the SDK's import, a start that fails
    started = time.monotonic()
    asked = run_atlas("ask", "--model", script, "--deadline", "2", "hello", env=env)
    elapsed = time.monotonic() - started
    assert asked.code == 0, asked
    assert "did not start" in asked.stderr or "no time left" in asked.stderr
    assert "answered without the server" in asked.stdout
    assert_no_traceback(asked)
    assert "Future exception" not in asked.stderr
    assert elapsed - fails_at_once < 2 + 3, (elapsed, fails_at_once)  # the deadline, and ending the server
    assert _server_processes(marker) == []  # it ignores SIGTERM: SIGKILL to its group ended it


def test_mcp_list_starts_hung_servers_side_by_side(tmp_path: Path) -> None:
    marker = f"ATLAS_TEST_MARKER_{os.getpid()}_{time.monotonic_ns()}"
    env = atlas_env(tmp_path / "home")
    hung_config(tmp_path / "home", marker, ["one", "two", "three"])
    (tmp_path / "other").mkdir()
    (tmp_path / "other" / "config.toml").write_text('[mcp_servers.gone]\ncommand = "/nonexistent/server"\n')
    started = time.monotonic()
    assert run_atlas("mcp", "list", env=atlas_env(tmp_path / "other")).code == 0
    fails_at_once = time.monotonic() - started
    started = time.monotonic()
    listed = run_atlas("mcp", "list", env=env, timeout=120)
    elapsed = time.monotonic() - started
    assert listed.code == 0, listed
    assert listed.stdout.count("did not start within 10 s") == 3
    assert elapsed - fails_at_once < 10 + 5, (elapsed, fails_at_once)  # one start timeout, not three
    assert _server_processes(marker) == []


@pytest.mark.parametrize("signum", [signal.SIGTERM, signal.SIGHUP, signal.SIGINT])
def test_every_way_out_ends_the_servers(tmp_path: Path, signum: signal.Signals) -> None:
    marker = f"ATLAS_TEST_MARKER_{os.getpid()}_{time.monotonic_ns()}"
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        f'[mcp_servers.t]\ncommand = "{sys.executable}"\nargs = ["{TEST_SERVER}"]\ntimeout_s = 60\n'
        f'env = {{ {marker} = "1" }}\n'
    )
    script = write_script(tmp_path, [{"calls": [{"name": "t__hang", "arguments": {}}]}, {"text": "never"}])
    process = start_atlas("ask", "--model", script, "hang", env=atlas_env(home))
    deadline = time.monotonic() + 60
    while not _server_processes(marker) and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _server_processes(marker), "the server never started"
    time.sleep(2.0)
    process.send_signal(signum)
    out, err = process.communicate(timeout=30)
    assert b"Traceback" not in out + err
    assert process.returncode in (-signum, 128 + signum, 130), (process.returncode, err)
    waited = time.monotonic() + 5
    while _server_processes(marker) and time.monotonic() < waited:
        time.sleep(0.1)
    assert _server_processes(marker) == []


def test_mcp_add_escapes_control_characters_and_refuses_them_in_names(tmp_path: Path) -> None:
    env = atlas_env(tmp_path / "home")
    added = run_atlas("mcp", "add", "odd", "--", "mcp-server-time", "--x\x7fy", "tab\there", '"quoted\\"', env=env)
    assert added.code == 0, added
    import tomllib

    document = tomllib.loads((tmp_path / "home" / "config.toml").read_text())
    assert document["mcp_servers"]["odd"]["args"] == ["--x\x7fy", "tab\there", '"quoted\\"']
    assert run_atlas("mcp", "list", env=env).code == 0
    refused = run_atlas("mcp", "add", "bad\x7f", "--", "x", env=env)
    assert refused.code == 2 and refused.stderr.count("\n") == 1 and "not a server name" in refused.stderr
    newline = run_atlas("mcp", "add", "bad\n", "--", "x", env=env)
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
            done = run_atlas(*args, env=env)
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
    removed = run_atlas("mcp", "remove", "b", env=env)
    assert removed.code == 0 and "Removed MCP server 'b'" in removed.stdout, removed
    assert (home / "config.toml").read_text() == (
        '# my servers\n[mcp_servers.a]\ncommand = "x"\n\n[mcp_servers.c]\ncommand = "z" # keep\n'
    )
    missing = run_atlas("mcp", "remove", "b", env=env)
    assert missing.code == 2 and "no MCP server named 'b'" in missing.stderr
