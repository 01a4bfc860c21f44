"""The neutral vocabulary the loop speaks: tool calls, model turns, token usage.

Conversation items themselves are plain dicts in the Responses API input shape
(`{"role": "user", "content": ...}`, `{"type": "function_call", ...}`,
`{"type": "function_call_output", ...}`), which every model adapter reads.
"""

from __future__ import annotations

import json
from dataclasses import dataclass, field
from typing import Any


@dataclass(frozen=True)
class ToolCall:
    """One tool call requested by a model; `arguments` is the raw JSON text the model sent."""

    name: str
    arguments: str
    call_id: str

    @classmethod
    def make(cls, name: str, arguments: dict[str, Any], call_id: str) -> ToolCall:
        return cls(name=name, arguments=json.dumps(arguments), call_id=call_id)

    def as_item(self) -> dict[str, Any]:
        """The `function_call` input item that records this call in the conversation."""
        return {"type": "function_call", "name": self.name, "arguments": self.arguments, "call_id": self.call_id}


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
