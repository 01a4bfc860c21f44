"""Small tools built as real ToolSpecs for the executor tests, a call factory, and a listener for call events."""

from __future__ import annotations

import json
import threading
import time
from typing import Any

from pydantic import BaseModel

from atlas.foundation.errors import PermanentToolError, TransientToolError
from atlas.protocol.events import CallEvent, Listener, SessionEvent
from atlas.protocol.messages import ToolCall
from atlas.tools.registry import Registry, ToolContext, ToolSpec


def call_events(into: list[CallEvent]) -> Listener:
    """A listener that keeps each call's events in `into` (the ends of batches are asserted apart)."""

    def keep(event: SessionEvent) -> None:
        if isinstance(event, CallEvent):
            into.append(event)

    return keep


class SleepArgs(BaseModel):
    seconds: float = 0.0
    value: str = "done"


class FailArgs(BaseModel):
    times: int = 1


def sleep_tool(args: SleepArgs, ctx: ToolContext) -> dict[str, Any]:
    time.sleep(args.seconds)
    return {"value": args.value}


def permanent_tool(args: FailArgs, ctx: ToolContext) -> None:
    raise PermanentToolError("no such thing")


def broken_tool(args: FailArgs, ctx: ToolContext) -> None:
    raise RuntimeError("boom")


class Flaky:
    """Fails with a transient error the first `times` calls, then answers."""

    def __init__(self, times: int = 1) -> None:
        self.times = times
        self.calls = 0
        self.lock = threading.Lock()

    def __call__(self, args: FailArgs, ctx: ToolContext) -> dict[str, int]:
        with self.lock:
            self.calls += 1
            calls = self.calls
        if calls <= self.times:
            raise TransientToolError("database is locked")
        return {"calls": calls}


class Recorder:
    """A side-effect tool that remembers the contexts it ran with."""

    def __init__(self) -> None:
        self.contexts: list[ToolContext] = []

    def __call__(self, args: SleepArgs, ctx: ToolContext) -> dict[str, str]:
        self.contexts.append(ctx)
        return {"written": args.value}


def spec(name: str, fn: Any, args_model: type[BaseModel] = SleepArgs, **options: Any) -> ToolSpec[Any]:
    return ToolSpec(name=name, fn=fn, args_model=args_model, description=name, **options)


def registry(*specs: ToolSpec[Any]) -> Registry:
    return Registry(specs)


def call(name: str, call_id: str, **arguments: Any) -> ToolCall:
    return ToolCall(name=name, arguments=json.dumps(arguments), call_id=call_id)


def envelope(output: dict[str, Any]) -> dict[str, Any]:
    assert output["type"] == "function_call_output"
    parsed: dict[str, Any] = json.loads(output["output"])
    return parsed


def kind_of(output: dict[str, Any]) -> str:
    env = envelope(output)
    return "ok" if env["ok"] else str(env["error"]["kind"])
