"""`python -m bench [GROUP ...]`: run the benchmarks, print a Markdown table, write bench/results.json.

With no group every benchmark runs; naming groups runs those and updates their entries in
results.json, leaving the others as they were. `--nlbse DIR` (the NLBSE'24 benchmark's CSVs) adds
the `nlbse` group, triage on five real projects, and `--gitbugs DIR` (a clone of GitBugs) the
`duplicates` group, duplicates on real trackers; `--realdata FILE` (a `gh issue list --json` export) the
`firstuse` group, triage on the first use of that backlog, beside the checkout `--before DIR` when given;
without them those groups are left out. Missed targets
are reported, not fatal: the exit code is 1 only when a benchmark itself failed to run.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time
import traceback
from collections.abc import Callable
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from bench import (
    deadlines,
    inbox,
    log_scale,
    mcp,
    overhead,
    parallel,
    scale,
    startup,
    state,
    tools,
    triage,
    triage_duplicates,
    triage_first_use,
    triage_nlbse,
)
from bench.core import REPO, Figure, compile_bytecode

GROUPS: dict[str, tuple[str, Callable[[], list[Figure]]]] = {
    "parallel": ("Parallel efficiency", parallel.run),
    "overhead": ("Executor overhead", overhead.run),
    "deadlines": ("Deadlines and exit", deadlines.run),
    "startup": ("Start-up", startup.run),
    "log": ("The log at scale", log_scale.run),
    "tools": ("Tools", tools.run),
    "scale": ("Scale", scale.run),
    "mcp": ("MCP", mcp.run),
    "triage": ("Triage", triage.run),
    "state": ("Shared state", state.run),
    "inbox": ("The inbox at scale", inbox.run),
    "nlbse": ("Triage on real projects (NLBSE'24)", lambda: triage_nlbse.run(_nlbse_dir())),
    "duplicates": ("Duplicates on real trackers (GitBugs)", lambda: triage_duplicates.run(_gitbugs_dir())),
    "firstuse": ("Triage on the first use of a real backlog", lambda: triage_first_use.run(*_realdata())),
}
NEEDS_DATA = {"nlbse": "nlbse", "duplicates": "gitbugs", "firstuse": "realdata"}
"""Groups that read data this repository lacks, and the option that names its folder."""
_NLBSE: list[Path] = []
_GITBUGS: list[Path] = []
_REALDATA: list[tuple[Path, Path | None]] = []


def _realdata() -> tuple[Path, Path | None]:
    if not _REALDATA:
        raise RuntimeError("the firstuse group needs --realdata FILE")
    return _REALDATA[0]


def _gitbugs_dir() -> Path:
    if not _GITBUGS:
        raise RuntimeError("the duplicates group needs --gitbugs DIR")
    return _GITBUGS[0]


def _nlbse_dir() -> Path:
    if not _NLBSE:
        raise RuntimeError("the nlbse group needs --nlbse DIR")
    return _NLBSE[0]


RESULTS = REPO / "bench" / "results.json"
GROUP_BUDGET_S = 60.0
COLUMNS = ("#", "figure", "measured", "target", "ratio", "met", "note")


def met_text(met: bool | None) -> str:
    return "—" if met is None else ("yes" if met else "**NO**")


def table(results: dict[str, dict[str, Any]]) -> str:
    """A Markdown table, one row per figure, in the issue's order: ready to paste into docs/speed.md."""
    lines = ["| " + " | ".join(COLUMNS) + " |", "|" + "|".join("---" for _ in COLUMNS) + "|"]
    for number, group in enumerate(GROUPS, start=1):
        entry = results.get(group)
        if entry is None:
            continue
        for figure in entry["figures"]:
            ratio = "—" if figure["ratio"] is None else f"{figure['ratio']:.2f}"
            cells = [str(number), figure["name"], figure["measured"], figure["target"], ratio]
            cells += [met_text(figure["met"]), figure["note"]]
            lines.append("| " + " | ".join(cell.replace("|", "\\|") for cell in cells) + " |")
    return "\n".join(lines)


def run_group(name: str) -> dict[str, Any]:
    title, run = GROUPS[name]
    print(f"running {name} ({title}) …", file=sys.stderr, flush=True)
    started = time.perf_counter()
    try:
        figures = [figure.as_json() for figure in run()]
        error = None
    except Exception as exc:  # one broken benchmark must not hide the others' figures
        traceback.print_exc()
        error = f"{type(exc).__name__}: {exc}"
        figures = [Figure(name=title, measured="failed", ratio=None, target="—", met=False, note=error).as_json()]
    elapsed = time.perf_counter() - started
    over = f" (over the {GROUP_BUDGET_S:.0f} s budget)" if elapsed > GROUP_BUDGET_S else ""
    print(f"  {name}: {elapsed:.1f} s{over}", file=sys.stderr, flush=True)
    return {"title": title, "seconds": round(elapsed, 2), "error": error, "figures": figures}


def machine(bytecode: str) -> dict[str, Any]:
    commit = subprocess.run(["git", "rev-parse", "--short", "HEAD"], cwd=REPO, capture_output=True, text=True)
    return {
        "bytecode": bytecode,
        "when": datetime.now(UTC).isoformat(timespec="seconds"),
        "commit": commit.stdout.strip() or None,
        "python": platform.python_version(),
        "platform": platform.platform(),
        "cpus": os.cpu_count(),
        "load_average": [round(load, 2) for load in os.getloadavg()],
    }


def load_previous() -> dict[str, Any]:
    try:
        data = json.loads(RESULTS.read_text(encoding="utf-8"))
    except (OSError, ValueError):
        return {}
    return data.get("groups", {}) if isinstance(data, dict) else {}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m bench", description=__doc__.splitlines()[0] if __doc__ else None)
    parser.add_argument("groups", nargs="*", metavar="GROUP", help="any of: " + ", ".join(GROUPS))
    parser.add_argument(
        "--nlbse", type=Path, metavar="DIR", help="issues_train.csv and issues_test.csv of the NLBSE'24 benchmark"
    )
    parser.add_argument("--gitbugs", type=Path, metavar="DIR", help="a clone of GitBugs (hadoop/, seamonkey/)")
    parser.add_argument("--realdata", type=Path, metavar="FILE", help="a `gh issue list --json` export (firstuse)")
    parser.add_argument("--before", type=Path, metavar="DIR", help="a checkout of Atlas that firstuse compares with")
    args = parser.parse_args(argv)
    unknown = [group for group in args.groups if group not in GROUPS]
    if unknown:
        parser.error(f"no benchmark group {', '.join(unknown)} (choose from {', '.join(GROUPS)})")
    if "nlbse" in args.groups and args.nlbse is None:
        parser.error("the nlbse group needs --nlbse DIR (the benchmark's issues_train.csv and issues_test.csv)")
    if "duplicates" in args.groups and args.gitbugs is None:
        parser.error("the duplicates group needs --gitbugs DIR (a clone of GitBugs)")
    if "firstuse" in args.groups and args.realdata is None:
        parser.error("the firstuse group needs --realdata FILE (a `gh issue list --json` export)")
    given = {"nlbse": args.nlbse, "gitbugs": args.gitbugs, "realdata": args.realdata}
    for option, folder in {"nlbse": args.nlbse, "gitbugs": args.gitbugs, "before": args.before}.items():
        if folder is not None and not folder.is_dir():
            parser.error(f"--{option}: {folder} is not a folder")
    if args.realdata is not None and not args.realdata.is_file():
        parser.error(f"--realdata: {args.realdata} is not a file")
    _REALDATA.extend([(args.realdata, args.before)] if args.realdata is not None else [])
    _NLBSE.extend([args.nlbse] if args.nlbse is not None else [])
    _GITBUGS.extend([args.gitbugs] if args.gitbugs is not None else [])
    named = set(args.groups) | {group for group, option in NEEDS_DATA.items() if given[option] is not None}
    chosen = [group for group in GROUPS if group in named] if args.groups else list(GROUPS)
    chosen = [group for group in chosen if group not in NEEDS_DATA or given[NEEDS_DATA[group]] is not None]
    package, modules = compile_bytecode()
    bytecode = f"compiled with compileall before measuring ({modules} modules in {package}), as a wheel install has it"
    print(f"bytecode: {bytecode}", file=sys.stderr, flush=True)
    started = time.perf_counter()
    fresh = {group: run_group(group) for group in chosen}
    total = time.perf_counter() - started
    # A whole run without --nlbse, --gitbugs or --realdata keeps those groups' last figures: their data is not here.
    missing_data = any(folder is None for folder in given.values())
    groups = {**load_previous(), **fresh} if args.groups or missing_data else fresh
    ordered = {group: groups[group] for group in GROUPS if group in groups}
    RESULTS.write_text(
        json.dumps(
            {"machine": machine(bytecode), "seconds": round(total, 2), "groups": ordered}, indent=2, ensure_ascii=False
        )
        + "\n",
        encoding="utf-8",
    )
    print(table(fresh))
    print(f"\n{len(chosen)} group(s) in {total:.1f} s; results in {RESULTS.relative_to(REPO)}", file=sys.stderr)
    return 1 if any(entry["error"] for entry in fresh.values()) else 0


if __name__ == "__main__":
    sys.exit(main())
