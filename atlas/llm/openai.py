"""The OpenAI Responses API model: streamed text, parallel function calls, usage.

This adapter knows the Responses wire; the rest it shares with the Chat Completions adapter
(`streamed.StreamedAdapter`): every SDK or stream failure becomes an Atlas `ModelError` with a
one-line message through `openai_client.Wire`.
Atlas retries a request itself (`atlas.llm.wait`: at most 2 retries, honouring Retry-After, the
SDK's own `max_retries` set to 0) so that each wait can be shown; `openai_client.sdk_retry` says
which SDK failures are worth another attempt.
"""

from __future__ import annotations

import json
from typing import cast

from openai import AsyncStream
from openai.types.responses import (
    ResponseCompletedEvent,
    ResponseErrorEvent,
    ResponseFailedEvent,
    ResponseFunctionToolCall,
    ResponseIncompleteEvent,
    ResponseInputParam,
    ResponseOutputItemDoneEvent,
    ResponseRefusalDeltaEvent,
    ResponseStreamEvent,
    ResponseTextDeltaEvent,
    ToolParam,
)

from atlas.foundation.errors import ModelProtocolError
from atlas.llm.adapter import ModelRequest
from atlas.llm.openai_client import one_line
from atlas.llm.openai_schema import responses_tools
from atlas.llm.streamed import StreamedAdapter
from atlas.llm.usage import usage_of
from atlas.llm.wait import Attempt
from atlas.protocol.events import TextDelta
from atlas.protocol.messages import ModelTurn, ToolCall, as_model_ids


class OpenAIModel(StreamedAdapter[ResponseStreamEvent]):
    """A model behind the OpenAI Responses API (or any server that speaks it)."""

    path = "responses"

    async def _read(self, stream: AsyncStream[ResponseStreamEvent], request: ModelRequest) -> ModelTurn:
        text: list[str] = []
        calls: list[ToolCall] = []
        async for event in self._chunks(stream, request):
            # A refusal is the model's answer too: shown, not taken for an empty one.
            if isinstance(event, ResponseTextDeltaEvent | ResponseRefusalDeltaEvent):
                text.append(event.delta)
                request.emit(TextDelta(event.delta))
            elif isinstance(event, ResponseOutputItemDoneEvent) and isinstance(event.item, ResponseFunctionToolCall):
                # Only the finished item carries the name and call_id with the arguments.
                calls.append(_tool_call(event.item))
            elif isinstance(event, ResponseCompletedEvent):
                return self._completed(event, "".join(text), calls, request)
            else:
                self._check_failure(event)
        raise self.wire.ended_early("a completed response")

    def _check_failure(self, event: ResponseStreamEvent) -> None:
        """An event saying the response failed, as the error it is."""
        if isinstance(event, ResponseErrorEvent):
            raise self.wire.made(ModelProtocolError, self._failed("reported an error", event.message, event.code))
        if isinstance(event, ResponseFailedEvent):
            error = event.response.error
            raise self.wire.made(
                ModelProtocolError,
                self._failed("failed", error.message if error else None, error.code if error else None),
            )
        if isinstance(event, ResponseIncompleteEvent):
            details = event.response.incomplete_details
            reason = details.reason if details else None
            raise self.wire.made(ModelProtocolError, self._failed("stopped before finishing", reason, None))

    async def _open(self, request: ModelRequest) -> Attempt[AsyncStream[ResponseStreamEvent]]:
        """The request that opens a streamed response."""
        return await self._retried(
            lambda: self._client.responses.create(
                model=self.name,
                instructions=request.instructions,
                input=cast("ResponseInputParam", as_model_ids(request.items)),
                tools=cast("list[ToolParam]", responses_tools(request.tools)),
                parallel_tool_calls=request.parallel_tool_calls,
                stream=True,
            ),
            request,
        )

    def _completed(
        self, event: ResponseCompletedEvent, text: str, calls: list[ToolCall], request: ModelRequest
    ) -> ModelTurn:
        # The SDK builds events without validating them: every field may be missing or of any type.
        response = getattr(event, "response", None)
        output = getattr(response, "output", None)
        if response is None or not isinstance(output, list):
            raise self.wire.made(
                ModelProtocolError,
                f"the server {self.base_url} sent a malformed response: its completed response has no output",
            )
        if not text and not calls:
            # A server that sent no deltas still owes the reader the text.
            try:
                text = response.output_text
            except (AttributeError, TypeError) as exc:
                raise self.wire.made(
                    ModelProtocolError, f"the server {self.base_url} sent a malformed response ({one_line(str(exc))})"
                ) from None
            if text:
                request.emit(TextDelta(text))
        usage = usage_of(getattr(response, "usage", None), "input_tokens", "output_tokens", source=self.base_url)
        return ModelTurn(text=text, calls=calls, usage=usage)

    def _failed(self, what: str, message: str | None, code: str | None) -> str:
        detail = one_line(message or "no message")
        return f"the model {self.name!r} {what}: {detail}" + (f" ({code})" if code else "")


def _tool_call(item: ResponseFunctionToolCall) -> ToolCall:
    """A function call as the server sent it; fields of the wrong type become ones the executor refuses.

    A call_id that is not a string becomes empty: the loop gives such calls fresh, unique ids.
    """
    name, arguments, call_id = item.name, item.arguments, item.call_id
    if not isinstance(arguments, str):
        arguments = json.dumps(arguments, default=str) if arguments is not None else ""
    return ToolCall(
        name=name if isinstance(name, str) else "",
        arguments=arguments,
        call_id=call_id if isinstance(call_id, str) else "",
    )
