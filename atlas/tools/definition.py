"""What a model is told about one tool: plain data, with no function to call and no pydantic model.

Models and their adapters (`atlas.llm`, `atlas.offline`) get a sequence of these, never the
registry: what a tool does when called is the executor's business, not the model's.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
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


class SchemaWhenRead(Mapping[str, Any]):
    """A JSON schema made by `make` when it is first read, then kept.

    Every tool is offered on every round, but an offline answer reads only the tools' names and
    flags: making each schema builds its arguments model's validator, which would then cost every
    run the tools it never calls."""

    def __init__(self, make: Callable[[], Mapping[str, Any]]) -> None:
        self._make: Callable[[], Mapping[str, Any]] | None = make
        self._schema: Mapping[str, Any] = {}

    def _made(self) -> Mapping[str, Any]:
        if self._make is not None:
            self._schema, self._make = self._make(), None
        return self._schema

    def __getitem__(self, key: str) -> Any:
        return self._made()[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._made())

    def __len__(self) -> int:
        return len(self._made())

    def __repr__(self) -> str:
        return repr(self._made())
