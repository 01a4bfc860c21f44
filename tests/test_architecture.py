"""The shape of the package: layers that import only downward, no circle of imports between modules or
packages, and modules and functions of a readable size."""

from __future__ import annotations

import ast
import functools
import itertools
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
    # Triage reads issues as the Orbit tools do and learns from them; its commands and review sit above it.
    "atlas.triage": (*ABOVE_THE_TOOLS, *TERMINAL_AND_SDK, "atlas.calllog", "atlas.executor", "atlas.mcp"),
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
    # The offline planner reads tool definitions, never the registry nor a tool module's internals.
    "atlas.offline": (
        "atlas.commands",
        "atlas.cli",
        "atlas.runtime",
        "atlas.ui",
        "atlas.executor",
        "atlas.tools.registry",
        "atlas.orbit",
        "atlas.tracker",
        "atlas.github",
        "openai",
        "rich",
    ),
    # Models are told of tools by their definitions (data), never handed the registry.
    "atlas.llm": (
        "atlas.commands",
        "atlas.cli",
        "atlas.runtime",
        "atlas.ui",
        "atlas.executor",
        "atlas.tools.registry",
        "rich",
    ),
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
    "atlas.mcp": (
        "atlas.commands",
        "atlas.cli",
        "atlas.runtime",
        "atlas.loop",
        "atlas.offline",
        "atlas.ui",
        "rich",
        "openai",
    ),
}
GROUND_FLOOR = {"atlas.sanitize": frozenset[str](), "atlas.notices": frozenset({"atlas.sanitize"})}
"""Modules every layer may use, so they use (almost) nothing of Atlas themselves."""


@pytest.mark.parametrize("name", sorted(GROUND_FLOOR))
def test_the_ground_floor_imports_nothing_above_it(name: str) -> None:
    assert import_graph()[name] <= GROUND_FLOOR[name]
    assert not any(within(target, "rich") for target in imports(dict(modules())[name]))


OPENTELEMETRY_HOMES = ("atlas.telemetry.tracing", "atlas.telemetry.model")
"""The only modules that import the OpenTelemetry SDK: nothing else pays for it when telemetry is off."""


def modules() -> Iterator[tuple[str, Path]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        yield name, path


@functools.cache  # each module is read by four tests and the graph: parsed once per test process
def parsed(path: Path) -> tuple[str, list[ast.AST]]:
    """The module's source and every node of its syntax tree."""
    source = path.read_text(encoding="utf-8")
    return source, list(ast.walk(ast.parse(source)))


@functools.cache
def imports(path: Path) -> tuple[str, ...]:
    found: list[str] = []
    for node in parsed(path)[1]:
        if isinstance(node, ast.Import):
            found.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            found.append(node.module)
            found.extend(f"{node.module}.{alias.name}" for alias in node.names)
    return tuple(found)


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
    source, nodes = parsed(path)
    assert source.count("\n") < MODULE_LINES, f"{name} has {source.count(chr(10))} lines"
    long = [
        f"{node.name} ({node.end_lineno - node.lineno + 1} lines)"
        for node in nodes
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef)
        and node.end_lineno is not None
        and node.end_lineno - node.lineno + 1 > FUNCTION_LINES
    ]
    assert not long, f"{name}: {long}"


KNOWN_BACK_EDGES: frozenset[tuple[str, str]] = frozenset()


@functools.cache  # every module parsed once per test process, not once per test that reads the graph
def import_graph() -> dict[str, set[str]]:
    """Each module's imports of other Atlas modules, lazy and type-only ones included: `from a import b`
    counts as importing `a.b` when that is a module, else `a`."""
    names = dict(modules())
    graph: dict[str, set[str]] = {}
    for name, path in names.items():
        targets = set(imports(path))
        graph[name] = {target for target in targets if target in names and target != name}
        # `from a.b import c` yields both `a.b` and `a.b.c`: keep the deepest module only.
        graph[name] -= {t for t in graph[name] if any(o != t and o.startswith(t + ".") for o in graph[name])}
    return graph


def package_of(name: str) -> str:
    """`atlas.orbit.issues` -> `atlas.orbit`; a top-level module is its own package."""
    return ".".join(name.split(".")[:2])


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Every circle a depth-first walk meets (one per back edge), as the path that closes it."""
    found: list[list[str]] = []
    state: dict[str, int] = {}  # 1: on the current path, 2: done
    path: list[str] = []

    def visit(node: str) -> None:
        state[node] = 1
        path.append(node)
        for target in sorted(graph.get(node, ())):
            if state.get(target) == 1:
                found.append([*path[path.index(target) :], target])
            elif target not in state:
                visit(target)
        path.pop()
        state[node] = 2

    for node in sorted(graph):
        if node not in state:
            visit(node)
    return found


def test_no_two_packages_import_each_other() -> None:
    packages: dict[str, set[str]] = {}
    for name, targets in import_graph().items():
        packages.setdefault(package_of(name), set()).update(
            package_of(target) for target in targets if package_of(target) != package_of(name)
        )
    assert cycles(packages) == []


def test_no_modules_import_each_other() -> None:
    found = [
        cycle
        for cycle in cycles(import_graph())
        if not any(edge in KNOWN_BACK_EDGES for edge in itertools.pairwise(cycle))
    ]
    assert found == []


def test_the_cycle_check_finds_a_circle() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c", "a"]]
    assert cycles({"a": {"b"}, "b": set()}) == []
