"""Setting MCP up as a new user meets it: without the `mcp` extra, `atlas tools` and `atlas doctor`
with servers configured, and an offline question that starts no server it will never call."""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

from tests.mcp.conftest import TEST_SERVER
from tests.support.run import assert_no_traceback, atlas_env, invoke, run_atlas, write_script


def without_mcp_sdk(tmp_path: Path, home: Path) -> dict[str, str]:
    """An environment where `import mcp` fails, as after the plain install (`pip install .`)."""
    shim = tmp_path / "shim"
    for name in ("mcp", "mcp_types"):
        (shim / name).mkdir(parents=True, exist_ok=True)
        (shim / name / "__init__.py").write_text(
            f"raise ModuleNotFoundError(\"No module named '{name}'\", name={name!r})\n"
        )
    env = atlas_env(home)
    env["PYTHONPATH"] = os.pathsep.join([str(shim), env["PYTHONPATH"]])
    return env


# A process of its own: `import mcp` must fail, and in this process the SDK is already imported.
def test_without_the_mcp_extra_a_server_costs_one_warning_and_doctor_says_what_to_install(tmp_path: Path) -> None:
    env = without_mcp_sdk(tmp_path, tmp_path / "home")
    added = run_atlas("mcp", "add", "time", "--", "mcp-server-time", env=env)
    assert added.code == 0, added
    assert "pip install 'atlas-orbit[mcp]'" in added.stderr
    script = write_script(tmp_path, [{"text": "answered"}])
    asked = run_atlas("ask", "--model", script, "what time is it?", env=env)
    assert asked.code == 0, asked
    assert_no_traceback(asked)
    assert "answered" in asked.stdout and "ModuleNotFoundError" not in asked.output
    [warning] = [line for line in asked.stderr.splitlines() if "warning" in line]
    assert "pip install 'atlas-orbit[mcp]'" in warning
    doctor = run_atlas("doctor", "--json", env=env)
    assert doctor.code == 1, doctor
    [mcp] = [check for check in json.loads(doctor.stdout)["checks"] if check["name"] == "mcp"]
    assert mcp["ok"] is False and "pip install 'atlas-orbit[mcp]'" in mcp["detail"]
    listed = run_atlas("mcp", "list", env=env)
    assert listed.code == 0 and "atlas-orbit[mcp]" in listed.stdout, listed


def test_doctor_with_the_sdk_installed_and_a_server_configured(tmp_path: Path, time_added_home: Path) -> None:
    shutil.copytree(time_added_home, tmp_path / "home")  # after `atlas mcp add time -- mcp-server-time ...`
    env = atlas_env(tmp_path / "home")
    doctor = invoke("doctor", "--json", env=env)
    [mcp] = [check for check in json.loads(doctor.stdout)["checks"] if check["name"] == "mcp"]
    assert mcp["ok"] is True and "1 server (time)" in mcp["detail"]


def test_atlas_tools_lists_mcp_tools_with_their_server(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        f'[mcp_servers.t]\ncommand = "{sys.executable}"\nargs = ["{TEST_SERVER}"]\ntimeout_s = 40\n'
    )
    listed = invoke("tools", env={**atlas_env(home), "COLUMNS": "200"})
    assert listed.code == 0, listed
    rows = {line.split("│")[0].strip(): line for line in listed.stdout.splitlines() if "│" in line}
    assert "t__echo" in rows and rows["t__echo"].split("│")[1].strip() == "t"
    assert rows["search_issues"].split("│")[1].strip() == "atlas"


def test_an_offline_question_starts_no_server(tmp_path: Path) -> None:
    started = tmp_path / "started"
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        f'[mcp_servers.t]\ncommand = "{sys.executable}"\nargs = ["{TEST_SERVER}"]\ntimeout_s = 40\n'
        # Only whether it starts is checked: a server that exits once it has said so serves, no protocol needed.
        f'env = {{ ATLAS_TEST_STARTED = "{started}", ATLAS_TEST_EXIT_AT_START = "1" }}\n'
    )
    env = atlas_env(home)
    begun = time.monotonic()
    asked = invoke("ask", "-m", "offline", "show issue #41", env=env)
    assert asked.code == 0, asked
    assert "#41" in asked.stdout
    assert not started.exists(), f"a server was started for the offline planner ({time.monotonic() - begun:.1f} s)"
    script = write_script(tmp_path, [{"text": "ok"}])
    assert invoke("ask", "--model", script, "hi", env=env).code == 0
    assert started.exists()  # a model that can call MCP tools does start it
