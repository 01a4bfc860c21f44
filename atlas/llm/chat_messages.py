"""The neutral conversation (Responses-API input items) as Chat Completions messages.

`{"role": ..., "content": ...}` stays a message; consecutive `function_call` items become one
assistant message's `tool_calls` (joined to the assistant text just before them, if any); each
`function_call_output` becomes a `tool` message, in order.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any


def chat_messages(instructions: str, items: Sequence[dict[str, Any]]) -> list[dict[str, Any]]:
    """The `messages` of one request: the instructions as the system message, then the conversation."""
    messages: list[dict[str, Any]] = [{"role": "system", "content": instructions}]
    for item in items:
        kind = item.get("type")
        if kind == "function_call":
            _add_call(messages, item)
        elif kind == "function_call_output":
            messages.append({"role": "tool", "tool_call_id": str(item.get("call_id")), "content": _text(item)})
        elif "role" in item:
            messages.append({"role": str(item["role"]), "content": _content(item.get("content"))})
    return messages


def _add_call(messages: list[dict[str, Any]], item: dict[str, Any]) -> None:
    call = {
        "id": str(item.get("call_id")),
        "type": "function",
        "function": {"name": str(item.get("name")), "arguments": str(item.get("arguments") or "{}")},
    }
    last = messages[-1]
    if last["role"] == "assistant" and "tool_call_id" not in last:
        last.setdefault("tool_calls", []).append(call)
        return
    # Empty text, not null or absent: llama-cpp-python refuses a null content and fails without one.
    messages.append({"role": "assistant", "content": "", "tool_calls": [call]})


def _text(item: dict[str, Any]) -> str:
    output = item.get("output")
    return output if isinstance(output, str) else json.dumps(output)


def _content(content: Any) -> str:
    """Plain text: Atlas writes strings; anything else is sent as its JSON."""
    return content if isinstance(content, str) else json.dumps(content)
