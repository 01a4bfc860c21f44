"""One request as one value: what the loop asks reaches an adapter whole, and a wrapper hands it on unchanged."""

from __future__ import annotations

import asyncio
import time

from atlas.llm.adapter import ModelAdapter, ModelRequest
from atlas.llm.scripted import ScriptedModel
from atlas.protocol.deadline import QuestionDeadline
from atlas.protocol.events import SessionEvent, TextDelta
from atlas.protocol.messages import ModelTurn
from atlas.runtime.toolset import load_registry


class Relaying(ModelAdapter):
    """A wrapper as the tracer and the --jsonl stream are: it sees the request and relays its events."""

    def __init__(self, inner: ScriptedModel) -> None:
        self.name = inner.name
        self.inner = inner
        self.seen: list[ModelRequest] = []
        self.relayed: list[SessionEvent] = []

    async def answer(self, request: ModelRequest) -> ModelTurn:
        self.seen.append(request)

        def relay(event: SessionEvent) -> None:
            self.relayed.append(event)
            request.emit(event)

        return await request.to(self.inner, events=relay)


def test_a_wrapper_hands_the_request_on_whole_and_its_events_reach_the_caller() -> None:
    inner = ScriptedModel([{"text": "Answered."}])
    wrapper = Relaying(inner)
    tools = load_registry([]).read_only().definitions()
    deadline = QuestionDeadline(at=time.monotonic() + 30.0, seconds=30.0)
    heard: list[SessionEvent] = []
    items = [{"role": "user", "content": "What does ORB-1101 mean?"}]
    turn = asyncio.run(
        wrapper.respond("Be brief.", items, tools, parallel_tool_calls=False, events=heard.append, deadline=deadline)
    )
    assert turn.text == "Answered."
    (request,) = wrapper.seen
    assert (request.instructions, list(request.items), request.tools, request.deadline) == (
        "Be brief.", items, tools, deadline,
    )  # fmt: skip
    (sent,) = inner.requests
    assert sent.instructions == "Be brief." and sent.tools == [tool.name for tool in tools]
    assert sent.parallel_tool_calls is False  # what the caller asked, not the default
    assert heard == wrapper.relayed == [TextDelta("Answered.")]
