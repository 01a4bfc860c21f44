"""The shape of the package: layers that import only downward, and modules and functions of a readable size."""

from __future__ import annotations

import ast
from collections.abc import Iterator
from pathlib import Path

import pytest

PACKAGE = Path(__file__).resolve().parents[1] / "atlas"
MODULE_LINES = 400
FUNCTION_LINES = 60

ABOVE_THE_TOOLS = (
    "atlas.commands",
    "atlas.cli",
    "atlas.runtime",
    "atlas.loop",
    "atlas.llm",
    "atlas.offline",
    "atlas.ui",
)
TERMINAL_AND_SDK = ("openai", "rich", "prompt_toolkit")

FORBIDDEN: dict[str, tuple[str, ...]] = {
    # A layer may not import what sits above it, nor a provider's SDK below the adapters.
    "atlas.ui": ("atlas.commands", "atlas.cli", "atlas.runtime", "atlas.loop", "atlas.offline", "openai"),
    # The contract knows no engine and no content: plugins import it, and it imports none of them.
    "atlas.tools": (
        *ABOVE_THE_TOOLS,
        *TERMINAL_AND_SDK,
        "atlas.calllog",
        "atlas.executor",
        "atlas.orbit",
        "atlas.tracker",
        "atlas.github",
        "atlas.mcp",
        "sqlite3",
    ),
    "atlas.executor": (
        *ABOVE_THE_TOOLS,
        *TERMINAL_AND_SDK,
        "atlas.calllog",
        "atlas.orbit",
        "atlas.tracker",
        "atlas.github",
        "atlas.mcp",
        "sqlite3.dbapi2",
    ),
    "atlas.orbit": (
        *ABOVE_THE_TOOLS,
        *TERMINAL_AND_SDK,
        "atlas.calllog",
        "atlas.executor",
        "atlas.mcp",
        "atlas.github",
    ),
    "atlas.tracker": (*ABOVE_THE_TOOLS, *TERMINAL_AND_SDK, "atlas.calllog", "atlas.executor", "atlas.mcp"),
    "atlas.github": (
        *ABOVE_THE_TOOLS,
        *TERMINAL_AND_SDK,
        "atlas.calllog",
        "atlas.tools",
        "atlas.executor",
        "atlas.orbit",
        "atlas.tracker",
        "atlas.mcp",
    ),
    # The offline planner reads tool descriptions (`atlas.tools`), never a tool module's internals.
    "atlas.offline": (
        "atlas.commands",
        "atlas.cli",
        "atlas.runtime",
        "atlas.ui",
        "atlas.executor",
        "atlas.orbit",
        "atlas.tracker",
        "atlas.github",
        "openai",
        "rich",
    ),
    "atlas.llm": ("atlas.commands", "atlas.cli", "atlas.runtime", "atlas.ui", "atlas.executor", "rich"),
    "atlas.loop": ("atlas.commands", "atlas.cli", "atlas.runtime", "atlas.ui", "rich", "prompt_toolkit", "openai"),
    "atlas.calllog": (
        "atlas.commands",
        "atlas.cli",
        "atlas.ui",
        "atlas.tools",
        "atlas.executor",
        "atlas.orbit",
        "atlas.tracker",
        "atlas.llm",
        "rich",
    ),
    "atlas.telemetry": ("atlas.commands", "atlas.cli", "atlas.runtime", "atlas.ui", "rich", "prompt_toolkit", "openai"),
    "atlas.mcp": ("atlas.commands", "atlas.cli", "atlas.runtime", "atlas.loop", "atlas.offline", "openai"),
}
OPENTELEMETRY_HOMES = ("atlas.telemetry.tracing", "atlas.telemetry.model")
"""The only modules that import the OpenTelemetry SDK: nothing else pays for it when telemetry is off."""


def modules() -> Iterator[tuple[str, Path]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        yield name, path


def imports(path: Path) -> Iterator[str]:
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            yield from (alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            yield node.module
            yield from (f"{node.module}.{alias.name}" for alias in node.names)


def within(name: str, prefix: str) -> bool:
    return name == prefix or name.startswith(prefix + ".")


@pytest.mark.parametrize(("name", "path"), list(modules()), ids=lambda value: str(value))
def test_no_module_imports_a_layer_above_it(name: str, path: Path) -> None:
    rules = [forbidden for layer, forbidden in FORBIDDEN.items() if within(name, layer)]
    imported = set(imports(path))
    wrong = sorted(
        target for target in imported for forbidden in rules for prefix in forbidden if within(target, prefix)
    )
    assert not wrong, f"{name} imports {wrong}"


@pytest.mark.parametrize(("name", "path"), list(modules()), ids=lambda value: str(value))
def test_only_the_tracer_imports_opentelemetry(name: str, path: Path) -> None:
    if name in OPENTELEMETRY_HOMES:
        return
    top_level = [target for target in imports(path) if within(target, "opentelemetry")]
    assert not top_level, f"{name} imports {sorted(set(top_level))}"


@pytest.mark.parametrize(("name", "path"), list(modules()), ids=lambda value: str(value))
def test_modules_and_functions_stay_readable(name: str, path: Path) -> None:
    source = path.read_text(encoding="utf-8")
    assert source.count("\n") < MODULE_LINES, f"{name} has {source.count(chr(10))} lines"
    long = [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in ast.walk(ast.parse(source))
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > FUNCTION_LINES
    ]
    assert not long, f"{name}: {long}"
