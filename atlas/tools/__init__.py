"""The tool contract: what a tool module, built-in or plugin, imports to declare its tools.

`@tool` declares a tool (a function of a pydantic arguments model, or for a built-in tool an
arguments record, and a `ToolContext`), `ToolSpec` is one tool as the executor sees it, and
`Registry` is the immutable set of a run (`atlas.runtime.toolset.load_registry()` gathers the
built-ins and the plugins). A model is offered
only each tool's `ToolDefinition`: data, with no function in it. Running calls is `atlas.executor`'s
job; the built-in tools live in `atlas.orbit` and `atlas.triage`.
"""

from atlas.tools.definition import ToolDefinition
from atlas.tools.registry import Registry, ToolContext, ToolSpec, tool

__all__ = ["Registry", "ToolContext", "ToolDefinition", "ToolSpec", "tool"]
