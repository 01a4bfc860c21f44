"""The neutral vocabulary the loop speaks: tool calls, model turns, token usage.

Conversation items themselves are plain dicts in the Responses API input shape
(`{"role": "user", "content": ...}`, `{"type": "function_call", ...}`,
`{"type": "function_call_output", ...}`), which every model adapter reads.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any, NamedTuple

MAX_TOKENS = 10**9
"""More tokens than any one request can use: a usage figure above it is not believed."""

MODEL_CALL_ID = "model_call_id"
"""Key of a function_call item whose call_id Atlas replaced: the id the model gave, for answering it."""


class ToolCall(NamedTuple):
    """One tool call requested by a model; `arguments` is the raw JSON text the model sent.

    `call_id` is unique within the conversation once `with_unique_ids` has run; `model_call_id`
    is then the model's own id where Atlas had to replace it (a duplicate), else None.
    """

    name: str
    arguments: str
    call_id: str
    model_call_id: str | None = None

    @classmethod
    def make(cls, name: str, arguments: dict[str, Any], call_id: str) -> ToolCall:
        return cls(name=name, arguments=json.dumps(arguments), call_id=call_id)

    def as_item(self) -> dict[str, Any]:
        """The `function_call` input item that records this call in the conversation."""
        item = {"type": "function_call", "name": self.name, "arguments": self.arguments, "call_id": self.call_id}
        if self.model_call_id is not None:
            item[MODEL_CALL_ID] = self.model_call_id
        return item


def with_unique_ids(calls: Sequence[ToolCall], taken: Iterable[str], prefix: str) -> list[ToolCall]:
    """The calls with ids that are unique in the conversation, whatever the model sent.

    A model's call_id is untrusted: missing, empty or repeated (in this batch or earlier in the
    conversation), it would share a live row, a log entry and an answer with another call. Such
    a call gets a fresh id (`{prefix}_{n}`); a repeated one keeps the model's own for answering it.
    """
    used = set(taken)
    unique: list[ToolCall] = []
    for index, call in enumerate(calls, start=1):
        given = call.call_id
        if given and given not in used:
            unique.append(call)
            used.add(given)
            continue
        fresh, suffix = f"{prefix}_{index}", 1
        while fresh in used:
            suffix += 1
            fresh = f"{prefix}_{index}_{suffix}"
        used.add(fresh)
        unique.append(call._replace(call_id=fresh, model_call_id=given or None))
    return unique


def as_model_ids(items: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The conversation as the model wrote it: replaced call ids mapped back to the model's own."""
    mapped = {item["call_id"]: item[MODEL_CALL_ID] for item in items if item.get(MODEL_CALL_ID) is not None}
    if not mapped:
        return list(items)
    wire: list[dict[str, Any]] = []
    for item in items:
        copy = {key: value for key, value in item.items() if key != MODEL_CALL_ID}
        if copy.get("call_id") in mapped:
            copy["call_id"] = mapped[copy["call_id"]]
        wire.append(copy)
    return wire


@dataclass(frozen=True)
class Usage:
    """Tokens one or more model requests consumed.

    `unreported` counts the requests whose server sent no usable figures: their tokens are not
    in the sums, so a total with `unreported > 0` is unknown, never a real 0.
    """

    input_tokens: int = 0
    output_tokens: int = 0
    unreported: int = 0

    @classmethod
    def unknown(cls) -> Usage:
        """One request whose usage the server did not report (or reported as nonsense)."""
        return cls(unreported=1)

    @property
    def known(self) -> bool:
        return self.unreported == 0

    @classmethod
    def checked(cls, input_tokens: object, output_tokens: object) -> tuple[Usage, list[str]]:
        """Usage from figures a server reported, each a whole number in 0..MAX_TOKENS or counted as 0.

        Returns the usage and what was dropped (`input_tokens=-5`), for a warning: a bad figure
        must neither end an answered turn (an overflow, a type error) nor print a negative cost.
        """
        figures: list[int] = []
        dropped: list[str] = []
        for label, value in (("input_tokens", input_tokens), ("output_tokens", output_tokens)):
            if isinstance(value, int) and not isinstance(value, bool) and 0 <= value <= MAX_TOKENS:
                figures.append(value)
            else:
                figures.append(0)
                shown = repr(value) if not isinstance(value, int) or abs(value) < 10**20 else "a huge number"
                dropped.append(f"{label}={shown[:40]}")
        return cls(figures[0], figures[1]), dropped

    def __add__(self, other: Usage) -> Usage:
        return Usage(
            self.input_tokens + other.input_tokens,
            self.output_tokens + other.output_tokens,
            self.unreported + other.unreported,
        )

    def cost_usd(self, price_in: float, price_out: float) -> float:
        """Cost at the given USD prices per million input and output tokens."""
        return (self.input_tokens * price_in + self.output_tokens * price_out) / 1_000_000


@dataclass(frozen=True)
class ModelTurn:
    """What one model request produced: final text, or tool calls to run (or both)."""

    text: str = ""
    calls: list[ToolCall] = field(default_factory=list)
    usage: Usage = field(default_factory=Usage)

    @property
    def is_final(self) -> bool:
        return not self.calls
