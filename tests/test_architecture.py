"""The shape of the package: an ordered list of layers, each importing only the layers below it; no circle
of imports between modules or packages; and modules and functions of a readable size."""

from __future__ import annotations

import ast
import functools
import itertools
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.support import source_calls

PACKAGE = Path(__file__).resolve().parents[1] / "atlas"
MODULE_LINES = 400
FUNCTION_LINES = 60

LAYERS: tuple[tuple[str, tuple[str, ...]], ...] = (
    # Top first. A package imports only packages of the layers below its own: never one above, never a
    # neighbour in its own layer. `atlas` itself holds only `__version__`, which any module may read.
    ("the entry point", ("atlas.__main__",)),
    ("the command line", ("atlas.cli",)),
    ("the commands' bodies", ("atlas.commands",)),
    ("what a command sets up to answer", ("atlas.runtime",)),
    ("listeners on a session's events", ("atlas.telemetry", "atlas.ui", "atlas.calllog")),
    ("the tool loop", ("atlas.conversation",)),
    ("the offline planner, a model", ("atlas.offline",)),
    ("the models' interface and the wire adapters", ("atlas.llm",)),
    ("what decides on, plans and extends the tools", ("atlas.policy", "atlas.triage", "atlas.evaluation", "atlas.mcp")),
    ("the built-in tools and the executor", ("atlas.orbit", "atlas.executor")),
    ("the tracker of writes", ("atlas.tracker",)),
    ("GitHub", ("atlas.github",)),
    (
        "the tool contract, a team's state, datasets, the protocol",
        ("atlas.tools", "atlas.state", "atlas.dataset", "atlas.protocol"),
    ),
    ("the ground floor", ("atlas.foundation",)),
)
ROOT = "atlas"

TOOL_SIDE = ("atlas.policy", "atlas.triage", "atlas.evaluation", "atlas.mcp", "atlas.orbit", "atlas.executor")
TOOL_SIDE += ("atlas.tracker", "atlas.github", "atlas.tools")
DEFINITIONS_ONLY = ("atlas.llm", "atlas.offline", "atlas.ui", "atlas.telemetry", "atlas.calllog")
"""Models and listeners know a tool by its definition (data): of the tool side they import only this."""
TOOL_DEFINITION = "atlas.tools.definition"

THIRD_PARTY_HOMES = {
    # A provider's SDK stays in the model adapters, the terminal libraries in the UI and the command line.
    "openai": ("atlas.llm", "atlas.commands"),
    "rich": ("atlas.ui", "atlas.commands"),
    "prompt_toolkit": ("atlas.ui",),
    "typer": ("atlas.cli", "atlas.commands"),
    # The tool contract and the executor hold no database: the tools and the stores do.
    "sqlite3": tuple(
        f"atlas.{name}"
        for name in ("calllog", "commands", "dataset", "foundation", "offline", "orbit", "state", "triage")
    ),
}
OPENTELEMETRY_HOMES = ("atlas.telemetry.tracing", "atlas.telemetry.model")
"""The only modules that import the OpenTelemetry SDK: nothing else pays for it when telemetry is off."""


def modules() -> Iterator[tuple[str, Path]]:
    for path in sorted(PACKAGE.rglob("*.py")):
        parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
        name = ".".join(parts[:-1] if parts[-1] == "__init__" else parts)
        yield name, path


@functools.cache  # each module is read by four tests, the graph and the one-way checks: parsed once per process
def parsed(path: Path) -> tuple[str, tuple[ast.AST, ...]]:
    """The module's source and every node of its syntax tree."""
    source = path.read_text(encoding="utf-8")
    return source, source_calls.nodes(source)


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


def layer_of(package: str) -> int:
    """The package's place in `LAYERS`, 0 at the top."""
    return next(index for index, (_, packages) in enumerate(LAYERS) if package in packages)


def test_every_package_has_one_layer() -> None:
    listed = [package for _, packages in LAYERS for package in packages]
    found = {package_of(name) for name, _ in modules()} - {ROOT}
    assert sorted(listed) == sorted(set(listed)), "a package is listed in two layers"
    assert set(listed) == found


@pytest.mark.parametrize(("name", "path"), list(modules()), ids=lambda value: str(value))
def test_no_module_imports_its_own_layer_or_one_above(name: str, path: Path) -> None:
    own = layer_of(package_of(name)) if name != ROOT else len(LAYERS)
    wrong = sorted(
        target
        for target in import_graph()[name]
        if package_of(target) not in (ROOT, package_of(name)) and layer_of(package_of(target)) <= own
    )
    assert not wrong, f"{name} ({LAYERS[own][0]}) imports {wrong}"


@pytest.mark.parametrize(("name", "path"), list(modules()), ids=lambda value: str(value))
def test_models_and_listeners_know_a_tool_only_by_its_definition(name: str, path: Path) -> None:
    if package_of(name) not in DEFINITIONS_ONLY:
        return
    wrong = sorted(
        target
        for target in imports(path)
        if any(within(target, side) for side in TOOL_SIDE) and not within(target, TOOL_DEFINITION)
    )
    assert not wrong, f"{name} imports {wrong}"


@pytest.mark.parametrize(("name", "path"), list(modules()), ids=lambda value: str(value))
def test_an_sdk_or_a_terminal_library_is_imported_only_in_its_homes(name: str, path: Path) -> None:
    wrong = sorted(
        target
        for target in imports(path)
        for library, homes in THIRD_PARTY_HOMES.items()
        if within(target, library) and package_of(name) not in homes
    )
    assert not wrong, f"{name} imports {wrong}"


GROUND_FLOOR = {
    "atlas.foundation.sanitize": frozenset[str](),
    "atlas.foundation.notices": frozenset({"atlas.foundation.sanitize"}),
}
"""Modules every layer may use, so they use (almost) nothing of Atlas themselves."""


@pytest.mark.parametrize("name", sorted(GROUND_FLOOR))
def test_the_ground_floor_imports_nothing_above_it(name: str) -> None:
    assert import_graph()[name] <= GROUND_FLOOR[name]
    assert not any(within(target, "rich") for target in imports(dict(modules())[name]))


PLUGIN_LOADER = "atlas.tools.registry"
"""The one module that imports by a name it is given: the plugins a user names (`ATLAS_TOOL_MODULES`), and
a built-in tool's module at its first use (each also imported by a statement in `atlas.runtime.toolset`)."""


@pytest.mark.parametrize(("name", "path"), list(modules()), ids=lambda value: str(value))
def test_no_module_of_atlas_is_imported_by_a_string(name: str, path: Path) -> None:
    """An import the architecture checks cannot see is one they cannot check: Atlas's own modules are
    imported by statements; a name in a string is only ever a plugin's."""
    hidden = []
    for node in parsed(path)[1]:
        if not isinstance(node, ast.Call) or not node.args:
            continue
        called = ast.unparse(node.func)
        if called.split(".")[-1] not in ("import_module", "__import__"):
            continue
        argument = node.args[0]
        literal = isinstance(argument, ast.Constant) and isinstance(argument.value, str)
        if (literal and within(argument.value, "atlas")) or (not literal and name != PLUGIN_LOADER):
            hidden.append(f"{called}({ast.unparse(argument)}) at line {node.lineno}")
    assert not hidden, f"{name}: {hidden}"


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
