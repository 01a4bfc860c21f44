"""Tools as the OpenAI wire describes them, for the Responses and the Chat Completions API.

Built from each tool's neutral description (name, description, the pydantic model of its
arguments, or a foreign JSON schema) by the openai SDK's strict-schema helper, so both adapters
send the same schema. The registry knows nothing of this dialect; only the adapters use it.
"""

from __future__ import annotations

from typing import Any

from openai import pydantic_function_tool

from atlas.tools.registry import Registry, ToolSpec

STRICT_UNSUPPORTED = frozenset({"default", "minLength", "maxLength", "title"})
"""Dropped from model-facing schemas: strict mode makes every property required (so a default
says nothing) and the API refuses some keywords. Pydantic still enforces them on the arguments."""


def function_definition(spec: ToolSpec[Any]) -> dict[str, Any]:
    """`{"name", "description", "parameters", "strict"}`: one tool in the strict JSON-schema form.

    A schema from elsewhere (an MCP server's) goes as it is, not strict: strict mode would make
    every optional property of a foreign schema required.
    """
    if spec.input_schema is not None:
        return {"name": spec.name, "description": spec.description, "parameters": spec.parameters(), "strict": False}
    tool = pydantic_function_tool(spec.args_model, name=spec.name, description=spec.description)
    function = dict(tool["function"])
    function["parameters"] = without_keywords(function["parameters"], STRICT_UNSUPPORTED)
    return function


def responses_tools(registry: Registry) -> list[dict[str, Any]]:
    """The Responses API's `tools`: `{"type": "function", "name": ..., "parameters": ...}`."""
    return [{"type": "function", **function_definition(spec)} for spec in registry.values()]


def chat_tools(registry: Registry) -> list[dict[str, Any]]:
    """Chat Completions' `tools`: `{"type": "function", "function": {"name": ..., "parameters": ...}}`."""
    return [{"type": "function", "function": function_definition(spec)} for spec in registry.values()]


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
