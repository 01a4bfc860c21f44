"""Notes for the user about an answer the server shaped badly: cut off, filtered, a tool call as text."""

from __future__ import annotations

import json
import re
from collections.abc import Collection
from typing import Any

CUT_OFF = "(atlas: the answer was cut off: the model reached its output limit on the server)"
FILTERED = "(atlas: the server's content filter stopped the answer here)"
UNSENT_CALL = (
    "(atlas: the model wrote a tool call as text instead of calling the tool: the server's tool-call "
    "format is probably not configured; see docs/local-models.md)"
)

_FENCE = re.compile(r"^```[A-Za-z]*\s*(.*?)\s*```$", re.DOTALL)
_MAX_CALL_TEXT = 20_000


def looks_like_unsent_call(text: str, tool_names: Collection[str]) -> bool:
    """True when the whole answer is a JSON tool call naming one of `tool_names`.

    Small local models whose server lacks a tool-call template answer this way: `{"name":
    "get_issue", "arguments": {...}}`, a list of those, or the same inside a code fence.
    """
    stripped = text.strip()
    if not stripped or len(stripped) > _MAX_CALL_TEXT:
        return False
    fenced = _FENCE.match(stripped)
    try:
        value = json.loads(fenced.group(1) if fenced else stripped)
    except (json.JSONDecodeError, RecursionError):
        return False
    candidates = value if isinstance(value, list) else [value]
    return bool(candidates) and all(_names_a_tool(item, tool_names) for item in candidates)


def _names_a_tool(item: Any, tool_names: Collection[str]) -> bool:
    if not isinstance(item, dict):
        return False
    function = item.get("function")
    inner: dict[str, Any] = function if isinstance(function, dict) else item
    name = inner.get("name") or inner.get("tool") or item.get("tool_name")
    has_arguments = any(key in inner for key in ("arguments", "parameters", "args", "input"))
    return isinstance(name, str) and name in tool_names and has_arguments
