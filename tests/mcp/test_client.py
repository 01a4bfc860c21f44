"""MCP tools through the real executor against a real MCP server process (tests/mcp/mcp_test_server.py)."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest

from atlas.executor.executor import ToolExecutor
from atlas.executor.turn import Turn
from atlas.llm.openai_schema import responses_tools
from atlas.mcp.config import ServerConfig
from atlas.mcp.host import McpHost, log_path
from atlas.mcp.tools import server_specs
from atlas.protocol.events import ApprovalRequest
from atlas.protocol.messages import ToolCall
from atlas.tools.registry import Registry
from tests.mcp.conftest import server_config

# Servers are started here to be called, not to time their start: room for a loaded machine.
pytestmark = pytest.mark.usefixtures("patient_start")


def executor_for(host: McpHost, config: ServerConfig, approve: Any = None, **options: Any) -> ToolExecutor:
    registry = Registry(server_specs(host, config))
    if approve is not None:
        options["approve"] = approve
    return ToolExecutor(registry, **options)


def run(executor: ToolExecutor, name: str, arguments: dict[str, Any], turn: Turn | None = None) -> dict[str, Any]:
    output = asyncio.run(executor.run_one(ToolCall.make(name, arguments, "c1"), turn=turn))
    result: dict[str, Any] = json.loads(output["output"])
    return result


@pytest.fixture(scope="module")
def config() -> ServerConfig:
    return server_config(timeout_s=1.5)


def test_a_read_tool_answers_through_the_executor_as_untrusted_text(host: McpHost, config: ServerConfig) -> None:
    executor = executor_for(host, config)
    turn = executor.new_turn(1)
    result = run(executor, "t__echo", {"text": "hello"}, turn)
    # structuredContent is preferred over the text parts when the server sends it.
    assert result == {"ok": True, "data": {"result": "hello"}, "untrusted": True}
    assert turn.untrusted_sources == ["MCP server t (echo)"]
    assert executor.log[0].kind == "ok" and executor.log[0].name == "t__echo"


def test_arguments_that_break_the_schema_are_bad_args_without_a_round_trip(host: McpHost, config: ServerConfig) -> None:
    executor = executor_for(host, config)
    result = run(executor, "t__echo", {"text": 41})
    assert result["error"]["kind"] == "bad_args"
    assert "text" in result["error"]["message"] and "string" in result["error"]["message"]
    assert executor.log[0].attempts == 0  # never sent to the server
    assert run(executor, "t__echo", {})["error"]["kind"] == "bad_args"


def test_a_hung_tool_costs_its_deadline_and_the_session_survives(host: McpHost, config: ServerConfig) -> None:
    executor = executor_for(host, config)
    started = time.monotonic()
    result = run(executor, "t__hang", {})
    elapsed = time.monotonic() - started
    assert result["error"]["kind"] == "timeout"
    assert 1.4 <= elapsed < 3.0
    assert run(executor, "t__echo", {"text": "still here"})["data"] == {"result": "still here"}


def test_a_server_frozen_by_a_tool_is_restarted_for_the_next_call(host: McpHost) -> None:
    # The host's server `t` (running if an earlier test started it): a restart leaves it as
    # the other tests need it, a running `t`, so the freeze costs one start, not two.
    config = server_config("t", timeout_s=1.0)
    executor = executor_for(host, config)
    assert run(executor, "t__freeze", {})["error"]["kind"] == "timeout"
    # The ping after the timeout goes unanswered: the server is stopped.
    waited = time.monotonic() + 10.0
    while host.state("t") == "running" and time.monotonic() < waited:
        time.sleep(0.1)
    assert host.state("t") != "running"
    # Stopping it takes the SDK's escalation (stdin closed, SIGTERM); a new one starts on demand.
    assert [tool.name for tool in host.tools(config, 20.0)][:1] == ["echo"]
    assert run(executor, "t__echo", {"text": "fresh"})["data"] == {"result": "fresh"}


def test_a_slow_tool_within_its_deadline_answers(host: McpHost, config: ServerConfig) -> None:
    assert run(executor_for(host, config), "t__slow", {"seconds": 0.3})["data"] == {"result": "slept 0.3 s"}


def test_an_error_result_is_a_tool_error_with_the_servers_text(host: McpHost, config: ServerConfig) -> None:
    result = run(executor_for(host, config), "t__fail", {"reason": "disk on fire"})
    assert result["error"]["kind"] == "permanent"
    assert "failed on purpose: disk on fire" in result["error"]["message"]


def test_a_protocol_error_is_its_own_kind(host: McpHost, config: ServerConfig) -> None:
    result = run(executor_for(host, config), "t__broken", {})
    assert result["error"]["kind"] == "protocol"
    assert "answered with error -32603: broken on purpose" in result["error"]["message"]
    assert "protocol error" in result["error"]["hint"]


def test_images_are_summarised_never_dumped(host: McpHost, config: ServerConfig) -> None:
    result = run(executor_for(host, config), "t__picture", {})
    assert result["ok"] is True
    assert "[image: image/png, 12 bytes, not shown]" in result["data"]
    assert "aGVsbG8" not in json.dumps(result)
    assert "a picture of the world" in result["data"]


def test_a_crashed_server_is_unavailable_then_started_again(host: McpHost, host_home: Path) -> None:
    # The host's server `t`, started again for the next call as the other tests need it.
    # The call's deadline also bounds starting the server again, which a loaded machine may take
    # seconds to do; the crash itself is noticed long before it.
    config = server_config("t", timeout_s=30.0)
    executor = executor_for(host, config)
    assert run(executor, "t__echo", {"text": "up"})["data"] == {"result": "up"}  # running before the crash
    started = time.monotonic()
    result = run(executor, "t__crash", {})
    assert result["error"]["kind"] == "unavailable"
    assert "exited during the call" in result["error"]["message"]
    assert time.monotonic() - started < 10.0  # noticed at the exit, not at the 30 s deadline
    assert run(executor, "t__echo", {"text": "back"})["data"] == {"result": "back"}
    assert "crashing on purpose" in log_path(host_home, "t").read_text()


def test_a_server_that_cannot_start_is_unavailable(host_home: Path) -> None:
    host = McpHost(host_home)
    try:
        with pytest.raises(Exception, match="did not start: command not found"):
            server_specs(host, ServerConfig(name="ghost", command="/nonexistent/mcp-server"))
    finally:
        host.stop()


def test_calls_that_keep_failing_open_one_breaker_for_the_whole_server(host: McpHost, config: ServerConfig) -> None:
    fast = server_config(timeout_s=0.5)
    executor = executor_for(host, fast, breaker_threshold=2)
    assert run(executor, "t__hang", {})["error"]["kind"] == "timeout"
    assert run(executor, "t__hang", {})["error"]["kind"] == "timeout"
    # Another tool of the same server is switched off too: the breaker is the server's.
    assert run(executor, "t__echo", {"text": "x"})["error"]["kind"] == "unavailable"


def test_a_tool_without_annotations_asks_first_and_a_no_writes_nothing(
    host: McpHost, config: ServerConfig, tmp_path: Path
) -> None:
    asked: list[ApprovalRequest] = []

    def deny(request: ApprovalRequest) -> bool:
        asked.append(request)
        return False

    executor = executor_for(host, config, approve=deny)
    turn = executor.new_turn(1)  # one question: what the first call read is named at the second's prompt
    run(executor, "t__echo", {"text": "untrusted words"}, turn)
    result = run(executor, "t__note", {"text": "remember"}, turn)
    assert result["error"]["kind"] == "denied"
    [request] = asked
    assert "MCP tool 'note' on server 't'" in request.preview
    assert '"text": "remember"' in request.preview
    assert "may delete or overwrite" in request.preview  # no annotations: assume the worst
    assert request.untrusted_sources == ["MCP server t (echo)"]


def test_an_approved_side_effect_runs_and_destructive_hints_are_shown(host: McpHost, config: ServerConfig) -> None:
    asked: list[ApprovalRequest] = []

    def approve(request: ApprovalRequest) -> bool:
        asked.append(request)
        return True

    executor = executor_for(host, config, approve=approve)
    assert run(executor, "t__note", {"text": "remember"})["data"] == {"result": "noted: remember"}
    assert run(executor, "t__wipe", {"target": "cache"})["data"] == {"result": "wiped cache"}
    assert "may delete or overwrite data (destructiveHint)" in asked[1].preview
    specs = executor.registry
    assert specs["t__wipe"].idempotent and not specs["t__note"].idempotent


def test_ask_all_trust_asks_even_for_read_only_hints(host: McpHost) -> None:
    asked: list[str] = []

    def deny(request: ApprovalRequest) -> bool:
        asked.append(request.name)
        return False

    executor = executor_for(host, server_config(trust="ask-all"), approve=deny)
    assert run(executor, "t__echo", {"text": "x"})["error"]["kind"] == "denied"
    assert asked == ["t__echo"]


def test_the_allow_list_offers_only_the_named_tools(host: McpHost) -> None:
    names = [spec.name for spec in server_specs(host, server_config(tools=["echo", "note"]))]
    assert names == ["t__echo", "t__note"]


def test_the_model_gets_the_servers_json_schema(host: McpHost, config: ServerConfig) -> None:
    [schema] = responses_tools([Registry(server_specs(host, config))["t__slow"].definition()])
    assert schema["name"] == "t__slow" and schema["strict"] is False
    assert schema["parameters"]["properties"]["seconds"]["type"] == "number"
    assert schema["parameters"]["required"] == ["seconds"]


def test_read_only_runs_are_not_offered_the_servers_side_effects(host: McpHost, config: ServerConfig) -> None:
    offered = Registry(server_specs(host, config)).read_only()
    assert "t__echo" in offered and "t__note" not in offered and "t__wipe" not in offered
