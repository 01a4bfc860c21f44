"""What the model is told when a tool fails in a way that invites the wrong next step.

A side effect that timed out may still land, so it must not read as retryable; an id no SQLite
integer can hold is the model's mistake (`bad_args`), not an internal error; a dataset that is
missing is no reason to tell the model to "use ids the user gave".
"""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from atlas.conversation.loop import run_turn
from atlas.executor.executor import ToolExecutor
from atlas.llm.scripted import ScriptedModel
from atlas.protocol.events import ApprovalRequest
from atlas.runtime.toolset import load_registry
from atlas.tools.registry import Registry, ToolContext, ToolSpec
from tests.support.run import assert_no_traceback, atlas_env, invoke, logged_calls, write_script

HUGE = 10**30


class NoteArgs(BaseModel):
    text: str


def slow_note(args: NoteArgs, ctx: ToolContext) -> dict[str, str]:
    time.sleep(1.5)  # past its deadline: the write may land after the executor gave up on it
    return {"noted": args.text}


def _outputs(model: ScriptedModel, request: int) -> list[dict[str, Any]]:
    items = model.requests[request].items
    return [json.loads(item["output"]) for item in items if item.get("type") == "function_call_output"]


def test_a_side_effect_that_times_out_is_not_retryable_and_may_have_taken_effect() -> None:
    spec = ToolSpec("write_note", slow_note, NoteArgs, "Write a note.", side_effect=True, timeout_s=0.3)
    asked: list[ApprovalRequest] = []

    def approve(request: ApprovalRequest) -> bool:
        asked.append(request)
        return True

    model = ScriptedModel(
        [{"calls": [{"name": "write_note", "arguments": {"text": "hello"}}]}, {"text": "It may have been written."}]
    )
    executor = ToolExecutor(Registry([spec]), approve=approve, session="s1")
    result = asyncio.run(run_turn("Write a note", [], model=model, executor=executor, session="s1"))

    assert result.finished and len(asked) == 1
    (output,) = _outputs(model, 1)
    error = output["error"]
    assert error["kind"] == "timeout" and error["retryable"] is False, error
    assert "may have taken effect" in error["message"]
    assert "Do not retry" in error["hint"]


def test_a_read_that_times_out_stays_retryable() -> None:
    spec = ToolSpec("read_note", slow_note, NoteArgs, "Read a note.", timeout_s=0.3)
    model = ScriptedModel([{"calls": [{"name": "read_note", "arguments": {"text": "x"}}]}, {"text": "Timed out."}])
    executor = ToolExecutor(Registry([spec]), session="s1")
    asyncio.run(run_turn("Read", [], model=model, executor=executor, session="s1"))
    (output,) = _outputs(model, 1)
    assert output["error"]["kind"] == "timeout" and output["error"]["retryable"] is True


def test_an_id_no_sqlite_integer_holds_is_bad_args_for_every_tool_taking_one(tmp_path: Path) -> None:
    env = atlas_env(tmp_path / "home")
    registry = load_registry()
    offered = registry.definitions()
    with_ids = [tool.name for tool in offered if "issue_id" in tool.parameters["properties"]]
    assert {"get_issue", "add_label", "post_comment"} <= set(with_ids)
    arguments = {"get_issue": {}, "add_label": {"label": "type:bug"}, "post_comment": {"body": "hi"}}
    calls = [{"name": name, "arguments": {"issue_id": HUGE, **arguments.get(name, {})}} for name in with_ids]
    model = write_script(tmp_path, [{"calls": calls}, {"text": "No such issues."}])

    asked = invoke("ask", "--json", "-m", model, "Read #1000000000000000000000000000000", env=env)

    assert asked.code == 0, asked
    assert_no_traceback(asked)
    kinds = {call["name"]: (call["kind"], call["message"]) for call in logged_calls(env)}
    for name in with_ids:
        kind, message = kinds[name]
        assert kind == "bad_args", (name, kind, message)
        assert "OverflowError" not in (message or "")


def test_a_missing_dataset_is_not_blamed_on_the_ids(tmp_path: Path) -> None:
    spec = load_registry().get("get_issue")
    assert spec is not None
    context = ToolContext(data=tmp_path / "no-such-data", home=tmp_path / "home")
    model = ScriptedModel([{"calls": [{"name": "get_issue", "arguments": {"issue_id": 41}}]}, {"text": "Unreadable."}])
    executor = ToolExecutor(Registry([spec]), session="s1", context=context)
    asyncio.run(run_turn("Read #41", [], model=model, executor=executor, session="s1"))

    (output,) = _outputs(model, 1)
    assert output["error"]["kind"] == "permanent", output
    assert "use ids the user gave" not in output["error"]["hint"]
    assert "cannot be read" in output["error"]["hint"]
