"""Replay scripts: a model that plays back pre-written turns (`--model replay:PATH`, and tests).

The format (the one `atlas log --script SESSION` writes) is `{"turns": [{"calls": [...]}, {"text": "..."}]}`; each model
request consumes the next turn. A call's `arguments` is an object, or a string sent as the raw
JSON text (so a script can reproduce a model that sent broken JSON). `call_id` is optional:
missing ones are numbered from the request and position, so replays are deterministic.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, Field, ValidationError, model_validator

from atlas.foundation import statefiles
from atlas.foundation.errors import ScriptError, describe
from atlas.llm.adapter import ModelAdapter, ModelRequest
from atlas.protocol.events import TextDelta
from atlas.protocol.messages import MAX_TOKENS, ModelTurn, ToolCall, Usage

SCRIPT_LIMIT = 64 * statefiles.MiB
"""The most Atlas reads of a replay script (the hostile-model tests' largest is a few MiB)."""


class ScriptCall(BaseModel):
    name: str = Field(min_length=1)
    arguments: dict[str, Any] | str = Field(default_factory=dict)
    """An object, or the raw JSON text as the model would send it (possibly invalid)."""
    call_id: str | None = None


class ScriptUsage(BaseModel):
    input_tokens: int = Field(default=0, ge=0, le=MAX_TOKENS)
    output_tokens: int = Field(default=0, ge=0, le=MAX_TOKENS)


class ScriptTurn(BaseModel):
    """One model response: final text, a parallel batch of calls, or both."""

    text: str = ""
    calls: list[ScriptCall] = Field(default_factory=list)
    usage: ScriptUsage | None = None

    @model_validator(mode="after")
    def _says_something(self) -> ScriptTurn:
        if not self.text and not self.calls:
            raise ValueError("a turn needs 'text' or 'calls'")
        return self


class Script(BaseModel):
    turns: list[ScriptTurn] = Field(min_length=1)


@dataclass(frozen=True)
class ScriptedRequest:
    """What the model was asked, kept so tests can check what the loop sent."""

    instructions: str
    items: list[dict[str, Any]]
    tools: list[str]
    parallel_tool_calls: bool


TurnLike = ScriptTurn | dict[str, Any]


def _refused(why: str) -> ScriptError:
    return ScriptError(f"replay script {why}")


class ScriptedModel(ModelAdapter):
    """Plays turns in order; running out is a `ScriptError`, never a silent empty answer."""

    def __init__(self, turns: Iterable[TurnLike] = (), *, name: str = "scripted", source: str | None = None) -> None:
        self.name = name
        self._source = source
        self._turns: deque[ScriptTurn] = deque()
        self.requests: list[ScriptedRequest] = []
        self.enqueue(*turns)

    @classmethod
    def from_file(cls, path: Path) -> ScriptedModel:
        """Load a replay script; any problem is one line naming the file."""
        missing = ScriptError(f"replay script {path} does not exist")
        raw = statefiles.read_named(path, limit=SCRIPT_LIMIT, what="a replay script", missing=missing, refused=_refused)
        try:
            data = json.loads(raw)
        except json.JSONDecodeError as exc:
            raise ScriptError(
                f"replay script {path} is not valid JSON: {exc.msg} at line {exc.lineno} column {exc.colno}"
            ) from None
        except RecursionError:
            raise ScriptError(f"replay script {path} is nested too deeply to read") from None
        if not isinstance(data, dict):
            raise ScriptError(f'replay script {path} is malformed: expected an object with a "turns" list')
        try:
            script = Script.model_validate(data)
        except ValidationError as exc:
            raise ScriptError(f"replay script {path} is malformed: {describe(exc)}") from None
        return cls(script.turns, name=f"replay:{path}", source=str(path))

    def enqueue(self, *turns: TurnLike) -> None:
        for turn in turns:
            try:
                self._turns.append(turn if isinstance(turn, ScriptTurn) else ScriptTurn.model_validate(turn))
            except ValidationError as exc:
                raise ScriptError(f"scripted turn is malformed: {describe(exc)}") from None

    @property
    def remaining(self) -> int:
        return len(self._turns)

    def assert_consumed(self) -> None:
        if self._turns:
            raise AssertionError(f"{len(self._turns)} scripted turn(s) were never requested")

    async def answer(self, request: ModelRequest) -> ModelTurn:
        self.requests.append(
            # Items are flat dicts of text: a copy of each is a snapshot (a deep copy of thousands is not cheap).
            ScriptedRequest(
                request.instructions,
                [dict(item) for item in request.items],
                [tool.name for tool in request.tools],
                request.parallel_tool_calls,
            )
        )
        number = len(self.requests)
        if not self._turns:
            where = f" {self._source}" if self._source else ""
            raise ScriptError(f"replay script{where} has no turn left for request {number}")
        turn = self._turns.popleft()
        if turn.text:
            request.emit(TextDelta(turn.text))
        calls = [
            ToolCall(
                name=call.name,
                arguments=call.arguments if isinstance(call.arguments, str) else json.dumps(call.arguments),
                call_id=call.call_id or f"call_{number}_{index}",
            )
            for index, call in enumerate(turn.calls, start=1)
        ]
        usage = Usage(turn.usage.input_tokens, turn.usage.output_tokens) if turn.usage else Usage()
        return ModelTurn(text=turn.text, calls=calls, usage=usage)
