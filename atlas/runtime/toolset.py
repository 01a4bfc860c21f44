"""The tools a run offers: the built-ins, imported here by name, then the plugins.

The registry (`atlas.tools`) sits below every tool module and names none of them; this list sits
above them, so each built-in module is an import the architecture test sees, not a string.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable

from atlas.orbit import comments, docs, issues, label_list, labels, tally
from atlas.tools.registry import Registry, gather_registry
from atlas.triage import backlog_tools
from atlas.triage import tools as triage_tools

BUILTIN_MODULES = (issues, docs, label_list, tally, labels, comments, triage_tools, backlog_tools)
"""Importing them declares their tools; only tools declared in them (or in plugins) are offered."""


def load_registry(
    extra_modules: Iterable[str] | None = None, *, on_problem: Callable[[str], None] | None = None
) -> Registry:
    """Built-in tools, then `ATLAS_TOOL_MODULES` (or `extra_modules`), then the `atlas.tools` entry points."""
    return gather_registry(BUILTIN_MODULES, extra_modules, on_problem=on_problem)
