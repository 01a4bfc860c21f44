"""Tools as the OpenAI wire describes them, for the Responses and the Chat Completions API.

Built from each tool's neutral definition (name, description, the JSON schema of its arguments)
by the openai SDK's strict-schema rules, so both adapters send the same schema. The tools know
nothing of this dialect; only the adapters use it.
"""

from __future__ import annotations

import copy
from collections.abc import Sequence
from typing import Any

from openai.lib._pydantic import _ensure_strict_json_schema

from atlas.tools.definition import ToolDefinition

STRICT_UNSUPPORTED = frozenset({"default", "minLength", "maxLength", "title"})
"""Dropped from model-facing schemas: strict mode makes every property required (so a default
says nothing) and the API refuses some keywords. Pydantic still enforces them on the arguments."""


def function_definition(tool: ToolDefinition) -> dict[str, Any]:
    """`{"name", "description", "parameters", "strict"}`: one tool in the strict JSON-schema form.

    A schema from elsewhere (an MCP server's) goes as it is, not strict: strict mode would make
    every optional property of a foreign schema required.
    """
    if not tool.strict:
        return {"name": tool.name, "description": tool.description, "parameters": tool.parameters, "strict": False}
    # What the SDK's `pydantic_function_tool` does with a model's schema, applied to the schema itself.
    schema = copy.deepcopy(dict(tool.parameters))
    strict = _ensure_strict_json_schema(schema, path=(), root=schema)
    parameters = without_keywords(strict, STRICT_UNSUPPORTED)
    return {"name": tool.name, "strict": True, "parameters": parameters, "description": tool.description}


def responses_tools(tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    """The Responses API's `tools`: `{"type": "function", "name": ..., "parameters": ...}`."""
    return [{"type": "function", **function_definition(tool)} for tool in tools]


def chat_tools(tools: Sequence[ToolDefinition]) -> list[dict[str, Any]]:
    """Chat Completions' `tools`: `{"type": "function", "function": {"name": ..., "parameters": ...}}`."""
    return [{"type": "function", "function": function_definition(tool)} for tool in tools]


def without_keywords(node: Any, drop: frozenset[str]) -> Any:
    if isinstance(node, dict):
        # "properties" maps names to schemas: a property may itself be called "title" or "default".
        return {
            key: (
                {name: without_keywords(sub, drop) for name, sub in value.items()}
                if key == "properties" and isinstance(value, dict)
                else without_keywords(value, drop)
            )
            for key, value in node.items()
            if key == "properties" or key not in drop
        }
    if isinstance(node, list):
        return [without_keywords(item, drop) for item in node]
    return node
