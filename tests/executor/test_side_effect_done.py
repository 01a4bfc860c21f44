"""Every side effect's result says whether it happened: true, false, or "unknown" (it may have)."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from atlas.conversation.loop import INSTRUCTIONS
from atlas.executor.executor import ToolExecutor
from atlas.foundation.errors import PermanentToolError, TransientToolError
from atlas.tools.registry import ToolContext
from tests.support.executor_fakes import FailArgs, Recorder, SleepArgs, call, envelope, registry, sleep_tool, spec


def dropped_after_sending(args: FailArgs, ctx: ToolContext) -> None:
    raise TransientToolError("the connection dropped after the request was sent", maybe_done=True)


def refused(args: FailArgs, ctx: ToolContext) -> None:
    raise PermanentToolError("no such issue")


def unchanged(args: SleepArgs, ctx: ToolContext) -> dict[str, Any]:
    return {"changed": False}


CASES = [
    ("written", spec("w", Recorder(), side_effect=True), {"value": "x"}, True, True),
    ("timed out", spec("w", sleep_tool, side_effect=True, timeout_s=0.2), {"seconds": 2}, True, "unknown"),
    ("dropped", spec("w", dropped_after_sending, FailArgs, side_effect=True, idempotent=False), {}, True, "unknown"),
    ("refused", spec("w", refused, FailArgs, side_effect=True), {}, True, False),
    ("denied", spec("w", Recorder(), side_effect=True), {"value": "x"}, False, False),
    ("nothing to change", spec("w", unchanged, side_effect=True), {}, True, False),
]


@pytest.mark.parametrize(("what", "tool", "arguments", "approve", "done"), CASES, ids=[case[0] for case in CASES])
def test_a_side_effect_result_says_whether_it_happened(
    what: str, tool: Any, arguments: dict[str, Any], approve: bool, done: object
) -> None:
    executor = ToolExecutor(registry(tool), approve=lambda request: approve, timeout_s=5)
    result = envelope(asyncio.run(executor.run_one(call("w", "c1", **arguments))))
    assert result["side_effect_done"] == done
    if done == "unknown":
        assert result["error"]["retryable"] is False or result["error"]["kind"] == "transient"


def test_a_read_says_nothing_about_side_effects() -> None:
    executor = ToolExecutor(registry(spec("r", sleep_tool)))
    assert "side_effect_done" not in envelope(asyncio.run(executor.run_one(call("r", "c1"))))


def test_the_instructions_tell_the_model_what_unknown_means() -> None:
    flat = " ".join(INSTRUCTIONS.split())
    assert 'Never repeat an action whose result is "unknown"' in flat
    assert 'Never say an action was done unless its "side_effect_done" is true' in flat
