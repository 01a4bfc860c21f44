"""The OpenAI Responses API model: streamed text, parallel function calls, usage.

This is the one place that knows the wire and the openai SDK: every SDK or stream failure is
translated here into an Atlas `ModelError` with a one-line message. Atlas retries a request itself
(`atlas.llm.wait`: at most 2 retries, honouring Retry-After, the SDK's own `max_retries` set to 0)
so that each wait can be shown; `sdk_retry` says which SDK failures are worth another attempt.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Mapping, Sequence
from email.utils import parsedate_to_datetime
from typing import Any, cast

import openai
from openai import AsyncOpenAI, AsyncStream
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

from atlas.config import env_number
from atlas.errors import (
    ModelAuthError,
    ModelConnectionError,
    ModelError,
    ModelNotFoundError,
    ModelProtocolError,
    RateLimitedError,
    cap,
)
from atlas.llm import TextSink
from atlas.llm.wait import Answering, Retry, RetryPolicy, WaitSink, with_retries
from atlas.messages import ModelTurn, ToolCall, Usage
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
        self.policy = RetryPolicy(max_retries=max_retries)
        self.on_wait: WaitSink | None = None
        """Where the waits for this model are reported (set by `atlas.llm.wait.watch`)."""
        # The read timeout bounds every wait for data, so a stalled stream fails too. The SDK does
        # not retry: `with_retries` does, where each wait can be seen.
        self._client = AsyncOpenAI(api_key=key, base_url=self.base_url, timeout=self.timeout_s, max_retries=0)

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
        stream = await self._open(instructions, items, tools, parallel_tool_calls)
        text: list[str] = []
        calls: list[ToolCall] = []
        waiting = self.on_wait is not None
        try:
            async for event in stream:
                if waiting and self.on_wait is not None:
                    self.on_wait(Answering())
                    waiting = False
                # A refusal is the model's answer too: shown, not taken for an empty one.
                if isinstance(event, ResponseTextDeltaEvent | ResponseRefusalDeltaEvent):
                    text.append(event.delta)
                    if on_text is not None:
                        on_text(event.delta)
                elif isinstance(event, ResponseOutputItemDoneEvent) and isinstance(
                    event.item, ResponseFunctionToolCall
                ):
                    # Only the finished item carries the name and call_id with the arguments.
                    item = event.item
                    calls.append(ToolCall(name=item.name, arguments=item.arguments, call_id=item.call_id))
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
            if waiting and self.on_wait is not None:
                self.on_wait(Answering())
            await stream.close()
        raise ModelProtocolError(f"the model's stream from {self.base_url} ended early, without a completed response")

    async def _open(
        self, instructions: str, items: Sequence[dict[str, Any]], tools: Registry, parallel_tool_calls: bool
    ) -> AsyncStream[ResponseStreamEvent]:
        """The request that opens a streamed response, retried by `with_retries` where each wait is seen."""
        return await with_retries(
            lambda: self._client.responses.create(
                model=self.name,
                instructions=instructions,
                input=cast("ResponseInputParam", list(items)),
                tools=cast("list[ToolParam]", tools.schemas()),
                parallel_tool_calls=parallel_tool_calls,
                stream=True,
            ),
            model=self.name,
            policy=self.policy,
            judge=sdk_retry,
            on_wait=self.on_wait,
        )

    @staticmethod
    def _completed(
        event: ResponseCompletedEvent, text: str, calls: list[ToolCall], on_text: TextSink | None
    ) -> ModelTurn:
        if not text and not calls and event.response.output_text:
            # A server that sent no deltas still owes the reader the text.
            text = event.response.output_text
            if on_text is not None:
                on_text(text)
        usage = event.response.usage
        return ModelTurn(
            text=text, calls=calls, usage=Usage(usage.input_tokens, usage.output_tokens) if usage else Usage()
        )

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
            return ModelConnectionError(
                f"could not reach {self.base_url}{_cause(exc)} (check OPENAI_BASE_URL, or use --model offline)"
            )
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


RETRY_STATUSES = {408: "request timeout", 409: "conflict", 429: "rate limited"}


def sdk_retry(exc: Exception) -> Retry | None:
    """Whether an SDK failure to open a response is worth another attempt, as the SDK itself decides.

    Timeouts, dropped connections, 408, 409, 429 and 5xx are, unless the server says otherwise
    (`x-should-retry`); the reason is a few words for the person watching.
    """
    if isinstance(exc, openai.APITimeoutError):
        return Retry("no answer in time")
    if isinstance(exc, openai.APIConnectionError):
        return Retry("connection failed")
    if not isinstance(exc, openai.APIStatusError):
        return None
    headers = exc.response.headers
    status, should = exc.status_code, headers.get("x-should-retry")
    if should == "false" or (should != "true" and status not in RETRY_STATUSES and status < 500):
        return None
    return Retry(f"{status} {RETRY_STATUSES.get(status, 'server error')}", retry_after_s(headers))


def retry_after_s(headers: Mapping[str, str]) -> float | None:
    """`retry-after-ms`, else `retry-after` (seconds or an HTTP date), in seconds; None when absent or bad."""
    try:
        if "retry-after-ms" in headers:
            return float(headers["retry-after-ms"]) / 1000
        value = headers.get("retry-after")
        if value is None:
            return None
        try:
            return float(value)
        except ValueError:
            return parsedate_to_datetime(value).timestamp() - time.time()
    except (ValueError, TypeError, OverflowError):
        return None


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
