"""`atlas tools`: what the model may call, as a table or as the model-facing schemas."""

from __future__ import annotations

from rich.table import Table

from atlas.runtime.toolset import load_registry
from atlas.tools.registry import Declared, Registry
from atlas.ui.json_out import print_json
from atlas.ui.render import data_table, make_console

MCP_BREAKER_PREFIX = "mcp:"
"""An MCP server's tools share the breaker `mcp:NAME`: that names the server they come from."""


def _server(spec: Declared) -> str:
    key = spec.breaker_key or ""
    return key.removeprefix(MCP_BREAKER_PREFIX) if key.startswith(MCP_BREAKER_PREFIX) else "atlas"


def tools_table(registry: Registry, *, cut: bool = True) -> Table:
    """Name, where it comes from, side effect, idempotent, timeout, cache TTL and the description's first line."""
    from atlas.foundation.config import dataset_name

    project = dataset_name()
    rows = [
        (
            spec.name,
            _server(spec),
            "yes" if spec.side_effect else "no",
            "yes" if spec.idempotent else "no",
            f"{spec.timeout_s:g} s" if spec.timeout_s else "default",
            cache_shown(spec.cache_ttl_s),
            spec.definition(project).description.partition("\n")[0],
        )
        for spec in map(registry.declared, registry)
    ]
    columns = ("tool", "server", "side effect", "idempotent", "timeout", "cache", "description")
    return data_table(columns, rows, cut=("description",) if cut else ())


def cache_shown(ttl_s: float | None) -> str:
    """A TTL as stated: `0 s` is a decision (never cached); `not stated` a plugin that did not say."""
    return "not stated" if ttl_s is None else f"{ttl_s:g} s"


def show_tools(*, as_json: bool, read_only: bool = False) -> None:
    """Atlas's tools and those of every configured, trusted MCP server (started to list them)."""
    from atlas.foundation.config import Settings
    from atlas.mcp.offer import with_mcp_tools

    registry = with_mcp_tools(load_registry(), Settings().home)
    if read_only:
        registry = registry.read_only()
    if as_json:
        # The schemas are what the model is sent; building them needs the openai SDK.
        from atlas.foundation.config import dataset_name
        from atlas.llm.openai_schema import responses_tools

        print_json(responses_tools(registry.definitions(dataset_name())), indent=2)
        return
    console = make_console(for_tables=True)
    console.print(tools_table(registry, cut=console.is_terminal))
