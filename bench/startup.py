"""Start-up: how much `atlas --help`, `atlas tools` and an offline `atlas ask` cost over a bare Python.

Every command runs in a fresh process (the `atlas` console script next to this interpreter),
best of several interleaved runs against `python -c pass`, with Atlas's bytecode compiled first
(`compileall`), as installing the wheel leaves it, and a first (discarded) round that leaves what
a first run leaves (the planner's compiled patterns in the cache folder). Peak RSS is the child's own
`ru_maxrss` from `os.wait4`, read by a small fresh parent. Beside them, a Python that only loads
the libraries an offline ask needs (`LIBRARIES_ALONE`): the floor of the ask's ratio. `PYTHONPROFILEIMPORTTIME` shows
whether the openai SDK (about a second of imports) or the MCP SDK (as much again) was loaded by
any of them.
"""

from __future__ import annotations

import subprocess
import tempfile
from collections.abc import Mapping, Sequence
from pathlib import Path

from bench.core import (
    PYTHON,
    Figure,
    absolute_figure,
    atlas_argv,
    best_of,
    busy_note,
    compile_bytecode,
    python_pass,
    quiet_env,
    ratio_figure,
)

SEED_QUESTION = "Compare issues #41 and #87 and check what the error-codes doc says about ORB-1101."
RUNS = 7
ASK = "atlas ask (offline, seed question)"
ASK_RATIO = 15
"""An offline answer within this many times a bare Python's start."""
LIBRARIES = "the libraries an offline ask loads, alone"
LIBRARIES_ALONE = """
import asyncio, json, sqlite3
import rich.console, rich.live, rich.table
from pydantic import BaseModel, ConfigDict, Field

class Args(BaseModel):
    model_config = ConfigDict(extra="forbid", defer_build=True)
    issue_id: int = Field(ge=1)

Args.model_validate_json('{"issue_id": 41}', strict=True)
"""
"""No Atlas code: the executor's asyncio, Rich's output, the data's sqlite3, and one tool's arguments
checked as the executor checks them (a deferred pydantic model, strict JSON). An ask's ratio cannot
go below this one's while it loads them."""


def commands() -> dict[str, list[str]]:
    return {
        "atlas --help": atlas_argv("--help"),
        "atlas tools": atlas_argv("tools"),
        ASK: atlas_argv("ask", SEED_QUESTION),
    }


RSS_PROBE = """
import os, subprocess, sys
child = subprocess.Popen(sys.argv[1:], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
_pid, status, usage = os.wait4(child.pid, 0)
print(os.waitstatus_to_exitcode(status), usage.ru_maxrss)
"""
"""Run from a small fresh process: a child's ru_maxrss also counts the memory it shared with its
parent before exec, so measuring from this (grown) benchmark process would inflate it."""


def peak_rss_mb(argv: Sequence[str], *, env: Mapping[str, str], cwd: Path) -> float:
    """The command's own peak resident set, in MB (Linux reports ru_maxrss in KiB)."""
    probe = subprocess.run(
        [PYTHON, "-c", RSS_PROBE, *argv], env=dict(env), cwd=cwd, capture_output=True, text=True, timeout=60
    )
    code, kib = probe.stdout.split()
    if probe.returncode != 0 or code != "0":
        raise RuntimeError(f"{' '.join(argv)} exited {code}")
    return int(kib) / 1024


def imported_modules(argv: Sequence[str], *, env: Mapping[str, str], cwd: Path) -> tuple[set[str], list[str]]:
    """Top-level packages the command imported, and its three costliest imports (cumulative µs)."""
    done = subprocess.run(
        list(argv), env={**env, "PYTHONPROFILEIMPORTTIME": "1"}, cwd=cwd, capture_output=True, text=True, timeout=60
    )
    packages: set[str] = set()
    costs: list[tuple[int, str]] = []
    for line in done.stderr.splitlines():
        if not line.startswith("import time:") or "[us]" in line:
            continue
        _self, cumulative, raw = line.split(":", 1)[1].split("|")
        name = raw.strip()
        packages.add(name.split(".")[0])
        # Nesting is shown by indentation: a name right after "| " was imported at the top level.
        if not raw.startswith("  "):
            costs.append((int(cumulative), name))
    top = [f"{name} {micros / 1000:.0f} ms" for micros, name in sorted(costs, reverse=True)[:3]]
    return packages, top


def run() -> list[Figure]:
    compile_bytecode()  # as an installed Atlas has it; `python -m bench` has done it already, this checks
    with tempfile.TemporaryDirectory(prefix="atlas-bench-") as name:
        folder = Path(name)
        env = quiet_env(folder / "home")
        measured = commands()
        libraries = [PYTHON, "-c", LIBRARIES_ALONE]
        best = best_of(
            {"python -c pass": python_pass(), LIBRARIES: libraries, **measured}, runs=RUNS, env=env, cwd=folder
        )
        rss = peak_rss_mb(measured[ASK], env=env, cwd=folder)
        base_rss = peak_rss_mb(python_pass(), env=env, cwd=folder)
        imports = {label: imported_modules(argv, env=env, cwd=folder) for label, argv in measured.items()}
    baseline = best["python -c pass"]
    heaviest = {label: ", ".join(top) for label, (_packages, top) in imports.items()}
    figures = []
    for label in measured:
        note = f"best of {RUNS}, interleaved; bytecode compiled (compileall); heaviest imports (one profiled run): "
        note += heaviest[label]
        if label == ASK:
            figure = ratio_figure(label, best[label], baseline, limit=ASK_RATIO, against="python -c pass", note=note)
        else:
            limit = 0.2 if label == "atlas --help" else None
            figure = absolute_figure(
                label, best[label], limit=limit, unit="s", baseline=baseline, against="python -c pass", note=note
            )
        figures.append(busy_note(figure))
    note = "asyncio, Rich (console, live, table), sqlite3, json, one pydantic arguments model validated; "
    note += f"best of {RUNS}, interleaved: the least an offline ask can cost with them"
    figures.append(
        absolute_figure(
            LIBRARIES, best[LIBRARIES], limit=None, unit="s", baseline=baseline, against="python -c pass", note=note
        )
    )
    figures.append(
        absolute_figure(
            "atlas ask (offline): peak RSS",
            rss,
            limit=60,
            unit="MB",
            baseline=base_rss,
            against="python -c pass",
            note="ru_maxrss from os.wait4 in a small fresh parent process",
        )
    )
    for sdk, packages_of_sdk in (("openai", {"openai"}), ("mcp", {"mcp", "mcp_types", "jsonschema"})):
        loaded = [label for label, (packages, _top) in imports.items() if packages & packages_of_sdk]
        figures.append(
            Figure(
                name=f"{sdk} imported by --help / tools / ask",
                measured=", ".join(
                    f"{label.split(' (')[0]}: {'yes' if label in loaded else 'no'}" for label in imports
                ),
                ratio=None,
                target="never",
                met=not loaded,
                note="PYTHONPROFILEIMPORTTIME of each command",
                values={label: float(label in loaded) for label in imports},
            )
        )
    return figures
