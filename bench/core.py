"""What every benchmark shares: the Figure it reports, clocks, and timed subprocesses.

The machines are shared and noisy, so a figure is a ratio taken in one run against the ideal or
a baseline measured alongside it; subprocess timings are the best of several interleaved runs.
"""

from __future__ import annotations

import dataclasses
import os
import subprocess
import sys
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parent.parent
PYTHON = sys.executable


@dataclass(frozen=True)
class Figure:
    """One measured figure: what was measured, its ratio to the ideal or baseline, and the target."""

    name: str
    measured: str
    """Absolute values, as printed: `2.004 s vs 2.001 s`."""
    ratio: float | None
    target: str
    """`ratio ≤ 1.05`, `≤ 0.2 s`, or `—` when the issue names no target."""
    met: bool | None
    """None when there is no target to meet."""
    note: str = ""
    values: dict[str, float] = field(default_factory=dict)
    """The raw numbers behind `measured`, for results.json."""

    def as_json(self) -> dict[str, Any]:
        return asdict(self)


def seconds(value: float) -> str:
    return f"{value:.3f} s"


def ratio_figure(
    name: str, value_s: float, baseline_s: float, *, limit: float | None, against: str, note: str = ""
) -> Figure:
    """A time judged by its ratio to an ideal or baseline time."""
    ratio = value_s / baseline_s
    return Figure(
        name=name,
        measured=f"{seconds(value_s)} vs {seconds(baseline_s)} {against}",
        ratio=ratio,
        target="—" if limit is None else f"ratio ≤ {limit:g}",
        met=None if limit is None else ratio <= limit,
        note=note,
        values={"measured_s": value_s, "baseline_s": baseline_s},
    )


def absolute_figure(
    name: str,
    value: float,
    *,
    limit: float | None,
    unit: str,
    baseline: float | None = None,
    against: str = "",
    note: str = "",
) -> Figure:
    """A value judged against an absolute limit; the ratio to a baseline (if any) is shown beside it."""
    measured = f"{value:.3f} {unit}" if unit == "s" else f"{value:,.1f} {unit}"
    values = {"measured": value}
    ratio = None
    if baseline is not None:
        shown = f"{baseline:.3f} {unit}" if unit == "s" else f"{baseline:,.1f} {unit}"
        measured += f" vs {shown} {against}".rstrip()
        values["baseline"] = baseline
        ratio = value / baseline if baseline else None
    return Figure(
        name=name,
        measured=measured,
        ratio=ratio,
        target="—" if limit is None else f"≤ {limit:g} {unit}",
        met=None if limit is None else value <= limit,
        note=note,
        values=values,
    )


def score_figure(
    name: str, ours: float, theirs: float, *, target: float | None, note: str, against: str = "plain TF-IDF"
) -> Figure:
    """A score (macro-F1, recall) beside the baseline's, judged against a floor: higher is better."""
    return Figure(
        name=name,
        measured=f"{ours:.3f} vs {theirs:.3f} {against}",
        ratio=ours / theirs if theirs else None,
        target="—" if target is None else f"≥ {target:.2f}",
        met=None if target is None else ours >= target,
        note=note,
        values={"measured": ours, "baseline": theirs},
    )


def busy_note(figure: Figure) -> Figure:
    """A missed wall-clock target gets the machine's load beside it: other processes share the CPUs."""
    if figure.met is not False:
        return figure
    load = os.getloadavg()[0]
    note = f"{figure.note}; missed at load average {load:.1f} on {os.cpu_count()} CPUs".lstrip("; ")
    return dataclasses.replace(figure, note=note)


def quiet_env(home: Path, **extra: str) -> dict[str, str]:
    """The environment of a measured `atlas` process: its own state folder, no key, no colour, and
    caches written as a user's shell lets them be (no `PYTHONDONTWRITEBYTECODE`): an installed Atlas
    keeps its compiled patterns after its first run, which every benchmark's warm-up round is."""
    env = {key: value for key, value in os.environ.items() if not key.startswith(("OPENAI_", "ATLAS_"))}
    env.pop("ORBIT_DATA", None)
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    env.update({"ATLAS_HOME": str(home), "NO_COLOR": "1", "COLUMNS": "160"}, **extra)
    return env


def atlas_argv(*args: str) -> list[str]:
    """The `atlas` console script next to this interpreter (what a user runs), else `python -m atlas`."""
    script = Path(PYTHON).parent / "atlas"
    if script.is_file() and os.access(script, os.X_OK):
        return [str(script), *args]
    return [PYTHON, "-m", "atlas", *args]


def run_timed(
    argv: Sequence[str], *, env: Mapping[str, str], cwd: Path, timeout: float = 60.0
) -> tuple[float, subprocess.CompletedProcess[str]]:
    """Wall time of one process from spawn to exit; a failing command stops the benchmark."""
    started = time.perf_counter()
    done = subprocess.run(list(argv), env=dict(env), cwd=cwd, capture_output=True, text=True, timeout=timeout)
    elapsed = time.perf_counter() - started
    if done.returncode != 0:
        tail = (done.stderr or done.stdout).strip().splitlines()[-1:] or ["no output"]
        raise RuntimeError(f"{' '.join(argv)} exited {done.returncode}: {tail[0]}")
    return elapsed, done


def best_of(commands: Mapping[str, Sequence[str]], *, runs: int, env: Mapping[str, str], cwd: Path) -> dict[str, float]:
    """Best wall time of each command over `runs` rounds, interleaved so that noise hits all alike.

    One discarded warm-up round first: it fills the page cache and builds any db a command needs.
    """
    for argv in commands.values():
        run_timed(argv, env=env, cwd=cwd)
    best = {name: float("inf") for name in commands}
    for _ in range(runs):
        for name, argv in commands.items():
            elapsed, _done = run_timed(argv, env=env, cwd=cwd)
            best[name] = min(best[name], elapsed)
    return best


def compile_bytecode(package: Path | None = None) -> tuple[Path, int]:
    """Atlas's modules compiled to bytecode, as installing its wheel does (pip compiles every module).

    A checkout run with `PYTHONDONTWRITEBYTECODE` (or from a read-only tree) never writes bytecode,
    and then every process compiles every module it imports: 25 % of an `atlas ask` that no user
    pays. Returns the package's folder (Atlas's own unless told) and how many modules it holds."""
    import compileall
    import py_compile

    import atlas

    package = package or Path(atlas.__file__).resolve().parent
    modules = sum(1 for _ in package.rglob("*.py"))
    mode = py_compile.PycInvalidationMode.TIMESTAMP  # what pip writes, and what Python checks by default
    if not compileall.compile_dir(package, quiet=2, invalidation_mode=mode):
        raise RuntimeError(f"compileall could not compile every module in {package}")
    return package, modules


def python_pass() -> list[str]:
    return [PYTHON, "-c", "pass"]
