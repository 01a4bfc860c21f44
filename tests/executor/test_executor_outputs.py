"""Model-facing outputs: capped with a visible marker, always valid JSON, whatever the tool returned."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from atlas.executor.executor import ToolExecutor
from atlas.executor.outputs import capped_output
from atlas.protocol.deadline import QuestionDeadline
from atlas.protocol.envelope import dumps, envelope_ok
from atlas.protocol.events import ApprovalRequest
from atlas.tools.registry import ToolContext
from tests.support.executor_fakes import Recorder, SleepArgs, call, envelope, kind_of, registry, spec

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=3000),
    lambda children: st.lists(children, max_size=30) | st.dictionaries(st.text(max_size=20), children, max_size=30),
    max_leaves=200,
)


@settings(max_examples=60, deadline=None)
@given(data=json_values, limit=st.integers(min_value=400, max_value=9000))
def test_capped_output_is_valid_json_within_the_limit(data: Any, limit: int) -> None:
    envelope_in = envelope_ok(data, untrusted=True)
    text = capped_output(envelope_in, limit)
    parsed = json.loads(text)
    assert len(text) <= limit
    assert parsed["ok"] is True and parsed["untrusted"] is True
    if dumps(envelope_in) == text:
        assert "truncated" not in parsed
    else:
        assert parsed["truncated"] is True
        assert "[truncated:" in text


def test_a_result_that_cannot_be_serialised_is_an_unknown_error_not_a_crash() -> None:
    def loop(args: SleepArgs, ctx: ToolContext) -> dict[str, Any]:
        data: dict[str, Any] = {}
        data["self"] = data
        return data

    executor = ToolExecutor(registry(spec("loop", loop)))
    output = asyncio.run(executor.run_one(call("loop", "c1")))
    assert kind_of(output) == "unknown"
    assert "could not be serialised" in envelope(output)["error"]["message"]
    assert executor.log[0].kind == "unknown"


def test_no_human_is_asked_when_the_budget_cannot_fit_the_call() -> None:

    asked: list[ApprovalRequest] = []
    recorder = Recorder()

    def approve(request: ApprovalRequest) -> bool:
        asked.append(request)
        return True

    executor = ToolExecutor(registry(spec("write", recorder, side_effect=True)), approve=approve)
    turn = executor.new_turn(1, deadline=QuestionDeadline.within(0.3))
    output = asyncio.run(executor.run_one(call("write", "c1"), turn=turn))
    assert kind_of(output) == "no_time_budget"
    assert "time budget" in envelope(output)["error"]["hint"]
    assert asked == [] and recorder.contexts == []
