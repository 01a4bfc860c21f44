"""Every line Atlas writes goes through the sanitiser: no module prints any other way.

Plain lines go through `atlas.sanitize.write_line`, JSON through `atlas.json_out.print_json`,
everything else through a console from `atlas.ui.render.make_console`, which cleans whatever it
renders. A `print`, a `sys.stdout.write`, a `typer.echo` or a console of its own would be a way
around them, so none is allowed anywhere in the package.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

PACKAGE = Path(__file__).resolve().parents[1] / "atlas"
# Where writing to a stream is the job: the writers themselves.
WRITERS = {"atlas/sanitize.py", "atlas/ui/render.py"}
_STREAM_WRITE = re.compile(r"sys\.(__)?std(out|err)(__)?\.(buffer\.)?write(lines)?$")


def _dotted(node: ast.expr) -> str:
    if isinstance(node, ast.Name):
        return node.id
    if isinstance(node, ast.Attribute):
        return f"{_dotted(node.value)}.{node.attr}"
    return "?"


def bypasses(source: str) -> list[tuple[int, str]]:
    """(line, what) for each way around the sanitiser in one module's source."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Call):
            continue
        name = _dotted(node.func)
        last = name.rsplit(".", 1)[-1]
        if (
            name in ("print", "pprint", "typer.echo", "typer.secho", "click.echo", "click.secho")
            or _STREAM_WRITE.match(name)
            or name.endswith(".file.write")
            or last == "Console"
        ):
            found.append((node.lineno, name))
    return found


def test_no_module_writes_around_the_sanitiser() -> None:
    offenders = []
    for path in sorted(PACKAGE.rglob("*.py")):
        where = path.relative_to(PACKAGE.parent).as_posix()
        if where in WRITERS:
            continue
        offenders += [f"{where}:{line}: {name}(...)" for line, name in bypasses(path.read_text(encoding="utf-8"))]
    assert not offenders, "write through write_line, print_json or make_console:\n" + "\n".join(offenders)


def test_the_check_sees_each_way_around() -> None:
    source = """
print(title)
sys.stdout.write(title)
sys.stderr.write(title)
sys.stdout.buffer.write(title)
sys.stdout.flush()
typer.echo(title)
console.file.write(title)
screen = Console(file=out)
screen = rich.console.Console()
write_line(title)
"""
    assert [line for line, _ in bypasses(source)] == [2, 3, 4, 5, 7, 8, 9, 10]
