"""Tool failures carry their fields (the tool, a timeout's seconds) beside the text the model reads."""

from __future__ import annotations

import asyncio

from atlas.executor.attempts import run_attempt
from atlas.executor.turn import Turn
from atlas.foundation.errors import ErrorKind, PermanentToolError, ToolTimeoutError
from atlas.tools.registry import ToolContext
from tests.support.executor_fakes import FailArgs, SleepArgs, permanent_tool, sleep_tool, spec


def test_a_timeout_names_its_tool_and_the_seconds_it_was_given() -> None:
    slow = spec("slow", sleep_tool)
    outcome = asyncio.run(run_attempt(slow, SleepArgs(seconds=1.0), ToolContext(), 0.2, Turn()))
    assert outcome.kind is ErrorKind.TIMEOUT
    assert outcome.message == "slow did not return within 0.2 s"
    assert isinstance(outcome.failure, ToolTimeoutError)
    assert (outcome.failure.tool, outcome.failure.timeout_s) == ("slow", 0.2)
    assert str(outcome.failure) == outcome.message


def test_a_side_effect_that_timed_out_keeps_its_fields_and_its_warning() -> None:
    write = spec("slow_write", sleep_tool, side_effect=True)
    outcome = asyncio.run(run_attempt(write, SleepArgs(seconds=1.0), ToolContext(), 0.3, Turn()))
    assert outcome.message == "slow_write did not return within 0.3 s: it may have taken effect"
    assert isinstance(outcome.failure, ToolTimeoutError)
    assert (outcome.failure.tool, outcome.failure.timeout_s) == ("slow_write", 0.3)


def test_a_tool_error_is_given_the_name_of_the_tool_that_raised_it() -> None:
    missing = spec("lookup", permanent_tool, FailArgs)
    outcome = asyncio.run(run_attempt(missing, FailArgs(), ToolContext(), 5.0, Turn()))
    assert (outcome.kind, outcome.message) == (ErrorKind.PERMANENT, "no such thing")
    assert isinstance(outcome.failure, PermanentToolError)
    assert outcome.failure.tool == "lookup"


def test_a_tool_that_names_itself_keeps_its_name() -> None:
    def named(args: FailArgs, ctx: ToolContext) -> None:
        raise PermanentToolError("gone", tool="upstream")

    outcome = asyncio.run(run_attempt(spec("proxy", named, FailArgs), FailArgs(), ToolContext(), 5.0, Turn()))
    assert outcome.failure is not None and outcome.failure.tool == "upstream"


def test_a_failure_that_is_no_tool_error_carries_none() -> None:
    def broken(args: FailArgs, ctx: ToolContext) -> None:
        raise RuntimeError("boom")

    outcome = asyncio.run(run_attempt(spec("broken", broken, FailArgs), FailArgs(), ToolContext(), 5.0, Turn()))
    assert (outcome.kind, outcome.message, outcome.failure) == (ErrorKind.UNKNOWN, "RuntimeError: boom", None)
