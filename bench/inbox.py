"""The inbox at 100,000 issues: `-n 20` costs what it does on the bundled data, and its table what its JSON does.

One synthetic 100,000-issue project (`bench/synthetic.py`, its db built first), then, best of
several interleaved runs each: `atlas inbox -n 20` on it vs on the bundled dataset, and `atlas
inbox` (every row, as a table) vs `atlas inbox --json` on it. Output goes to a pipe, as in a script.
"""

from __future__ import annotations

import subprocess
import tempfile
from pathlib import Path

from atlas.foundation.config import bundled_data_dir
from bench.core import PYTHON, Figure, atlas_argv, busy_note, quiet_env, ratio_figure, run_timed
from bench.synthetic import write_dataset

ISSUES = 100_000
RUNS = 3


def interleaved(commands: dict[str, tuple[list[str], dict[str, str]]], cwd: Path, runs: int) -> dict[str, float]:
    """Best wall time of each (argv, env) over `runs` interleaved rounds, after one warm-up round."""
    for argv, env in commands.values():
        run_timed(argv, env=env, cwd=cwd, timeout=300)
    best = {name: float("inf") for name in commands}
    for _ in range(runs):
        for name, (argv, env) in commands.items():
            best[name] = min(best[name], run_timed(argv, env=env, cwd=cwd, timeout=300)[0])
    return best


def run() -> list[Figure]:
    with tempfile.TemporaryDirectory(prefix="atlas-bench-inbox-") as name:
        folder = Path(name)
        big = write_dataset(folder / "orbit-100k", ISSUES)
        subprocess.run(
            [PYTHON, "-m", "atlas.dataset", str(big)],
            env=quiet_env(folder / "home"),
            check=True,
            capture_output=True,
            timeout=900,
        )
        small = bundled_data_dir()
        big_env = quiet_env(folder / "home-big", ORBIT_DATA=str(big))
        rows = subprocess.run(
            atlas_argv("inbox", "--json"),
            env=big_env,
            cwd=folder,
            capture_output=True,
            text=True,
            timeout=300,
            check=True,
        ).stdout.count("\n")
        first = interleaved(
            {
                "100k": (atlas_argv("inbox", "-n", "20"), big_env),
                "bundled": (atlas_argv("inbox", "-n", "20"), quiet_env(folder / "home-small", ORBIT_DATA=str(small))),
            },
            folder,
            RUNS + 2,
        )
        every = interleaved(
            {"table": (atlas_argv("inbox"), big_env), "json": (atlas_argv("inbox", "--json"), big_env)}, folder, RUNS
        )
    return [
        busy_note(
            ratio_figure(
                "atlas inbox -n 20: 100k issues vs bundled",
                first["100k"],
                first["bundled"],
                limit=2,
                against="bundled",
                note=f"best of {RUNS + 2}, interleaved; output to a pipe",
            )
        ),
        busy_note(
            ratio_figure(
                f"atlas inbox (every row, {rows:,}) vs --json, 100k issues",
                every["table"],
                every["json"],
                limit=1.5,
                against="--json",
                note=f"best of {RUNS}, interleaved; the table to a pipe",
            )
        ),
    ]
