"""The Chat Completions adapter through the real openai SDK, against llmock's chat wire on loopback."""

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
from atlas.conversation.loop import INSTRUCTIONS, TurnSettings, run_turn
from atlas.executor.executor import ToolExecutor
from atlas.foundation.errors import (
    ModelAuthError,
    ModelConnectionError,
    ModelError,
    ModelNotFoundError,
)
from atlas.llm.chat_completions import ChatCompletionsModel
from atlas.llm.notes import CUT_OFF, FILTERED, UNSENT_CALL
from atlas.llm.openai_client import PLACEHOLDER_KEY
from atlas.protocol.events import Listener
from atlas.protocol.messages import ModelTurn, Usage
from atlas.runtime.session import record_turn, resolve
from atlas.runtime.toolset import load_registry
from atlas.tools.registry import Registry
from tests.llm import asking
from tests.llm.asking import QUESTION, KeyArgs, failure, lookup_tools
from tests.llm.canned import Canned, chat_stream, usage_chunk
from tests.support.heard import Heard

MODEL = "qwen2.5-7b-instruct"


class NoteArgs(KeyArgs):
    note: str = ""


TOOLS = lookup_tools(NoteArgs)


def ask(model: ChatCompletionsModel, tools: Registry = TOOLS, events: Listener | None = None) -> ModelTurn:
    return asking.ask(model, tools, events)


def chat_bodies(llmock: Any) -> list[dict[str, Any]]:
    return [record.body for record in llmock.requests if record.path.endswith("/chat/completions")]


def test_resolve_chooses_the_chat_adapter(llmock: Any) -> None:
    model = resolve(MODEL, "chat")
    assert isinstance(model, ChatCompletionsModel)
    assert model.base_url == llmock.base_url("openai")


def test_a_base_url_without_a_key_sends_a_placeholder(monkeypatch: pytest.MonkeyPatch) -> None:
    stream = chat_stream({"delta": {"content": "Local answer."}}, {"finish_reason": "stop"})
    with Canned(stream) as server:
        monkeypatch.setenv("OPENAI_BASE_URL", "http://elsewhere.invalid/v1")
        monkeypatch.setenv("ATLAS_BASE_URL", server.url)  # wins over OPENAI_BASE_URL
        assert ask(ChatCompletionsModel(MODEL)).text == "Local answer."
    assert server.headers[0]["authorization"] == f"Bearer {PLACEHOLDER_KEY}"
    assert server.paths == ["/v1/chat/completions"]


def test_without_a_key_or_a_base_url_the_error_says_what_to_do() -> None:
    with pytest.raises(ModelAuthError, match=r"^set OPENAI_API_KEY or use --model offline$"):
        ChatCompletionsModel(MODEL)


def test_a_plain_answer_is_streamed_in_order_with_usage(llmock: Any) -> None:
    text = "ORB-1101 means the lease expired before the worker acknowledged the job (error-codes › ORB-1101)."
    llmock.reply(text)
    heard = Heard()
    turn = ask(ChatCompletionsModel(MODEL), events=heard)
    deltas = heard.texts()
    assert turn.text == text and turn.is_final
    assert len(deltas) > 5 and "".join(deltas) == text
    assert turn.usage.known and turn.usage.input_tokens > 0 and turn.usage.output_tokens > 0
    body = chat_bodies(llmock)[0]
    assert body["stream"] is True and body["stream_options"] == {"include_usage": True} and body["model"] == MODEL
    assert body["messages"] == [{"role": "system", "content": INSTRUCTIONS}, *QUESTION]
    function = body["tools"][0]["function"]
    assert body["tools"][0]["type"] == "function" and function["name"] == "lookup" and function["strict"] is True
    assert set(function["parameters"]["required"]) == {"key", "note"}


def test_no_tools_means_no_tool_fields(llmock: Any) -> None:
    llmock.reply("Plain.")
    ask(ChatCompletionsModel(MODEL), Registry())
    body = chat_bodies(llmock)[0]
    assert "tools" not in body and "parallel_tool_calls" not in body


def test_parallel_calls_run_and_are_fed_back_as_tool_messages(llmock: Any, tmp_path: Path) -> None:
    llmock.add(Reply(tool_calls=(MockCall("get_issue", {"issue_id": 41}), MockCall("get_issue", {"issue_id": 87}))))
    executor = ToolExecutor(load_registry().read_only(), session="s1")
    result = asyncio.run(
        run_turn(
            "Compare #41 and #87",
            [],
            model=ChatCompletionsModel(MODEL),
            executor=executor,
            session="s1",
        )
    )
    assert result.finished and result.rounds == 2 and result.answer
    assert [(c.name, c.arguments, c.kind) for c in result.calls] == [
        ("get_issue", {"issue_id": 41}, "ok"),
        ("get_issue", {"issue_id": 87}, "ok"),
    ]
    first, second = chat_bodies(llmock)
    assert first["parallel_tool_calls"] is True
    assert {tool["function"]["name"] for tool in first["tools"]} == set(load_registry().read_only())
    system, user, assistant, *tool_messages = second["messages"]
    assert system["role"] == "system" and user == {"role": "user", "content": "Compare #41 and #87"}
    ids = [call["id"] for call in assistant["tool_calls"]]
    assert assistant["role"] == "assistant" and assistant["content"] == ""  # not null: some servers refuse it
    assert ids == [c.call_id for c in result.calls]
    assert [json.loads(call["function"]["arguments"]) for call in assistant["tool_calls"]] == [
        {"issue_id": 41},
        {"issue_id": 87},
    ]
    assert [(m["role"], m["tool_call_id"]) for m in tool_messages] == [("tool", ids[0]), ("tool", ids[1])]
    assert json.loads(tool_messages[0]["content"])["data"]["id"] == 41
    usage = result.usage
    assert usage.known and usage.input_tokens > 0
    priced = record_turn(CallLog(tmp_path / "log.db"), "Compare #41 and #87", result, price_in=1, price_out=4)
    assert priced.cost_usd == pytest.approx((usage.input_tokens * 1 + usage.output_tokens * 4) / 1_000_000)


def test_several_rounds_one_call_at_a_time(llmock: Any) -> None:
    llmock.call_tool("lookup", {"key": "a", "note": ""}).call_tool("lookup", {"key": "b", "note": ""})
    result = asyncio.run(
        run_turn(
            "a then b",
            [],
            model=ChatCompletionsModel(MODEL),
            executor=ToolExecutor(TOOLS, session="s1"),
            session="s1",
            settings=TurnSettings(parallel=False),
        )
    )
    assert result.rounds == 3 and result.finished
    assert [(c.round, c.arguments["key"]) for c in result.calls] == [(1, "a"), (2, "b")]
    bodies = chat_bodies(llmock)
    assert len(bodies) == 3 and all(body["parallel_tool_calls"] is False for body in bodies)
    roles = [message["role"] for message in bodies[2]["messages"]]
    assert roles == ["system", "user", "assistant", "tool", "assistant", "tool"]


def test_arguments_split_across_many_chunks_are_assembled(llmock: Any) -> None:
    note = "a long note " * 20  # llmock sends arguments 12 characters at a time: 20+ chunks
    llmock.call_tool("lookup", {"key": "k", "note": note})
    turn = ask(ChatCompletionsModel(MODEL))
    assert [json.loads(call.arguments) for call in turn.calls] == [{"key": "k", "note": note}]


def test_ids_and_names_split_across_deltas_and_calls_interleaved() -> None:
    def part(index: int, **fields: Any) -> dict[str, Any]:
        return {"delta": {"tool_calls": [{"index": index, **fields}]}}

    stream = chat_stream(
        part(0, id="call_a", type="function", function={"name": "look", "arguments": ""}),
        part(0, function={"name": "up", "arguments": '{"ke'}),
        part(1, type="function", function={"name": "lookup", "arguments": '{"key": "y", '}),
        part(0, function={"arguments": 'y": "x", "note": ""}'}),
        part(1, function={"arguments": '"note": ""}'}),
        {"finish_reason": "tool_calls"},
        usage_chunk({"prompt_tokens": 30, "completion_tokens": 9, "total_tokens": 39}),
    )
    with Canned(stream) as server:
        turn = ask(ChatCompletionsModel(MODEL, api_key="k", base_url=server.url))
    first, second = turn.calls
    assert (first.name, first.call_id, json.loads(first.arguments)) == ("lookup", "call_a", {"key": "x", "note": ""})
    assert second.name == "lookup" and json.loads(second.arguments) == {"key": "y", "note": ""}
    assert second.call_id and second.call_id != first.call_id  # the server sent none: one is made
    assert turn.usage == Usage(30, 9)


def test_arguments_that_are_not_json_are_bad_args(llmock: Any) -> None:
    llmock.break_tool_call("malformed_arguments")
    result = asyncio.run(
        run_turn(
            "look", [], model=ChatCompletionsModel(MODEL), executor=ToolExecutor(TOOLS, session="s1"), session="s1"
        )
    )
    assert [c.kind for c in result.calls] == ["bad_args"] and result.finished


def test_an_unknown_model_is_named(llmock: Any) -> None:
    llmock.fail(404, message="The model `nope-7b` does not exist.")
    message = failure(ChatCompletionsModel("nope-7b"), ModelNotFoundError)
    assert "'nope-7b'" in message and "not found" in message and "--api chat" not in message


def test_a_stalled_stream_fails_in_bounded_time(llmock: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ATLAS_MODEL_TIMEOUT", "1")
    llmock.stall(after_chunks=3, seconds=4)
    started = time.monotonic()
    message = failure(ChatCompletionsModel(MODEL), ModelConnectionError)
    assert time.monotonic() - started < 3 and "stalled" in message and "1 s" in message
    assert len(chat_bodies(llmock)) == 1  # and it was not tried again


def test_a_refused_connection_names_the_base_url() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]
    url = f"http://127.0.0.1:{port}/v1"
    message = failure(ChatCompletionsModel(MODEL, api_key="k", base_url=url, max_retries=0), ModelConnectionError)
    assert message.startswith(f"could not reach {url}")


def test_a_refusal_is_shown_as_the_answer() -> None:
    refusal = "I can't help with that."
    stream = chat_stream({"delta": {"role": "assistant", "refusal": refusal}}, {"finish_reason": "stop"})
    heard = Heard()
    with Canned(stream) as server:
        turn = ask(ChatCompletionsModel(MODEL, api_key="k", base_url=server.url), events=heard)
    assert turn.text == refusal == "".join(heard.texts()) and turn.is_final


@pytest.mark.parametrize(("finish", "note"), [("length", CUT_OFF), ("content_filter", FILTERED)])
def test_a_finish_reason_that_stopped_the_answer_is_noted(llmock: Any, finish: str, note: str) -> None:
    llmock.add(Reply(text="The lease expired because", finish_reason=finish))
    heard = Heard()
    turn = ask(ChatCompletionsModel(MODEL), events=heard)
    assert turn.text == f"The lease expired because\n\n{note}" == "".join(heard.texts())


@pytest.mark.parametrize(
    "text",
    [
        '{"name": "lookup", "arguments": {"key": "x"}}',
        '```json\n{"name": "lookup", "parameters": {"key": "x"}}\n```',
        '[{"type": "function", "function": {"name": "lookup", "arguments": "{}"}}]',
    ],
)
def test_a_tool_call_written_as_text_gets_a_note(llmock: Any, text: str) -> None:
    llmock.reply(text)
    turn = ask(ChatCompletionsModel(MODEL))
    assert turn.is_final and turn.text == f"{text}\n\n{UNSENT_CALL}"


@pytest.mark.parametrize(
    "text", ['{"name": "not_a_tool", "arguments": {}}', '{"key": "x"}', 'Use lookup with {"key": "x"}.']
)
def test_json_that_is_not_an_unsent_call_gets_no_note(llmock: Any, text: str) -> None:
    llmock.reply(text)
    assert ask(ChatCompletionsModel(MODEL)).text == text


@pytest.mark.parametrize(
    "usage",
    [
        None,
        {"prompt_tokens": -5, "completion_tokens": 3},
        {"prompt_tokens": 10**400, "completion_tokens": 3},
        {"prompt_tokens": "12", "completion_tokens": 3},
        {"prompt_tokens": 1e308, "completion_tokens": 3},
        {"prompt_tokens": True, "completion_tokens": 3},
        {"completion_tokens": 3},
        "lots",
    ],
)
def test_usage_that_is_absent_or_impossible_is_unknown_and_the_answer_stands(usage: Any) -> None:
    chunks: list[dict[str, Any]] = [{"delta": {"content": "Answered."}}, {"finish_reason": "stop"}]
    if usage is not None:
        chunks.append(usage_chunk(usage))
    # 10**400 is valid JSON for a server to send, though Python's json.dumps writes it too.
    with Canned(chat_stream(*chunks)) as server:
        turn = ask(ChatCompletionsModel(MODEL, api_key="k", base_url=server.url))
    assert turn.text == "Answered." and not turn.usage.known
    assert (turn.usage.input_tokens, turn.usage.output_tokens) == (0, 0)


def test_a_server_that_refuses_stream_options_is_asked_again_without(monkeypatch: pytest.MonkeyPatch) -> None:
    refusal = json.dumps({"error": {"message": "Unrecognized request argument supplied: stream_options"}})
    answer = chat_stream({"delta": {"content": "Answered."}}, {"finish_reason": "stop"})

    def respond(body: dict[str, Any]) -> tuple[int, bytes]:
        return (400, refusal.encode()) if "stream_options" in body else (200, answer)

    with Canned(respond) as server:
        model = ChatCompletionsModel(MODEL, api_key="k", base_url=server.url)
        first, second = ask(model), asyncio.run(model.respond(INSTRUCTIONS, QUESTION, TOOLS.definitions()))
    assert first.text == second.text == "Answered." and not first.usage.known
    assert ["stream_options" in body for body in server.bodies] == [True, False, False]  # asked once only


def test_another_bad_request_is_not_retried() -> None:
    refusal = json.dumps({"error": {"message": "messages: too long"}})
    with Canned(refusal.encode(), status=400, content_type="application/json") as server:
        message = failure(ChatCompletionsModel(MODEL, api_key="k", base_url=server.url), ModelError)
    assert "answered 400: messages: too long" in message and len(server.bodies) == 1


def test_chunks_with_fields_of_the_wrong_type_cost_nothing_but_those_fields() -> None:
    stream = chat_stream(
        {"choices": "not a list"},
        {"delta": None},
        {"delta": {"content": 42}},
        {"delta": {"content": "Kept."}},
        {"delta": {"tool_calls": [{"index": "0", "id": 7, "function": {"name": ["x"], "arguments": 12}}]}},
        {"delta": {"tool_calls": [{"index": 0, "id": "call_ok", "function": {"name": "lookup", "arguments": "{}"}}]}},
        {"finish_reason": 3},
        {"finish_reason": "tool_calls"},
    )
    with Canned(stream) as server:
        turn = ask(ChatCompletionsModel(MODEL, api_key="k", base_url=server.url))
    assert turn.text == "Kept."
    assert [(call.name, call.arguments, call.call_id) for call in turn.calls] == [("lookup", "{}", "call_ok")]


def test_a_server_that_wants_a_key_when_none_is_set_says_so(monkeypatch: pytest.MonkeyPatch) -> None:
    refusal = json.dumps({"error": {"message": "Missing bearer token."}})
    with Canned(refusal.encode(), status=401, content_type="application/json") as server:
        monkeypatch.setenv("ATLAS_BASE_URL", server.url)
        message = failure(ChatCompletionsModel(MODEL), ModelAuthError)
    assert message == f"{server.url} refused the API key (401) (no OPENAI_API_KEY is set: this server needs one): " + (
        "Missing bearer token."
    )
