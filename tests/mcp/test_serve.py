"""`atlas mcp serve` driven by the MCP SDK's own client over stdio, as a host would."""

from __future__ import annotations

import json
import sys
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
import mcp_types as types
import pytest
from mcp import ClientSession, StdioServerParameters, stdio_client

from tests.support.run import REPO, atlas_env, invoke, logged_calls, tracker_records

Session = Callable[[ClientSession], Awaitable[Any]]


def with_server(home: Path, body: Session, *args: str, elicit: Any = None, **env_extra: str) -> Any:
    env = atlas_env(home, **env_extra)
    params = StdioServerParameters(
        command=sys.executable, args=["-m", "atlas", "mcp", "serve", *args], env=env, cwd=REPO
    )

    async def run() -> Any:
        with (home.parent / "serve-stderr.log").open("w") as errlog:
            async with stdio_client(params, errlog=errlog) as (read, write):
                info = types.Implementation(name="test-host", version="1.0")
                async with ClientSession(read, write, client_info=info, elicitation_callback=elicit) as session:
                    await session.initialize()
                    return await body(session)

    return anyio.run(run)


def test_read_tools_are_served_with_annotations_and_logged_with_the_host_named(tmp_path: Path) -> None:
    home = tmp_path / "home"

    async def body(session: ClientSession) -> Any:
        listed = await session.list_tools()
        good = await session.call_tool("get_issue", {"issue_id": 41})
        missing = await session.call_tool("get_issue", {"issue_id": 999999})
        bad = await session.call_tool("get_issue", {"issue_id": "forty-one"})
        write = await session.call_tool("add_label", {"issue_id": 41, "label": "comp:core"})
        return listed, good, missing, bad, write

    listed, good, missing, bad, write = with_server(home, body)
    tools = {tool.name: tool for tool in listed.tools}
    assert "get_issue" in tools and "add_label" not in tools and "post_comment" not in tools
    assert tools["get_issue"].annotations.read_only_hint is True
    assert tools["get_issue"].input_schema["properties"]["issue_id"]
    assert good.is_error is False and good.structured_content["data"]["id"] == 41
    assert missing.is_error is True and missing.structured_content["error"]["kind"] == "permanent"
    assert bad.structured_content["error"]["kind"] == "bad_args"
    assert write.structured_content["error"]["kind"] == "unknown_tool"  # side effects are not served
    calls = logged_calls(atlas_env(home))
    assert [call["name"] for call in calls] == ["get_issue", "get_issue", "get_issue", "add_label"]
    assert all(call["session"].startswith("mcp-test-host-") for call in calls)


@dataclass(frozen=True)
class WritesSession:
    """One host's session with `atlas mcp serve --allow-writes` over a policy with a deny and an allow rule."""

    listed: Any
    calls: dict[str, Any]
    questions: list[str]
    records: list[dict[str, Any]]


@pytest.fixture(scope="module")
def writes_session(tmp_path_factory: pytest.TempPathFactory) -> WritesSession:
    """Writes through one served process (each `atlas mcp serve` pays the interpreter and the SDK's
    import): a label no rule names, refused then approved by the host's user; a label the deny rule
    names; a label the allow rule names. The host's user answers no, then yes to every question."""
    home = tmp_path_factory.mktemp("serve-writes") / "home"
    home.mkdir()
    (home / "config.toml").write_text(
        '[[policy.rules]]\nname = "no-severity"\ndecision = "deny"\ntool = "add_label"\nlabels = ["severity:*"]\n'
        '[[policy.rules]]\nname = "components"\ndecision = "allow"\ntool = "add_label"\nlabels = ["comp:*"]\n',
        encoding="utf-8",
    )
    questions: list[str] = []
    answers = iter([False, True, True])

    async def elicit(context: Any, params: types.ElicitRequestParams) -> types.ElicitResult:
        questions.append(params.message)
        return types.ElicitResult(action="accept", content={"approve": next(answers, True)})

    async def body(session: ClientSession) -> Any:
        listed = await session.list_tools()
        calls = {
            "denied": await session.call_tool("add_label", {"issue_id": 41, "label": "type:docs"}),
            "approved": await session.call_tool("add_label", {"issue_id": 41, "label": "type:docs"}),
            "severity": await session.call_tool("add_label", {"issue_id": 41, "label": "severity:S1"}),
            "component": await session.call_tool("add_label", {"issue_id": 41, "label": "comp:worker"}),
        }
        return listed, calls

    listed, calls = with_server(home, body, "--allow-writes", elicit=elicit)
    return WritesSession(listed, calls, questions, tracker_records(atlas_env(home)))


def test_with_allow_writes_a_write_asks_the_hosts_user_through_elicitation(writes_session: WritesSession) -> None:
    tools = {tool.name: tool for tool in writes_session.listed.tools}
    assert tools["add_label"].annotations.read_only_hint is False
    assert tools["add_label"].annotations.idempotent_hint is True
    assert tools["post_comment"].annotations.destructive_hint is True
    denied, approved = writes_session.calls["denied"], writes_session.calls["approved"]
    assert denied.structured_content["error"]["kind"] == "denied"
    assert approved.is_error is False, json.dumps(approved.structured_content)
    questions = writes_session.questions
    assert len(questions) >= 2 and "add_label" in questions[0] and "type:docs" in questions[0]
    assert "type:docs" in questions[1]
    records = [record for record in writes_session.records if record["label"] == "type:docs"]
    assert len(records) == 1 and records[0]["issue_id"] == 41


def test_a_deny_rule_holds_for_the_hosts_calls_and_an_allow_rule_never_skips_its_question(
    writes_session: WritesSession,
) -> None:
    severity, component = writes_session.calls["severity"], writes_session.calls["component"]
    assert severity.structured_content["error"]["kind"] == "denied"
    assert "no-severity" in severity.structured_content["error"]["message"]
    assert component.is_error is False
    # Asked for the two type:docs writes and for comp:worker (the allow rule did not answer for the
    # host), never for severity:S1 (the deny rule did).
    questions = writes_session.questions
    assert len(questions) == 3 and "comp:worker" in questions[2], questions
    assert not any("severity" in question for question in questions), questions
    decided = [(r["label"], r["decided_by"]) for r in writes_session.records]
    assert decided == [("type:docs", "person"), ("comp:worker", "person")]


def test_a_malformed_policy_stops_the_server_with_one_line(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text('[[policy.rules]]\nname = "x"\ndecision = "maybe"\ntool = "add_label"\n')
    run = invoke("mcp", "serve", "--allow-writes", env=atlas_env(home))
    assert run.code == 2 and run.stdout == ""
    [line] = run.stderr.splitlines()
    assert line.startswith("atlas: error: ") and "config.toml:3" in line
