"""Every file Atlas reads goes through `atlas.foundation.statefiles`: regular files only, never blocking, bounded.

`Path.read_text`, `Path.read_bytes`, the builtin `open`, `json.load`, `np.load` of a path and
`shutil.copyfile` would each read a FIFO (waiting forever for a writer) or a link to `/dev/zero`
(until memory runs out), so none is allowed anywhere else in the package.
"""

from __future__ import annotations

import ast

from tests.support.source_calls import calls, package_modules

# The reader itself; the one file Atlas reads that only the kernel writes (/proc); and NumPy's
# reader given the file `open_regular` opened, its arrays' sizes checked before they are loaded.
ALLOWED = {
    ("atlas/foundation/statefiles.py", "*"),
    ("atlas/foundation/processes.py", "open"),
    ("atlas/triage/cache.py", "np.load"),
}
FORBIDDEN_METHODS = {"read_text", "read_bytes"}
FORBIDDEN_CALLS = {"open", "io.open", "json.load", "tomllib.load", "np.load", "numpy.load"}
FORBIDDEN_CALLS |= {f"shutil.{name}" for name in ("copy", "copy2", "copyfile", "copyfileobj")}


def _reads(call: ast.Call) -> bool:
    """`path.open("rb")`, `path.open(encoding=...)`: a Path opened to read (not `Project.open(data,
    home)`, not `path.open("w")`)."""
    if not call.args:
        return any(keyword.arg in ("encoding", "errors") for keyword in call.keywords)
    mode = call.args[0]
    return isinstance(mode, ast.Constant) and isinstance(mode.value, str) and "r" in mode.value


def unbounded_reads(source: str) -> list[tuple[int, str]]:
    """(line, call) for each read that bypasses the bounded reader."""
    found = []
    for node, name in calls(source):
        method = node.func.attr if isinstance(node.func, ast.Attribute) else ""
        if name.startswith("statefiles."):
            continue
        if name in FORBIDDEN_CALLS or method in FORBIDDEN_METHODS or (method == "open" and _reads(node)):
            found.append((node.lineno, name))
    return found


def test_no_module_reads_a_file_around_the_bounded_reader() -> None:
    offenders = []
    for where, source in package_modules():
        for line, name in unbounded_reads(source):
            if (where, "*") not in ALLOWED and (where, name) not in ALLOWED:
                offenders.append(f"{where}:{line}: {name}(...)")
    assert not offenders, "read through atlas.foundation.statefiles (read_limited, open_regular):\n" + "\n".join(
        offenders
    )


def test_the_check_sees_each_way_around() -> None:
    source = """
path.read_text(encoding="utf-8")
(home / "x").read_bytes()
open(path)
json.load(file)
np.load(path)
shutil.copyfile(a, b)
path.open("rb")
jsonl.open(encoding="utf-8")
statefiles.read_text(path, limit=1, what="x")
Project.open(data, home)
jsonl.open("w", encoding="utf-8")
"""
    assert [line for line, _ in unbounded_reads(source)] == [2, 3, 4, 5, 6, 7, 8, 9]
