"""What a model is told about one tool: plain data, with no function to call and no pydantic model.

Models and their adapters (`atlas.llm`, `atlas.offline`) get a sequence of these, never the
registry: what a tool does when called is the executor's business, not the model's.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True, eq=False)
class ToolDefinition:
    """One tool as offered to a model: its name, what it does, its arguments' schema and its flags."""

    name: str
    description: str
    parameters: Mapping[str, Any]
    """The JSON schema of the arguments, neutral: no provider's dialect (adapters translate it)."""
    side_effect: bool = False
    idempotent: bool = True
    strict: bool = True
    """Whether the schema is Atlas's own, so an adapter may hold the model to it exactly; False for
    a schema written elsewhere (an MCP server's), which is passed on as it is."""
