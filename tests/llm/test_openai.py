"""The OpenAI adapter through the real openai SDK, against an llmock server on loopback."""

from __future__ import annotations

import asyncio
import json
import socket
import time
from pathlib import Path
from typing import Any

import pytest
from llmock.scenarios import Reply
from llmock.scenarios import ToolCall as MockCall

from atlas.calllog import CallLog
from atlas.conversation.loop import EMPTY_ANSWER, INSTRUCTIONS, TurnSettings, run_turn
from atlas.executor.executor import ToolExecutor
from atlas.foundation.errors import (
    ConfigError,
    ModelAuthError,
    ModelConnectionError,
    ModelNotFoundError,
    ModelProtocolError,
)
from atlas.llm.adapter import ModelAdapter, ModelRequest
from atlas.llm.openai import OpenAIModel
from atlas.protocol.events import Listener
from atlas.protocol.messages import ModelTurn
from atlas.runtime.session import record_turn, resolve
from atlas.runtime.toolset import load_registry
from atlas.tools.registry import Registry
from tests.llm import asking
from tests.llm.asking import QUESTION, failure, lookup_tools
from tests.support.heard import Heard
from tests.support.loopback import Loopback, QuietHandler
from tests.support.sse import response, send_events, usage

MODEL = "gpt-6-luna"


TOOLS = lookup_tools()


class Recording(ModelAdapter):
    """Passes requests to a model and keeps every turn it produced."""

    def __init__(self, model: OpenAIModel) -> None:
        self.inner = model
        self.name = model.name
        self.turns: list[ModelTurn] = []

    async def answer(self, request: ModelRequest) -> ModelTurn:
        turn = await request.to(self.inner)
        self.turns.append(turn)
        return turn


def ask(model: OpenAIModel, tools: Registry = TOOLS, events: Listener | None = None) -> ModelTurn:
    return asking.ask(model, tools, events)


def request_bodies(llmock: Any) -> list[dict[str, Any]]:
    return [record.body for record in llmock.requests if record.path.endswith("/responses")]


def test_resolve_builds_the_client_from_the_environment(llmock: Any) -> None:
    model = resolve(MODEL)
    assert isinstance(model, OpenAIModel)
    assert model.name == MODEL and model.base_url == llmock.base_url("openai")


def test_without_a_key_the_error_says_what_to_do() -> None:
    with pytest.raises(ModelAuthError, match=r"^set OPENAI_API_KEY or use --model offline$"):
        resolve(MODEL)


def test_a_bad_timeout_setting_is_a_config_error(llmock: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATLAS_MODEL_TIMEOUT", "soon")
    with pytest.raises(ConfigError, match="ATLAS_MODEL_TIMEOUT"):
        resolve(MODEL)


def test_a_plain_answer_is_streamed_in_order(llmock: Any) -> None:
    text = "ORB-1101 means the lease expired before the worker acknowledged the job (error-codes › ORB-1101)."
    llmock.reply(text)
    heard = Heard()
    turn = ask(OpenAIModel(MODEL), events=heard)
    assert turn.text == text and turn.is_final
    deltas = heard.texts()
    assert len(deltas) > 5 and "".join(deltas) == text
    assert turn.usage.input_tokens > 0 and turn.usage.output_tokens > 0
    body = request_bodies(llmock)[0]
    assert body["stream"] is True and body["model"] == MODEL and body["instructions"] == INSTRUCTIONS
    assert body["input"] == QUESTION
    assert body["tools"][0]["name"] == "lookup" and body["tools"][0]["strict"] is True


def test_parallel_calls_run_through_the_executor_and_are_fed_back(llmock: Any, tmp_path: Path) -> None:
    llmock.add(Reply(tool_calls=(MockCall("get_issue", {"issue_id": 41}), MockCall("get_issue", {"issue_id": 87}))))
    model = Recording(OpenAIModel(MODEL))
    executor = ToolExecutor(load_registry().read_only(), session="s1")
    history: list[dict[str, Any]] = []
    result = asyncio.run(run_turn("Compare #41 and #87", history, model=model, executor=executor, session="s1"))
    priced = record_turn(CallLog(tmp_path / "log.db"), "Compare #41 and #87", result, price_in=1, price_out=4)
    assert result.finished and result.rounds == 2
    assert [(c.name, c.arguments, c.kind) for c in result.calls] == [
        ("get_issue", {"issue_id": 41}, "ok"),
        ("get_issue", {"issue_id": 87}, "ok"),
    ]
    first, second = request_bodies(llmock)
    assert first["parallel_tool_calls"] is True
    assert {tool["name"] for tool in first["tools"]} == set(load_registry().read_only())
    sent = second["input"]
    call_ids = [item["call_id"] for item in sent if item.get("type") == "function_call"]
    outputs = {
        item["call_id"]: json.loads(item["output"]) for item in sent if item.get("type") == "function_call_output"
    }
    assert call_ids == [c.call_id for c in result.calls] and set(outputs) == set(call_ids)
    assert outputs[call_ids[0]]["ok"] is True and outputs[call_ids[0]]["data"]["id"] == 41
    assert result.answer == model.turns[1].text != ""
    assert result.usage == model.turns[0].usage + model.turns[1].usage
    spent = result.usage
    assert priced.cost_usd == pytest.approx((spent.input_tokens * 1 + spent.output_tokens * 4) / 1_000_000)


def test_several_rounds_without_parallel_calls(llmock: Any) -> None:
    llmock.call_tool("lookup", {"key": "a"}).call_tool("lookup", {"key": "b"})
    model = Recording(OpenAIModel(MODEL))
    result = asyncio.run(
        run_turn(
            "a then b",
            [],
            model=model,
            executor=ToolExecutor(TOOLS, session="s1"),
            session="s1",
            settings=TurnSettings(parallel=False),
        )
    )
    assert result.rounds == 3 and result.finished
    assert [(c.round, c.arguments) for c in result.calls] == [(1, {"key": "a"}), (2, {"key": "b"})]
    bodies = request_bodies(llmock)
    assert len(bodies) == 3 and all(body["parallel_tool_calls"] is False for body in bodies)
    assert sum(item.get("type") == "function_call_output" for item in bodies[2]["input"]) == 2
    assert result.usage == sum((turn.usage for turn in model.turns[1:]), model.turns[0].usage)
    assert result.usage.input_tokens > 0


def test_an_unknown_model_is_named(llmock: Any) -> None:
    llmock.fail(404)
    message = failure(OpenAIModel("gpt-9-nope"), ModelNotFoundError)
    assert "'gpt-9-nope'" in message and "not found" in message


def test_a_stalled_stream_fails_in_bounded_time(llmock: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATLAS_MODEL_TIMEOUT", "1")
    llmock.stall(after_chunks=3, seconds=4)
    started = time.monotonic()
    model = resolve(MODEL)
    assert isinstance(model, OpenAIModel)
    message = failure(model, ModelConnectionError)
    assert time.monotonic() - started < 3
    assert "stalled" in message and "1 s" in message


def test_a_refused_connection_names_the_base_url() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again before the request: nothing listens there
    url = f"http://127.0.0.1:{port}/v1"
    message = failure(OpenAIModel(MODEL, api_key="k", base_url=url, max_retries=0), ModelConnectionError)
    assert message.startswith(f"could not reach {url}")


class CannedEvents(Loopback):
    """A loopback server that answers every Responses request with the same server-sent events."""

    def __init__(self, events: list[dict[str, Any]]) -> None:
        class Handler(QuietHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", 0)))
                send_events(self, events)

        super().__init__(Handler, path="/v1")


def response_object(status: str, **fields: Any) -> dict[str, Any]:
    return response(status, model=MODEL, **fields)


@pytest.mark.parametrize(
    ("event", "expected"),
    [
        (
            {"type": "error", "code": "server_error", "message": "The model crashed.", "param": None},
            "the model 'gpt-6-luna' reported an error: The model crashed. (server_error)",
        ),
        (
            {
                "type": "response.failed",
                "response": response_object("failed", error={"code": "server_error", "message": "Out of\nmemory."}),
            },
            "the model 'gpt-6-luna' failed: Out of memory. (server_error)",
        ),
        (
            {
                "type": "response.incomplete",
                "response": response_object("incomplete", incomplete_details={"reason": "max_output_tokens"}),
            },
            "the model 'gpt-6-luna' stopped before finishing: max_output_tokens",
        ),
    ],
)
def test_a_failure_reported_inside_the_stream(event: dict[str, Any], expected: str) -> None:
    start = [{"type": "response.created", "response": response_object("in_progress")}]
    with CannedEvents([*start, event]) as server:
        message = failure(OpenAIModel(MODEL, api_key="k", base_url=server.url), ModelProtocolError)
    assert message == expected


def test_an_empty_answer_is_called_what_it_is(llmock: Any) -> None:
    llmock.reply("")
    history: list[dict[str, Any]] = []
    executor = ToolExecutor(TOOLS, session="s1")
    result = asyncio.run(run_turn("q", history, model=OpenAIModel(MODEL), executor=executor, session="s1"))
    assert result.finished and result.answer == EMPTY_ANSWER
    assert history[-1] == {"role": "assistant", "content": EMPTY_ANSWER}


def test_a_refusal_is_shown_as_the_answer() -> None:
    refusal = "I can't help with that."
    refused = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "refusal", "refusal": refusal}],
    }
    events = [
        {"type": "response.created", "response": response_object("in_progress")},
        {"type": "response.refusal.delta", "item_id": "msg_1", "output_index": 0, "content_index": 0, "delta": refusal},
        {
            "type": "response.completed",
            "response": response_object("completed", output=[refused], usage=usage(12, 7, 19)),
        },
    ]
    heard = Heard()
    with CannedEvents(events) as server:
        turn = ask(OpenAIModel(MODEL, api_key="k", base_url=server.url), Registry(), events=heard)
    assert turn.text == refusal == "".join(heard.texts())
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == (12, 7)
