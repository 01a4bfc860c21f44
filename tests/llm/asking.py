"""What the model adapters' tests ask: the question, a `lookup` tool, and one request sent (or failed)."""

from __future__ import annotations

import asyncio

import pytest
from pydantic import BaseModel

from atlas.conversation.loop import INSTRUCTIONS
from atlas.foundation.errors import ModelError
from atlas.llm import Model
from atlas.protocol.events import Listener
from atlas.protocol.messages import ModelTurn
from atlas.tools.registry import Registry, ToolContext, ToolSpec

QUESTION = [{"role": "user", "content": "What does ORB-1101 mean?"}]


class KeyArgs(BaseModel):
    key: str


def lookup(args: KeyArgs, ctx: ToolContext) -> dict[str, str]:
    return {"key": args.key, "value": args.key.upper()}


def lookup_tools(args_model: type[KeyArgs] = KeyArgs) -> Registry:
    """One tool, `lookup`, that upper-cases the `key` it is given (its arguments: `args_model`)."""
    return Registry([ToolSpec("lookup", lookup, args_model, "Look a key up.")])


def ask(model: Model, tools: Registry, events: Listener | None = None) -> ModelTurn:
    """The question sent to `model` once, offering `tools`."""
    return asyncio.run(model.respond(INSTRUCTIONS, QUESTION, tools.definitions(), events=events))


def failure(model: Model, expected: type[ModelError]) -> str:
    """The one line `model` fails with (`expected`): no newline, bounded, no SDK traceback behind it."""
    with pytest.raises(expected) as caught:
        ask(model, Registry())
    message = str(caught.value)
    assert "\n" not in message and len(message) <= 400
    error = caught.value
    assert error.__cause__ is None and (error.__context__ is None or error.__suppress_context__)
    return message
