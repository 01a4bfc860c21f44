"""Every read tool's result reaches the model whole through both wire adapters, or cut with a visible marker.

Each built-in read tool runs through the real executor; the next request, through the real openai SDK to
llmock on loopback, must carry its output exactly as the executor wrote it: the tool's whole data, or (past
the executor's cap) data marked `"truncated": true` whose cut text says how much is missing.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest
from llmock.scenarios import Reply
from llmock.scenarios import ToolCall as MockCall
from pydantic import BaseModel

from atlas.conversation.loop import run_turn
from atlas.executor.executor import ToolExecutor
from atlas.llm.chat_completions import ChatCompletionsModel
from atlas.llm.openai import OpenAIModel
from atlas.runtime.toolset import load_registry
from atlas.tools.registry import Registry, ToolContext, ToolSpec, strict_arguments
from tests.support.fitted import seed_fitted
from tests.support.read_calls import READ_REQUESTS

MODEL = "gpt-6-luna"


class NoArgs(BaseModel):
    pass


def big_report(args: NoArgs, ctx: ToolContext) -> dict[str, Any]:
    return {"rows": [f"row {n}: " + "x" * 200 for n in range(200)]}


def sent_outputs(llmock: Any, api: str) -> dict[str, str]:
    """call_id → the output text the second request carried, as the server received it."""
    if api == "responses":
        body = [r.body for r in llmock.requests if r.path.endswith("/responses")][-1]
        return {i["call_id"]: i["output"] for i in body["input"] if i.get("type") == "function_call_output"}
    body = [r.body for r in llmock.requests if r.path.endswith("/chat/completions")][-1]
    return {m["tool_call_id"]: m["content"] for m in body["messages"] if m["role"] == "tool"}


def ask_with(
    llmock: Any, api: str, registry: Registry, name: str, arguments: dict[str, Any]
) -> tuple[Any, dict[str, str]]:
    llmock.add(Reply(tool_calls=(MockCall(name, arguments),)))
    llmock.reply("Done.")
    model = OpenAIModel(MODEL) if api == "responses" else ChatCompletionsModel(MODEL)
    history: list[dict[str, Any]] = []
    executor = ToolExecutor(registry, session="s1")
    result = asyncio.run(run_turn("q", history, model=model, executor=executor, session="s1"))
    assert result.finished and [c.kind for c in result.calls] == ["ok"]
    kept = {i["call_id"]: i["output"] for i in history if i.get("type") == "function_call_output"}
    return result, kept


@pytest.fixture(scope="module")
def read_home(fitted_home: Path, tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A state folder holding the bundled data's triage model (the run's one fit): these tests are
    about what reaches the model, and a first fit beside a busy suite's other tests can outlast a tool's deadline."""
    return seed_fitted(fitted_home, tmp_path_factory.mktemp("read-home"))


@pytest.mark.parametrize("api", ["responses", "chat"])
@pytest.mark.parametrize("name", sorted(READ_REQUESTS))
def test_each_read_tool_s_whole_result_reaches_the_model(
    llmock: Any, api: str, name: str, read_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ATLAS_HOME", str(read_home))
    registry = load_registry([]).read_only()
    _, arguments = READ_REQUESTS[name]
    _, kept = ask_with(llmock, api, registry, name, arguments)
    sent = sent_outputs(llmock, api)
    assert sent == kept  # byte for byte what the executor wrote
    (output,) = sent.values()
    envelope = json.loads(output)
    spec = registry[name]
    data = spec.fn(strict_arguments(spec.args_model, arguments), ToolContext())
    assert envelope["ok"] is True
    if envelope.get("truncated"):
        assert "[truncated:" in output  # cut, and the cut says so
    else:
        assert envelope["data"] == json.loads(json.dumps(data))


@pytest.mark.parametrize("api", ["responses", "chat"])
def test_a_result_past_the_cap_reaches_the_model_marked_as_cut(llmock: Any, api: str) -> None:
    registry = Registry([ToolSpec("big_report", big_report, NoArgs, "A long report.")])
    _, kept = ask_with(llmock, api, registry, "big_report", {})
    (output,) = sent_outputs(llmock, api).values()
    envelope = json.loads(output)
    assert output == next(iter(kept.values()))
    assert envelope["truncated"] is True and "[truncated:" in output and "row 0: " in output
