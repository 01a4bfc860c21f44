"""The tool contract: what a tool module, built-in or plugin, imports to declare its tools.

`@tool` declares a tool (a function of a pydantic arguments model and a `ToolContext`), `ToolSpec`
is one tool as the executor and the model see it, and `Registry` is the immutable set offered to
a model (`load_registry()` gathers the built-ins and the plugins). Running calls is
`atlas.executor`'s job; the built-in tools live in `atlas.orbit`.
"""

from atlas.tools.registry import Registry, ToolContext, ToolSpec, load_registry, tool

__all__ = ["Registry", "ToolContext", "ToolSpec", "load_registry", "tool"]
