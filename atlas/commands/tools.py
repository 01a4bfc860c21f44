"""`atlas tools`: what the model may call, as a table or as the model-facing schemas."""

from __future__ import annotations

import json

from rich.table import Table

from atlas.tools.registry import Registry, load_registry
from atlas.ui.render import data_table, make_console


def tools_table(registry: Registry, *, cut: bool = True) -> Table:
    """Name, side effect, idempotent, timeout, cache TTL and the first line of the description, per tool."""
    rows = [
        (
            spec.name,
            "yes" if spec.side_effect else "no",
            "yes" if spec.idempotent else "no",
            f"{spec.timeout_s:g} s" if spec.timeout_s else "default",
            cache_shown(spec.cache_ttl_s),
            spec.description.splitlines()[0] if spec.description else "",
        )
        for spec in registry.values()
    ]
    columns = ("tool", "side effect", "idempotent", "timeout", "cache", "description")
    return data_table(columns, rows, cut=("description",) if cut else ())


def cache_shown(ttl_s: float | None) -> str:
    """A TTL as stated: `0 s` is a decision (never cached); `not stated` a plugin that did not say."""
    return "not stated" if ttl_s is None else f"{ttl_s:g} s"


def show_tools(*, as_json: bool, read_only: bool = False) -> None:
    registry = load_registry()
    if read_only:
        registry = registry.read_only()
    if as_json:
        # The schemas are what the model is sent; building them needs the openai SDK.
        from atlas.llm.openai_schema import responses_tools

        print(json.dumps(responses_tools(registry), indent=2))
        return
    console = make_console(for_tables=True)
    console.print(tools_table(registry, cut=console.is_terminal))
