"""The tools a run offers: the built-ins, declared ahead from their list, then the plugins.

The registry (`atlas.tools`) sits below every tool module and names none of them; this list sits
above them. A run imports a built-in tool's module only when the tool is first used: the list
(`builtin_tools.json`) holds what offering them needs, and `builtin_modules()` imports them all,
each an import the architecture test sees, for `atlas.runtime.tool_list` to write that list from.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from pathlib import Path
from types import ModuleType

from atlas.tools.declared import ToolDeclaration, read_declarations
from atlas.tools.registry import Registry, gather_registry

BUILTIN_LIST = Path(__file__).with_name("builtin_tools.json")
"""The built-in tools as their modules declare them, in the order they are offered."""


def builtin_modules() -> tuple[ModuleType, ...]:
    """Every built-in tool module, imported (importing one declares its tools), in the order their tools are offered."""
    from atlas.orbit import comments, docs, issues, label_list, labels, tally
    from atlas.triage import backlog_tools
    from atlas.triage import tools as triage_tools

    return (issues, comments, docs, label_list, labels, tally, triage_tools, backlog_tools)


def builtin_declarations() -> tuple[ToolDeclaration, ...]:
    """The built-in tools from their list, none of their modules imported."""
    return read_declarations(BUILTIN_LIST)


def load_registry(
    extra_modules: Iterable[str] | None = None, *, on_problem: Callable[[str], None] | None = None
) -> Registry:
    """Built-in tools, then `ATLAS_TOOL_MODULES` (or `extra_modules`), then the `atlas.tools` entry points."""
    return gather_registry(BUILTIN_LIST, extra_modules, on_problem=on_problem)
