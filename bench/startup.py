"""Start-up: how much `atlas --help`, `atlas tools` and an offline `atlas ask` cost over a bare Python.

Every command runs in a fresh process (the `atlas` console script next to this interpreter),
best of several interleaved runs against `python -c pass`, with Atlas's bytecode compiled first
(`compileall`), as installing the wheel leaves it, and a first (discarded) round that leaves what
a first run leaves (the planner's compiled patterns in the cache folder). Their output goes to
pipes, as in a script: there an ask writes plain lines and never loads Rich. The same ask is also
timed on a pseudo-terminal (`ASK_ON_A_TERMINAL`), where Rich draws its live rows and its Markdown,
as a person at a terminal sees it. Peak RSS is the child's own `ru_maxrss` from `os.wait4`, read by a
small fresh parent. Beside them, a Python that only loads the libraries a piped offline ask needs
(`LIBRARIES_ALONE`): the floor of the ask's ratio. `PYTHONPROFILEIMPORTTIME` shows whether the openai
SDK (about a second of imports) or the MCP SDK (as much again) was loaded by any of them.
"""

from __future__ import annotations

import fcntl
import os
import struct
import subprocess
import tempfile
import termios
import time
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
    run_timed,
)

SEED_QUESTION = "Compare issues #41 and #87 and check what the error-codes doc says about ORB-1101."
RUNS = 7
ASK = "atlas ask (offline, seed question, output to pipes)"
ASK_RATIO = 15
"""An offline answer within this many times a bare Python's start."""
ASK_ON_A_TERMINAL = "atlas ask (offline, seed question, on a terminal)"
TERMINAL_SIZE = (50, 160)
"""Rows and columns of the pseudo-terminal (the same width as the pipes' `COLUMNS`)."""
LIBRARIES = "the libraries a piped offline ask loads, alone"
LIBRARIES_ALONE = """
import asyncio, json, sqlite3
"""
"""No Atlas code: the executor's asyncio, the data's sqlite3 and json. A piped ask's ratio cannot go
below this one's while it loads them (on a terminal it loads Rich as well). A built-in tool's
well-formed arguments are checked without pydantic (`atlas.tools.arguments`), so pydantic is not
among them (until 2026-12-07 this script also validated one pydantic arguments model)."""


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


def on_a_terminal(argv: Sequence[str], *, env: Mapping[str, str], cwd: Path) -> float:
    """Wall time of one process whose standard streams are a fresh pseudo-terminal, from spawn to exit,
    its output read as it comes (a terminal's buffer is small: an unread one would stall the process)."""
    controller, terminal = os.openpty()
    fcntl.ioctl(terminal, termios.TIOCSWINSZ, struct.pack("HHHH", *TERMINAL_SIZE, 0, 0))
    started = time.perf_counter()
    try:
        child = subprocess.Popen(
            list(argv), stdin=terminal, stdout=terminal, stderr=terminal, env=dict(env), cwd=cwd, start_new_session=True
        )
    finally:
        os.close(terminal)
    try:
        while os.read(controller, 65536):
            pass
    except OSError:  # EIO: the process and every copy of the terminal's descriptor are gone
        pass
    finally:
        os.close(controller)
    code = child.wait(timeout=60)
    elapsed = time.perf_counter() - started
    if code != 0:
        raise RuntimeError(f"{' '.join(argv)} on a terminal exited {code}")
    return elapsed


def terminal_ask_vs_pass(argv: Sequence[str], *, env: Mapping[str, str], cwd: Path) -> tuple[float, float]:
    """Best of RUNS for the ask on a pseudo-terminal and for `python -c pass`, interleaved, after a warm-up."""
    on_a_terminal(argv, env=env, cwd=cwd)
    ask = bare = float("inf")
    for _ in range(RUNS):
        bare = min(bare, run_timed(python_pass(), env=env, cwd=cwd)[0])
        ask = min(ask, on_a_terminal(argv, env=env, cwd=cwd))
    return ask, bare


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
        # A person's terminal shows colour: NO_COLOR is the pipes' setting, not theirs.
        person = {key: value for key, value in env.items() if key != "NO_COLOR"} | {"TERM": "xterm-256color"}
        on_terminal, terminal_baseline = terminal_ask_vs_pass(measured[ASK], env=person, cwd=folder)
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
    note = f"best of {RUNS}, interleaved with python -c pass; Rich's live rows, colours and Markdown, as a person "
    note += f"sees them ({TERMINAL_SIZE[1]}x{TERMINAL_SIZE[0]} pseudo-terminal, TERM=xterm-256color)"
    figures.append(
        busy_note(
            ratio_figure(
                ASK_ON_A_TERMINAL, on_terminal, terminal_baseline, limit=None, against="python -c pass", note=note
            )
        )
    )
    note = "asyncio, sqlite3, json; "
    note += f"best of {RUNS}, interleaved: the least a piped offline ask can cost with them"
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
