"""A server's tool listing, checked one tool at a time: a tool Atlas cannot use costs only that tool.

The SDK parses a `tools/list` result whole, so one tool with a broken `inputSchema` would fail the
listing and lose the server. The transport hands each listing here first (`atlas.mcp.transport`):
every tool is parsed on its own and its schemas checked (`atlas.mcp.schema.schema_problem`); those
that fail are left out, each named with why, and the rest reach the SDK.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types
from pydantic import ValidationError

from atlas.foundation.errors import describe
from atlas.mcp.schema import schema_problem


def tool_problem(raw: Any) -> str | None:
    """Why the tool `raw` (as the server sent it) cannot be offered, or None."""
    try:
        tool = types.Tool.model_validate(raw, by_name=False)
    except ValidationError as exc:
        return describe(exc)
    problem = schema_problem(tool.input_schema)
    if problem is None and tool.output_schema is not None:
        output = schema_problem(tool.output_schema)
        problem = None if output is None else f"output schema: {output}"
    return problem


def checked_listing(result: dict[str, Any], dropped: list[str]) -> dict[str, Any]:
    """`result` with only the tools Atlas can use; one line per tool left out is added to `dropped`."""
    tools = result.get("tools")
    if not isinstance(tools, list):
        return result  # not a listing at all: the SDK says so, and the server does not start
    kept = []
    for raw in tools:
        problem = tool_problem(raw)
        if problem is None:
            kept.append(raw)
            continue
        name = raw.get("name") if isinstance(raw, dict) else None
        dropped.append(f"tool {str(name)[:64]!r} is not offered: {problem}")
    return {**result, "tools": kept}
