"""What both OpenAI-wire adapters do alike around their own wire: open the client, send the request
retried where each wait is seen, read its stream, and turn every failure into one `ModelError`.

An adapter says only how its request is made (`_open`) and how its stream's chunks make a turn (`_read`).
"""

from __future__ import annotations

import json
from abc import abstractmethod
from collections.abc import AsyncIterator, Awaitable, Callable
from typing import Generic, TypedDict, TypeVar, Unpack

import openai
from openai import AsyncStream

from atlas.llm.adapter import ModelAdapter, ModelRequest
from atlas.llm.openai_client import MAX_RETRIES, open_client, sdk_retry
from atlas.llm.wait import Attempt, OutOfTime, RetryPolicy, with_retries
from atlas.protocol.events import Answering
from atlas.protocol.messages import ModelTurn

Chunk = TypeVar("Chunk")


class Endpoint(TypedDict, total=False):
    """Where an adapter sends, and how patiently: the environment's settings where left out."""

    api_key: str | None
    base_url: str | None
    timeout_s: float | None
    max_retries: int


class StreamedAdapter(ModelAdapter, Generic[Chunk]):
    """A model behind one streamed endpoint (`path`) of an OpenAI-compatible server."""

    path = ""
    """The endpoint, as errors name it: `responses`, `chat/completions`."""

    def __init__(self, name: str, **endpoint: Unpack[Endpoint]) -> None:
        self.name = name
        self.max_retries = max_retries = endpoint.get("max_retries", MAX_RETRIES)
        self.wire, self._client = open_client(
            name, self.path, endpoint.get("api_key"), endpoint.get("base_url"), endpoint.get("timeout_s"), max_retries
        )
        self.base_url, self.timeout_s = self.wire.base_url, self.wire.timeout_s
        self.policy = RetryPolicy(max_retries=max_retries)

    async def answer(self, request: ModelRequest) -> ModelTurn:
        try:
            try:
                attempt = await self._open(request)
                return await attempt.within(self._read(attempt.value, request))
            except OutOfTime as exc:
                raise self.wire.out_of_time(exc) from None
        except openai.OpenAIError as exc:
            raise self.wire.translate(exc) from None
        except (json.JSONDecodeError, RuntimeError) as exc:
            # The SDK decodes each SSE chunk itself and lets these escape for a malformed one.
            raise self.wire.malformed(exc) from None

    @abstractmethod
    async def _open(self, request: ModelRequest) -> Attempt[AsyncStream[Chunk]]:
        """The request that opens the stream (through `_retried`)."""

    @abstractmethod
    async def _read(self, stream: AsyncStream[Chunk], request: ModelRequest) -> ModelTurn:
        """The turn the stream's chunks (`_chunks`) make."""

    async def _retried(
        self, create: Callable[[], Awaitable[AsyncStream[Chunk]]], request: ModelRequest
    ) -> Attempt[AsyncStream[Chunk]]:
        """`create` sent, and sent again where a failure is worth it, each wait reported to the request's events."""
        events, deadline = request.events, request.deadline
        return await with_retries(
            create, model=self.name, policy=self.policy, judge=sdk_retry, events=events, deadline=deadline
        )

    async def _chunks(self, stream: AsyncStream[Chunk], request: ModelRequest) -> AsyncIterator[Chunk]:
        """The stream's chunks; `Answering` once the first arrives (or the stream ends), a stall or a
        dropped connection as its `ModelError`, and the stream closed whatever happens."""
        waiting = request.events is not None
        try:
            async for chunk in stream:
                if waiting:
                    request.emit(Answering())
                    waiting = False
                yield chunk
        except openai.APITimeoutError:
            raise self.wire.stalled() from None
        except openai.APIConnectionError as exc:
            raise self.wire.dropped(exc) from None
        finally:
            await stream.close()
            if waiting:
                request.emit(Answering())
