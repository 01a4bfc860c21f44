"""The calls in a module's source, each with the dotted name it calls: what the one-way-in and
one-way-out checks read."""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[2] / "atlas"


def dotted(node: ast.expr) -> str:
    """`sys.stdout.write` for that attribute chain; `?` for any part that is not a plain name."""
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{dotted(node.value)}.{node.attr}"
    return "?"


@functools.cache  # the architecture test and the one-way checks read every module: parsed once per test process
def nodes(source: str) -> tuple[ast.AST, ...]:
    """Every node of the syntax tree of `source`."""
    return tuple(ast.walk(ast.parse(source)))


def calls(source: str) -> Iterator[tuple[ast.Call, str]]:
    """Each call in `source` with the dotted name of what it calls."""
    for node in nodes(source):
        if isinstance(node, ast.Call):
            yield node, dotted(node.func)


def package_modules() -> Iterator[tuple[str, str]]:
    """Each module of the package as (`atlas/...py`, its source), in path order."""
    for path in sorted(PACKAGE.rglob("*.py")):
        yield path.relative_to(PACKAGE.parent).as_posix(), path.read_text(encoding="utf-8")
