"""The one interface of every model: the `Model` protocol, one request as one value (`ModelRequest`),
and the base the adapters answer it through (`ModelAdapter`).

Each adapter and wrapper implements `answer(request)`; `ModelAdapter.respond` unpacks the protocol's
call into the request, and a wrapper hands it on with `request.to(inner)`.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from collections.abc import Sequence
from typing import Any, NamedTuple, Protocol

from atlas.protocol.deadline import QuestionDeadline
from atlas.protocol.events import Listener, SessionEvent
from atlas.protocol.messages import ModelTurn
from atlas.tools.definition import ToolDefinition


class Model(Protocol):
    """Anything that turns a conversation into the next turn: final text, tool calls, or both."""

    name: str
    """Shown in the answer header and in `--json`: `offline`, `replay:PATH`, `gpt-6-luna`."""

    async def respond(
        self,
        instructions: str,
        items: Sequence[dict[str, Any]],
        tools: Sequence[ToolDefinition],
        *,
        parallel_tool_calls: bool = True,
        events: Listener | None = None,
        deadline: QuestionDeadline | None = None,
    ) -> ModelTurn:
        """One model request. Its text goes to `events` as `TextDelta`s as it arrives (all at once is
        fine); a model that asks a server reports its waits there (`Asking`, `Retrying`, `Answering`)."""
        ...


class ModelRequest(NamedTuple):
    """What one request asks: the conversation and its tools, where its events go, and its deadline."""

    instructions: str
    items: Sequence[dict[str, Any]]
    tools: Sequence[ToolDefinition]
    parallel_tool_calls: bool = True
    events: Listener | None = None
    """Where the reply's text goes as it streams, and a server's waits."""
    deadline: QuestionDeadline | None = None

    def emit(self, event: SessionEvent) -> None:
        if self.events is not None:
            self.events(event)

    async def to(self, model: Model, *, events: Listener | None = None) -> ModelTurn:
        """This request sent to `model` (a wrapper's inner one), its events to `events` when given."""
        request = self if events is None else self._replace(events=events)
        return await model.respond(
            request.instructions,
            request.items,
            request.tools,
            parallel_tool_calls=request.parallel_tool_calls,
            events=request.events,
            deadline=request.deadline,
        )


class ModelAdapter(ABC):
    """A `Model` that takes its request as one `ModelRequest`."""

    name: str

    async def respond(self, *args: Any, **options: Any) -> ModelTurn:
        """`Model.respond`: its arguments are the request's fields, by the same names."""
        return await self.answer(ModelRequest(*args, **options))

    @abstractmethod
    async def answer(self, request: ModelRequest) -> ModelTurn:
        """One model request. Its text goes to `request.events` as `TextDelta`s as it arrives (all at
        once is fine); a model that asks a server reports its waits there (`Asking`, `Retrying`, `Answering`)."""
