"""The OpenAI Responses API model: streamed text, parallel function calls, usage.

This adapter knows the Responses wire; every SDK or stream failure becomes an Atlas `ModelError`
with a one-line message through `openai_client.Wire`, which the Chat Completions adapter shares.
Atlas retries a request itself (`atlas.llm.wait`: at most 2 retries, honouring Retry-After, the
SDK's own `max_retries` set to 0) so that each wait can be shown; `openai_client.sdk_retry` says
which SDK failures are worth another attempt.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any, cast

import openai
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
from atlas.llm.openai_client import MAX_RETRIES, one_line, open_client, sdk_retry
from atlas.llm.openai_schema import responses_tools
from atlas.llm.usage import usage_of
from atlas.llm.wait import Attempt, OutOfTime, RetryPolicy, with_retries
from atlas.protocol.deadline import QuestionDeadline
from atlas.protocol.events import Answering, Listener, TextDelta
from atlas.protocol.messages import ModelTurn, ToolCall, as_model_ids
from atlas.tools.definition import ToolDefinition


class OpenAIModel:
    """A model behind the OpenAI Responses API (or any server that speaks it)."""

    def __init__(
        self,
        name: str,
        *,
        api_key: str | None = None,
        base_url: str | None = None,
        timeout_s: float | None = None,
        max_retries: int = MAX_RETRIES,
    ) -> None:
        self.name = name
        self.max_retries = max_retries
        self.wire, self._client = open_client(name, "responses", api_key, base_url, timeout_s, max_retries)
        self.base_url, self.timeout_s = self.wire.base_url, self.wire.timeout_s
        self.policy = RetryPolicy(max_retries=max_retries)

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
        try:
            return await self._stream(instructions, items, tools, parallel_tool_calls, events, deadline)
        except openai.OpenAIError as exc:
            raise self.wire.translate(exc) from None
        except (json.JSONDecodeError, RuntimeError) as exc:
            # The SDK decodes each SSE chunk itself and lets these escape for a malformed one.
            raise self.wire.malformed(exc) from None

    async def _stream(
        self,
        instructions: str,
        items: Sequence[dict[str, Any]],
        tools: Sequence[ToolDefinition],
        parallel_tool_calls: bool,
        events: Listener | None,
        deadline: QuestionDeadline | None,
    ) -> ModelTurn:
        try:
            attempt = await self._open(instructions, items, tools, parallel_tool_calls, events, deadline)
            return await attempt.within(self._read(attempt.value, events))
        except OutOfTime as exc:
            raise self.wire.out_of_time(exc) from None

    async def _read(self, stream: AsyncStream[ResponseStreamEvent], events: Listener | None) -> ModelTurn:
        text: list[str] = []
        calls: list[ToolCall] = []
        waiting = events is not None
        try:
            async for event in stream:
                if waiting and events is not None:
                    events(Answering())
                    waiting = False
                # A refusal is the model's answer too: shown, not taken for an empty one.
                if isinstance(event, ResponseTextDeltaEvent | ResponseRefusalDeltaEvent):
                    text.append(event.delta)
                    if events is not None:
                        events(TextDelta(event.delta))
                elif isinstance(event, ResponseOutputItemDoneEvent) and isinstance(
                    event.item, ResponseFunctionToolCall
                ):
                    # Only the finished item carries the name and call_id with the arguments.
                    calls.append(_tool_call(event.item))
                elif isinstance(event, ResponseCompletedEvent):
                    return self._completed(event, "".join(text), calls, events)
                else:
                    self._check_failure(event)
        except openai.APITimeoutError:
            raise self.wire.stalled() from None
        except openai.APIConnectionError as exc:
            raise self.wire.dropped(exc) from None
        finally:
            if waiting and events is not None:
                events(Answering())
            await stream.close()
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

    async def _open(
        self,
        instructions: str,
        items: Sequence[dict[str, Any]],
        tools: Sequence[ToolDefinition],
        parallel_tool_calls: bool,
        events: Listener | None,
        deadline: QuestionDeadline | None,
    ) -> Attempt[AsyncStream[ResponseStreamEvent]]:
        """The request that opens a streamed response, retried by `with_retries` where each wait is seen."""
        return await with_retries(
            lambda: self._client.responses.create(
                model=self.name,
                instructions=instructions,
                input=cast("ResponseInputParam", as_model_ids(items)),
                tools=cast("list[ToolParam]", responses_tools(tools)),
                parallel_tool_calls=parallel_tool_calls,
                stream=True,
            ),
            model=self.name,
            policy=self.policy,
            judge=sdk_retry,
            events=events,
            deadline=deadline,
        )

    def _completed(
        self, event: ResponseCompletedEvent, text: str, calls: list[ToolCall], events: Listener | None
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
            if text and events is not None:
                events(TextDelta(text))
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
