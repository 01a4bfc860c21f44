"""`atlas doctor` run as a user runs it: what Atlas will use, whether it works, exit 1 when broken."""

from __future__ import annotations

import json
import os
import socket
from pathlib import Path
from typing import Any

from atlas.foundation.config import bundled_data_dir
from atlas.runtime.toolset import load_registry
from tests.support.run import Run, invoke


def doctor(*args: str, **env: str) -> Run:
    return invoke("doctor", *args, env={**os.environ, "COLUMNS": "200", **env})


def checks(done: Run) -> dict[str, dict[str, Any]]:
    return {check["name"]: check for check in json.loads(done.stdout)["checks"]}


def closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def test_offline_everything_is_named_and_works() -> None:
    done = doctor()
    assert done.returncode == 0, done.stdout + done.stderr
    lines = done.stdout.splitlines()
    names = [line.split()[1] for line in lines]
    assert names == ["model", "api", "dataset", "project", "state", "team", "plugins", "mcp", "telemetry", "versions"]
    assert all(line.startswith("✓ ") and line == line.rstrip() for line in lines)
    home = os.environ["ATLAS_HOME"]
    docs = len(list((bundled_data_dir() / "docs").glob("*.md")))
    assert f"{home} (ATLAS_HOME)" in done.stdout and f"160 issues · {docs} docs · db fresh" in done.stdout
    tools = len(load_registry())
    assert "no OPENAI_API_KEY" in done.stdout and f"{tools} tools" in done.stdout and "atlas 0.1.0" in done.stdout


def test_a_reachable_api_and_json(llmock: Any) -> None:
    done = doctor("--json")
    assert done.returncode == 0, done.stdout
    found = checks(done)
    assert found["model"]["facts"]["model"] == "gpt-6-luna"
    assert found["api"]["ok"] and found["api"]["facts"] == {
        "base_url": llmock.base_url("openai"),
        "api": "responses",
        "key": True,
        "reachable": True,
    }
    assert json.loads(done.stdout)["ok"] is True


def test_an_unreachable_api_fails_when_the_model_needs_it() -> None:
    base = f"http://127.0.0.1:{closed_port()}/v1"
    done = doctor(OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=base)
    assert done.returncode == 1
    api = next(line for line in done.stdout.splitlines() if line.split()[1] == "api")
    assert api.startswith("✗") and base in api and "unreachable" in api and "--model offline" in api
    # The offline model does not need the API: the same address is only a note.
    offline = doctor("-m", "offline", OPENAI_API_KEY="sk-test", OPENAI_BASE_URL=base)
    assert offline.returncode == 0 and "unreachable" in offline.stdout


def test_a_missing_dataset_and_a_broken_plugin(tmp_path: Path) -> None:
    done = doctor("--json", ORBIT_DATA=str(tmp_path / "nowhere"), ATLAS_TOOL_MODULES="no_such_atlas_plugin")
    assert done.returncode == 1
    found = checks(done)
    assert not found["dataset"]["ok"] and str(tmp_path / "nowhere") in found["dataset"]["detail"]
    plugins = found["plugins"]
    assert not plugins["ok"] and not plugins["needed"]
    assert plugins["facts"]["failed"] == [
        "tool module 'no_such_atlas_plugin' could not be imported "
        "(ModuleNotFoundError: No module named 'no_such_atlas_plugin'); skipped"
    ]


def test_a_state_folder_that_cannot_be_written(tmp_path: Path) -> None:
    blocker = tmp_path / "file"
    blocker.write_text("not a folder", encoding="utf-8")
    done = doctor(ATLAS_HOME=str(blocker / "home"))
    assert done.returncode == 1
    state = next(line for line in done.stdout.splitlines() if line.split()[1] == "state")
    assert state.startswith("✗") and "NOT writable" in state


def test_a_local_server_named_by_atlas_base_url_needs_no_key(llmock: Any) -> None:
    """ATLAS_BASE_URL and ATLAS_API are what doctor probes; a server named there needs no key."""
    env = {key: value for key, value in os.environ.items() if key not in ("OPENAI_API_KEY", "OPENAI_BASE_URL")}
    url = llmock.base_url("openai")
    done = invoke(
        "doctor", "-m", "qwen2.5:7b", env={**env, "COLUMNS": "200", "ATLAS_BASE_URL": url, "ATLAS_API": "chat"}
    )
    assert done.returncode == 0, done.stdout + done.stderr
    api = next(line for line in done.stdout.splitlines() if line.split()[1] == "api")
    assert api.startswith("✓") and url in api and "Chat Completions" in api and "reachable" in api, api
    assert "set OPENAI_API_KEY" not in done.stdout
    model = next(line for line in done.stdout.splitlines() if line.split()[1] == "model")
    assert "Chat Completions" in model and "Responses" not in model
    # The probe went to that server, not to the OpenAI API.
    assert any(getattr(request, "path", "").endswith("/models") for request in llmock.requests), llmock.requests


def test_a_named_server_is_probed_without_a_key() -> None:
    from tests.adversarial.sse_server import ScriptedSSE

    with ScriptedSSE([]) as server:  # no GET handler: a 501, reachable
        done = doctor("--json", "-m", "gpt-x", ATLAS_BASE_URL=server.url, OPENAI_API_KEY="")
    api = checks(done)["api"]
    assert api["ok"] and api["facts"]["key"] is False and api["facts"]["base_url"] == server.url, api
