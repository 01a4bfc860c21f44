"""`python -m atlas.runtime.tool_list`: write the built-in tools' list from what their modules declare.

Run it after changing a built-in tool (its description, arguments or flags): `atlas` offers the
tools from the list without importing their modules, and a test fails while the list and the
modules disagree.
"""

from __future__ import annotations

import json
from typing import Any

from atlas.runtime.toolset import BUILTIN_LIST, builtin_modules
from atlas.tools.declared import ToolDeclaration, entry_of
from atlas.tools.registry import ToolSpec, catalogue_snapshot


def declaration_of(spec: ToolSpec[Any]) -> ToolDeclaration:
    """What offering `spec` needs, as its list keeps it."""
    return ToolDeclaration(
        name=spec.name,
        module=spec.fn.__module__,
        description=spec.description,
        parameters=spec.parameters(),
        side_effect=spec.side_effect,
        idempotent=spec.idempotent,
        timeout_s=spec.timeout_s,
        cache_ttl_s=spec.cache_ttl_s,
        editable=spec.editable,
    )


def declared_now() -> tuple[ToolDeclaration, ...]:
    """The built-in tools as their modules declare them: module by module, each in its declaration order."""
    modules = [module.__name__ for module in builtin_modules()]
    specs = catalogue_snapshot().values()
    return tuple(declaration_of(spec) for module in modules for spec in specs if spec.fn.__module__ == module)


def list_text(declarations: tuple[ToolDeclaration, ...]) -> str:
    """The list's file as `write` leaves it."""
    return json.dumps([entry_of(declaration) for declaration in declarations], indent=1, ensure_ascii=False) + "\n"


def write() -> None:
    BUILTIN_LIST.write_text(list_text(declared_now()), encoding="utf-8")


if __name__ == "__main__":
    write()
