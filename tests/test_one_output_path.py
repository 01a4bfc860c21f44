"""Every line Atlas writes goes through the sanitiser: no module prints any other way.

Plain lines go through `atlas.foundation.sanitize.write_line`, JSON through `atlas.ui.json_out.print_json`,
everything else through a console from `atlas.ui.render.make_console`, which cleans whatever it
renders. A `print`, a `sys.stdout.write`, a `typer.echo` or a console of its own would be a way
around them, so none is allowed anywhere in the package.
"""

from __future__ import annotations

import re

from tests.support.source_calls import calls, package_modules

# Where writing to a stream is the job: the writers themselves.
WRITERS = {"atlas/foundation/sanitize.py", "atlas/ui/render.py"}
_STREAM_WRITE = re.compile(r"sys\.(__)?std(out|err)(__)?\.(buffer\.)?write(lines)?$")


def bypasses(source: str) -> list[tuple[int, str]]:
    """(line, what) for each way around the sanitiser in one module's source."""
    found = []
    for node, name in calls(source):
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
    for where, source in package_modules():
        if where in WRITERS:
            continue
        offenders += [f"{where}:{line}: {name}(...)" for line, name in bypasses(source)]
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
