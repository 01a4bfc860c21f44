"""One contract, both OpenAI-wire adapters: the same conversations give the same calls, outputs,
answers and failures, whichever API the server speaks. Run against llmock over loopback."""

from __future__ import annotations

import asyncio
import json
from typing import Any

import pytest
from llmock.scenarios import Reply
from llmock.scenarios import ToolCall as MockCall

from atlas.conversation.loop import TurnResult, TurnSettings, run_turn
from atlas.executor.executor import ToolExecutor
from atlas.foundation.errors import (
    ModelAuthError,
    ModelConnectionError,
    ModelError,
    ModelProtocolError,
    RateLimitedError,
)
from atlas.llm import Model
from atlas.runtime.session import resolve
from atlas.runtime.toolset import load_registry
from tests.llm.canned import Canned

MODEL = "gpt-6-luna"
APIS = ["responses", "chat"]


def model_for(api: str) -> Model:
    return resolve(MODEL, api)


def answer(api: str, question: str, *, parallel: bool = True) -> TurnResult:
    executor = ToolExecutor(load_registry().read_only(), session="s1")
    return asyncio.run(
        run_turn(
            question,
            [],
            model=model_for(api),
            executor=executor,
            session="s1",
            settings=TurnSettings(parallel=parallel),
        )
    )


def fed_back_outputs(llmock: Any, api: str) -> list[dict[str, Any]]:
    """The tool outputs the last request carried, as the model read them, in order."""
    body = llmock.requests[-1].body
    if api == "chat":
        return [json.loads(m["content"]) for m in body["messages"] if m["role"] == "tool"]
    return [json.loads(item["output"]) for item in body["input"] if item.get("type") == "function_call_output"]


@pytest.mark.parametrize("api", APIS)
def test_the_same_parallel_calls_give_the_same_records_and_outputs(llmock: Any, api: str) -> None:
    llmock.add(
        Reply(tool_calls=(MockCall("get_issue", {"issue_id": 41}), MockCall("search_issues", {"query": "lease"})))
    )
    llmock.reply("#41 is about leases (leases › expiry).")
    result = answer(api, "What is #41 and what do the docs say about leases?")
    assert result.finished and result.rounds == 2 and result.answer == "#41 is about leases (leases › expiry)."
    assert [(c.round, c.name, c.arguments, c.kind) for c in result.calls] == [
        (1, "get_issue", {"issue_id": 41}, "ok"),
        (1, "search_issues", {"query": "lease"}, "ok"),
    ]
    outputs = fed_back_outputs(llmock, api)
    assert [output["ok"] for output in outputs] == [True, True]
    assert outputs[0]["data"]["id"] == 41 and outputs[1]["data"]
    assert result.usage.known and result.usage.input_tokens > 0


@pytest.mark.parametrize("api", APIS)
def test_the_same_rounds_one_call_at_a_time(llmock: Any, api: str) -> None:
    llmock.call_tool("get_issue", {"issue_id": 41}).call_tool("get_issue", {"issue_id": 10**6}).reply("Done.")
    result = answer(api, "Show #41 then #1000000", parallel=False)
    assert (result.rounds, result.answer) == (3, "Done.")
    assert [(c.round, c.arguments, c.kind) for c in result.calls] == [
        (1, {"issue_id": 41}, "ok"),
        (2, {"issue_id": 10**6}, "permanent"),
    ]
    assert [output["ok"] for output in fed_back_outputs(llmock, api)] == [True, False]


@pytest.mark.parametrize("api", APIS)
def test_broken_arguments_are_bad_args_on_both(llmock: Any, api: str) -> None:
    llmock.break_tool_call("malformed_arguments")
    result = answer(api, "Show #41")
    assert [c.kind for c in result.calls] == ["bad_args"] and result.finished


@pytest.mark.parametrize("api", APIS)
@pytest.mark.parametrize(
    ("fault", "expected"),
    [
        (lambda mock: mock.fail(401), ModelAuthError),
        (lambda mock: mock.rate_limit(times=3, retry_after=0.01), RateLimitedError),
        (lambda mock: mock.disconnect(after_chunks=3), ModelConnectionError),
        (lambda mock: mock.truncate(after_chunks=3), ModelProtocolError),
        (lambda mock: mock.corrupt(after_chunks=3), ModelProtocolError),
    ],
    ids=["401", "429", "dropped", "truncated", "malformed"],
)
def test_the_same_fault_is_the_same_error(llmock: Any, api: str, fault: Any, expected: type[ModelError]) -> None:
    fault(llmock)
    with pytest.raises(expected) as caught:
        answer(api, "What does ORB-1101 mean?")
    assert type(caught.value) is expected and llmock.base_url("openai") in str(caught.value)


@pytest.mark.parametrize("api", APIS)
def test_a_server_without_the_endpoint_says_what_to_try(api: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """A FastAPI or Go server answers an unknown route 404 in its own shape, not OpenAI's."""
    with Canned(b'{"detail": "Not Found"}', status=404, content_type="application/json") as server:
        monkeypatch.setenv("ATLAS_BASE_URL", server.url)
        adapter = model_for(api)
        with pytest.raises(ModelError) as caught:
            asyncio.run(adapter.respond("i", [{"role": "user", "content": "q"}], load_registry().definitions()))
    message = str(caught.value)
    if api == "responses":
        assert "has no /responses endpoint (404)" in message and "--api chat" in message
    else:
        assert "has no /chat/completions endpoint (404)" in message and "ATLAS_BASE_URL" in message
