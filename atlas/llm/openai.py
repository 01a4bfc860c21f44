"""The OpenAI Responses API model: streamed text, parallel function calls, usage.

This is the one place that knows the wire and the openai SDK: every SDK or stream failure is
translated here into an Atlas `ModelError` with a one-line message. The SDK's own retries
(`max_retries=2`, honouring Retry-After) are the only retry layer for model requests.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Sequence
from typing import Any, cast

import openai
from openai import AsyncOpenAI
from openai.types.responses import (
    ResponseCompletedEvent,
    ResponseErrorEvent,
    ResponseFailedEvent,
    ResponseFunctionToolCall,
    ResponseIncompleteEvent,
    ResponseInputParam,
    ResponseOutputItemDoneEvent,
    ResponseRefusalDeltaEvent,
    ResponseTextDeltaEvent,
    ToolParam,
)

from atlas.config import env_number
from atlas.errors import (
    ModelAuthError,
    ModelConnectionError,
    ModelError,
    ModelNotFoundError,
    ModelProtocolError,
    RateLimitedError,
    cap,
    printable,
)
from atlas.llm import TextSink
from atlas.messages import ModelTurn, ToolCall, Usage, as_model_ids
from atlas.tools.registry import Registry

DEFAULT_TIMEOUT_S = 60.0
MAX_RETRIES = 2
DEFAULT_BASE_URL = "https://api.openai.com/v1"
NO_KEY = "set OPENAI_API_KEY or use --model offline"


def model_timeout() -> float:
    """`ATLAS_MODEL_TIMEOUT` (seconds without data before a request or a stream is given up)."""
    return env_number("ATLAS_MODEL_TIMEOUT", DEFAULT_TIMEOUT_S, unit="seconds", positive=True)


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
        key = api_key or os.environ.get("OPENAI_API_KEY", "").strip()
        if not key:
            raise ModelAuthError(NO_KEY)
        self.name = name
        self.base_url = (base_url or os.environ.get("OPENAI_BASE_URL", "").strip() or DEFAULT_BASE_URL).rstrip("/")
        self.timeout_s = timeout_s if timeout_s is not None else model_timeout()
        self.max_retries = max_retries
        # The read timeout bounds every wait for data, so a stalled stream fails too.
        self._client = AsyncOpenAI(api_key=key, base_url=self.base_url, timeout=self.timeout_s, max_retries=max_retries)

    async def respond(
        self,
        instructions: str,
        items: Sequence[dict[str, Any]],
        tools: Registry,
        *,
        parallel_tool_calls: bool = True,
        on_text: TextSink | None = None,
    ) -> ModelTurn:
        try:
            return await self._stream(instructions, items, tools, parallel_tool_calls, on_text)
        except openai.OpenAIError as exc:
            raise self._translate(exc) from None
        except (json.JSONDecodeError, RuntimeError) as exc:
            # The SDK decodes each SSE chunk itself and lets these escape for a malformed one.
            raise ModelProtocolError(
                f"the model's stream from {self.base_url} sent a malformed chunk ({_one_line(str(exc))})"
            ) from None

    async def _stream(
        self,
        instructions: str,
        items: Sequence[dict[str, Any]],
        tools: Registry,
        parallel_tool_calls: bool,
        on_text: TextSink | None,
    ) -> ModelTurn:
        stream = await self._client.responses.create(
            model=self.name,
            instructions=instructions,
            input=cast("ResponseInputParam", as_model_ids(items)),
            tools=cast("list[ToolParam]", tools.schemas()),
            parallel_tool_calls=parallel_tool_calls,
            stream=True,
        )
        text: list[str] = []
        calls: list[ToolCall] = []
        try:
            async for event in stream:
                # A refusal is the model's answer too: shown, not taken for an empty one.
                if isinstance(event, ResponseTextDeltaEvent | ResponseRefusalDeltaEvent):
                    text.append(event.delta)
                    if on_text is not None:
                        on_text(event.delta)
                elif isinstance(event, ResponseOutputItemDoneEvent) and isinstance(
                    event.item, ResponseFunctionToolCall
                ):
                    # Only the finished item carries the name and call_id with the arguments.
                    calls.append(_tool_call(event.item))
                elif isinstance(event, ResponseCompletedEvent):
                    return self._completed(event, "".join(text), calls, on_text)
                elif isinstance(event, ResponseErrorEvent):
                    raise ModelProtocolError(self._failed("reported an error", event.message, event.code))
                elif isinstance(event, ResponseFailedEvent):
                    error = event.response.error
                    raise ModelProtocolError(
                        self._failed("failed", error.message if error else None, error.code if error else None)
                    )
                elif isinstance(event, ResponseIncompleteEvent):
                    details = event.response.incomplete_details
                    reason = details.reason if details else None
                    raise ModelProtocolError(self._failed("stopped before finishing", reason, None))
        except openai.APITimeoutError:
            raise ModelConnectionError(
                f"the model's stream from {self.base_url} stalled: no data for {self.timeout_s:g} s "
                "(set ATLAS_MODEL_TIMEOUT to wait longer)"
            ) from None
        except openai.APIConnectionError as exc:
            raise ModelConnectionError(
                f"the connection to {self.base_url} dropped while the model was answering{_cause(exc)}"
            ) from None
        finally:
            await stream.close()
        raise ModelProtocolError(f"the model's stream from {self.base_url} ended early, without a completed response")

    def _completed(
        self, event: ResponseCompletedEvent, text: str, calls: list[ToolCall], on_text: TextSink | None
    ) -> ModelTurn:
        # The SDK builds events without validating them: every field may be missing or of any type.
        response = getattr(event, "response", None)
        output = getattr(response, "output", None)
        if response is None or not isinstance(output, list):
            raise ModelProtocolError(
                f"the server {self.base_url} sent a malformed response: its completed response has no output"
            )
        if not text and not calls:
            # A server that sent no deltas still owes the reader the text.
            try:
                text = response.output_text
            except (AttributeError, TypeError) as exc:
                raise ModelProtocolError(
                    f"the server {self.base_url} sent a malformed response ({_one_line(str(exc))})"
                ) from None
            if text and on_text is not None:
                on_text(text)
        return ModelTurn(text=text, calls=calls, usage=self._usage(getattr(response, "usage", None)))

    def _usage(self, reported: object) -> Usage:
        """Token counts as the server reported them, when they are believable; a warning when not."""
        if reported is None:
            return Usage()
        usage, dropped = Usage.checked(
            getattr(reported, "input_tokens", None), getattr(reported, "output_tokens", None)
        )
        if dropped:
            print(
                f"atlas: warning: {printable(self.base_url)} reported unusable token usage "
                f"({printable(', '.join(dropped))}); counted as 0",
                file=sys.stderr,
            )
        return usage

    def _failed(self, what: str, message: str | None, code: str | None) -> str:
        detail = _one_line(message or "no message")
        return f"the model {self.name!r} {what}: {detail}" + (f" ({code})" if code else "")

    def _translate(self, exc: openai.OpenAIError) -> ModelError:
        """One line a maintainer can act on, for every SDK exception."""
        if isinstance(exc, openai.APITimeoutError):
            return ModelConnectionError(
                f"{self.base_url} did not answer within {self.timeout_s:g} s "
                "(set ATLAS_MODEL_TIMEOUT to wait longer, or use --model offline)"
            )
        if isinstance(exc, openai.APIConnectionError):
            return ModelConnectionError(f"could not reach {self.base_url}{_cause(exc)}")
        if isinstance(exc, openai.APIStatusError):
            message = _server_message(exc)
            status = exc.status_code
            if status in (401, 403):
                return ModelAuthError(f"{self.base_url} refused the API key ({status}): {message}")
            if status == 404:
                return ModelNotFoundError(f"model {self.name!r} was not found at {self.base_url}: {message}")
            if status == 429:
                return RateLimitedError(
                    f"rate limited by {self.base_url} (429), still after {self.max_retries} retries: {message}"
                )
            return ModelError(f"{self.base_url} answered {status}: {message}")
        if isinstance(exc, openai.APIError):
            return ModelProtocolError(f"the model {self.name!r} failed: {_one_line(exc.message)}")
        return ModelError(f"the OpenAI client failed: {_one_line(str(exc)) or type(exc).__name__}")


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


def _server_message(exc: openai.APIStatusError) -> str:
    body = exc.body
    if isinstance(body, dict):
        error = body.get("error", body)
        if isinstance(error, dict) and isinstance(error.get("message"), str):
            return _one_line(error["message"])
    return _one_line(exc.message)


def _cause(exc: BaseException) -> str:
    """`: <what the transport said>`, or nothing when it said nothing."""
    cause = exc.__cause__ or exc.__context__
    return f": {_one_line(str(cause))}" if cause is not None and str(cause).strip() else ""


def _one_line(text: str) -> str:
    return cap(" ".join(text.split()))
