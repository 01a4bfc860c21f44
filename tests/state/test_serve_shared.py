"""`atlas mcp serve` on a team's shared state: the database is opened before anything is served (down or
refused: one line on stderr, nothing on the protocol's standard output), and a host's calls and the
writes its user approves land in the shared database with who made them."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest
from mcp import ClientSession

from tests.mcp.test_serve import with_server
from tests.support.pg_server import Server, free_port
from tests.support.run import REPO, atlas_env, invoke, logged_calls, tracker_records

INITIALIZE = (
    '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18",'
    '"capabilities":{},"clientInfo":{"name":"host","version":"1"}}}\n'
)


def _serve(env: dict[str, str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "atlas", "mcp", "serve", "--allow-writes"],
        input=INITIALIZE, env=env, cwd=REPO, capture_output=True, text=True, timeout=60,
    )  # fmt: skip


def test_a_shared_state_down_at_start_stops_the_server_with_one_line(tmp_path: Path) -> None:
    url = f"postgresql://atlas:serve-secret@127.0.0.1:{free_port()}/team"
    run = _serve(atlas_env(tmp_path / "home", ATLAS_STATE_URL=url))
    assert run.returncode != 0 and run.stdout == "", run  # the host reads no half-started protocol
    [line] = run.stderr.splitlines()
    assert "cannot be used" in line and "nothing was written" in line and "serve-secret" not in line
    assert not (tmp_path / "home" / "log.db").exists()


@pytest.mark.postgres
def test_a_wrong_password_stops_the_server_with_one_line(postgres: Server, tmp_path: Path) -> None:
    # In this process: the test above holds the real process's protocol stream to nothing written.
    env = atlas_env(tmp_path / "home", ATLAS_STATE_URL=postgres.url(password="serve-wrong-pw"))
    run = invoke("mcp", "serve", "--allow-writes", env=env, stdin=INITIALIZE)
    assert run.returncode != 0 and run.stdout == "", run
    [line] = run.stderr.splitlines()
    assert "password authentication failed" in line and "serve-wrong-pw" not in line


@pytest.mark.postgres
def test_a_hosts_calls_and_approved_writes_go_to_the_shared_state(tmp_path: Path, database_url: str) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('[state]\nperson = "ci-bot"\n', encoding="utf-8")

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        return types.ElicitResult(action="accept", content={"approve": True})

    async def body(session: ClientSession) -> Any:
        await session.call_tool("get_issue", {"issue_id": 41})
        return await session.call_tool("add_label", {"issue_id": 41, "label": "type:docs"})

    added = with_server(home, body, "--allow-writes", elicit=elicit, ATLAS_STATE_URL=database_url)
    assert added.is_error is False, added.structured_content
    assert not (home / "tracker_actions.jsonl").exists()
    shared = atlas_env(tmp_path / "elsewhere", ATLAS_STATE_URL=database_url)  # another maintainer's Atlas
    [record] = tracker_records(shared)
    assert (record["label"], record["person"]) == ("type:docs", "ci-bot")
    calls = logged_calls(shared)
    assert [call["name"] for call in calls] == ["get_issue", "add_label"]
    assert {call["person"] for call in calls} == {"ci-bot"}
