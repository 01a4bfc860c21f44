"""A model behind the Chat Completions API: llama.cpp, LM Studio, Ollama, vLLM, gateways.

The same `Model` protocol and the same `openai` SDK as the Responses adapter: streamed text,
tool calls assembled from their deltas, usage when the server reports it, finish reasons as
notes for the user. The client, retries, stream and failures are the Responses adapter's
(`streamed.StreamedAdapter`), so a failure becomes the same `ModelError` either way.
"""

from __future__ import annotations

import secrets
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Unpack, cast

import openai
from openai import AsyncStream
from openai.types.chat import ChatCompletionChunk

from atlas.llm.adapter import ModelRequest
from atlas.llm.chat_messages import chat_messages
from atlas.llm.notes import CUT_OFF, FILTERED, UNSENT_CALL, looks_like_unsent_call
from atlas.llm.openai_schema import chat_tools
from atlas.llm.streamed import Endpoint, StreamedAdapter
from atlas.llm.usage import usage_of
from atlas.llm.wait import Attempt
from atlas.protocol.events import TextDelta
from atlas.protocol.messages import ModelTurn, ToolCall, Usage
from atlas.tools.definition import ToolDefinition


@dataclass
class _PartialCall:
    call_id: str = ""
    name: str = ""
    arguments: list[str] = field(default_factory=list)


@dataclass
class _Reply:
    """What the stream has said so far."""

    text: list[str] = field(default_factory=list)
    calls: dict[int, _PartialCall] = field(default_factory=dict)
    finish: str | None = None
    usage: Usage = field(default_factory=Usage.unknown)


class ChatCompletionsModel(StreamedAdapter[ChatCompletionChunk]):
    """A model behind `POST /chat/completions`, streamed."""

    path = "chat/completions"

    def __init__(
        self,
        name: str,
        *,
        tool_choice: str | dict[str, Any] | None = None,
        max_tokens: int | None = None,
        **endpoint: Unpack[Endpoint],
    ) -> None:
        super().__init__(name, **endpoint)
        self.tool_choice = tool_choice
        self.max_tokens = max_tokens
        """A cap on each answer's tokens; None leaves it to the server."""
        self.ask_for_usage = True
        """False once the server refused `stream_options` (some gateways do): usage is then unknown."""

    async def _open(self, request: ModelRequest) -> Attempt[AsyncStream[ChatCompletionChunk]]:
        offered: dict[str, Any] = {}
        if len(request.tools):
            # Servers differ on an empty tool list; with no tools, nothing about tools is sent.
            offered = {"tools": chat_tools(request.tools), "parallel_tool_calls": request.parallel_tool_calls}
            if self.tool_choice is not None:
                offered["tool_choice"] = self.tool_choice
        messages = cast("Any", chat_messages(request.instructions, request.items))
        try:
            return await self._create(messages, offered, request)
        except openai.BadRequestError as exc:
            if not self.ask_for_usage or "stream_options" not in str(exc.message):
                raise
            self.ask_for_usage = False
            return await self._create(messages, offered, request)

    async def _read(self, stream: AsyncStream[ChatCompletionChunk], request: ModelRequest) -> ModelTurn:
        reply = _Reply()
        async for chunk in self._chunks(stream, request):
            _take(chunk, reply, request)
        if reply.finish is None:
            raise self.wire.ended_early("a finish reason")
        return _turn(reply, request)

    async def _create(
        self, messages: Any, offered: dict[str, Any], request: ModelRequest
    ) -> Attempt[AsyncStream[ChatCompletionChunk]]:
        usage: dict[str, Any] = {"stream_options": {"include_usage": True}} if self.ask_for_usage else {}
        if self.max_tokens is not None:
            usage["max_tokens"] = self.max_tokens
        return await self._retried(
            lambda: self._client.chat.completions.create(
                model=self.name, messages=messages, stream=True, **usage, **offered
            ),
            request,
        )


def _take(chunk: ChatCompletionChunk, reply: _Reply, request: ModelRequest) -> None:
    """Fold one chunk into the reply: only the first choice counts (Atlas asks for one).

    The SDK does not validate chunks, so every field is checked for its type here: a server's
    number where text belongs is ignored, never a crash after the answer has streamed.
    """
    if chunk.usage is not None:
        reply.usage = usage_of(chunk.usage, "prompt_tokens", "completion_tokens")
    choices = chunk.choices if isinstance(chunk.choices, list) else []
    for choice in choices:
        if getattr(choice, "index", 0) != 0:
            continue
        delta = getattr(choice, "delta", None)
        # A refusal is the model's answer too: shown, not taken for an empty one.
        for piece in (getattr(delta, "content", None), getattr(delta, "refusal", None)):
            if isinstance(piece, str) and piece:
                reply.text.append(piece)
                request.emit(TextDelta(piece))
        fragments = getattr(delta, "tool_calls", None)
        for position, fragment in enumerate(fragments if isinstance(fragments, list) else []):
            _take_call_fragment(reply, position, fragment)
        finish = getattr(choice, "finish_reason", None)
        if isinstance(finish, str) and finish:
            reply.finish = finish


def _take_call_fragment(reply: _Reply, position: int, fragment: Any) -> None:
    index = getattr(fragment, "index", None)
    partial = reply.calls.setdefault(index if isinstance(index, int) else position, _PartialCall())
    call_id = getattr(fragment, "id", None)
    if isinstance(call_id, str) and call_id and not partial.call_id:
        partial.call_id = call_id
    function = getattr(fragment, "function", None)
    name, arguments = getattr(function, "name", None), getattr(function, "arguments", None)
    # The name comes once on the wire; a server that repeats it whole is not doubled.
    if isinstance(name, str) and name and name != partial.name:
        partial.name += name
    if isinstance(arguments, str) and arguments:
        partial.arguments.append(arguments)


def _turn(reply: _Reply, request: ModelRequest) -> ModelTurn:
    calls = _calls(reply)
    text = "".join(reply.text)
    note = _note(reply.finish, text, calls, request.tools)
    if note:
        addition = f"\n\n{note}" if text else note
        text += addition
        request.emit(TextDelta(addition))
    return ModelTurn(text=text, calls=calls, usage=reply.usage)


def _calls(reply: _Reply) -> list[ToolCall]:
    """The assembled calls, in index order, each with an id unique in this reply."""
    calls: list[ToolCall] = []
    seen: set[str] = set()
    for index in sorted(reply.calls):
        partial = reply.calls[index]
        call_id = partial.call_id
        if not call_id or call_id in seen:
            # Some servers send no id (or the same one twice); the answer must reach its call.
            call_id = f"call_{index}_{secrets.token_hex(4)}"
        seen.add(call_id)
        # A tool without parameters may be called with no argument text at all.
        calls.append(ToolCall(name=partial.name, arguments="".join(partial.arguments) or "{}", call_id=call_id))
    return calls


def _note(finish: str | None, text: str, calls: list[ToolCall], tools: Sequence[ToolDefinition]) -> str:
    if finish == "length":
        return CUT_OFF
    if finish == "content_filter":
        return FILTERED
    if not calls and looks_like_unsent_call(text, {tool.name for tool in tools}):
        return UNSENT_CALL
    return ""
