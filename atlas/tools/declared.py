"""A tool declared ahead of its module: what offering it needs, without importing its implementation.

A run offers every built-in tool but calls a few. Importing every tool module to describe them
costs each run the modules (and their arguments models) of the tools it never calls, so the
built-ins are listed as data (`atlas/runtime/builtin_tools.json`): name, description, arguments'
JSON schema and flags, each with the module that declares it. The registry imports that module at
the tool's first use, and a test holds the list equal to what the modules declare.
"""

from __future__ import annotations

import copy
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, NamedTuple

from atlas.foundation import statefiles
from atlas.tools.definition import SchemaWhenRead, ToolDefinition

PROJECT_MARK = "{project}"
"""Where a built-in tool's description names the project whose data it reads."""
PROJECT_DEFAULT = "the project"


class ToolDeclaration(NamedTuple):
    """One tool as it is offered before its module is imported (the registry imports it at first use)."""

    name: str
    module: str
    """The module whose `@tool` declares it: imported when the tool is first used."""
    description: str
    parameters: Mapping[str, Any]
    """The JSON schema of its arguments, as its arguments model makes it."""
    side_effect: bool = False
    idempotent: bool = True
    timeout_s: float | None = None
    cache_ttl_s: float | None = None
    editable: str | None = None
    annotations: dict[str, bool] | None = None
    """Always None: hints come from MCP servers, whose tools are never declared ahead."""
    breaker_key: str | None = None
    """Always None: a built-in tool has a breaker of its own."""

    def definition(self, project: str = PROJECT_DEFAULT) -> ToolDefinition:
        """The tool as a model is told of it, as `ToolSpec.definition` tells it: `{project}` names `project`."""
        parameters = self.parameters
        return ToolDefinition(
            name=self.name,
            description=self.description.replace(PROJECT_MARK, project),
            parameters=SchemaWhenRead(lambda: copy.deepcopy(dict(parameters))),
            side_effect=self.side_effect,
            idempotent=self.idempotent,
            strict=True,
        )


LIST_LIMIT = statefiles.MiB
"""The most of a tools' list that is read."""


def read_declarations(path: Path) -> tuple[ToolDeclaration, ...]:
    """The declarations listed in the JSON file at `path` (see `declarations_from`)."""
    return declarations_from(json.loads(statefiles.read_limited(path, limit=LIST_LIMIT, what="a tools' list")))


FIELDS = ("description", "parameters", "side_effect", "idempotent", "timeout_s", "cache_ttl_s", "editable")
"""What the list keeps of each tool beside its name and module."""


def declarations_from(entries: object) -> tuple[ToolDeclaration, ...]:
    """The declarations in a list read from JSON: each entry an object with `name`, `module` and `FIELDS`."""
    if not isinstance(entries, list):
        raise ValueError("the built-in tools' list is not a JSON list")
    found = []
    for entry in entries:
        if not isinstance(entry, dict) or set(entry) != {"name", "module", *FIELDS}:
            raise ValueError(f"the built-in tools' list has an entry that is not a tool: {str(entry)[:80]}")
        found.append(ToolDeclaration(**entry))
    return tuple(found)


def entry_of(declaration: ToolDeclaration) -> dict[str, Any]:
    """One tool as the list keeps it (the inverse of `declarations_from`)."""
    kept = {"name": declaration.name, "module": declaration.module}
    return kept | {name: getattr(declaration, name) for name in FIELDS}
