"""Triage on the first use of a real backlog, for this checkout and another one measured in the same run.

`python -m bench firstuse --realdata FILE [--before DIR]`: FILE is a `gh issue list --json` export (the
3,019 issues of huggingface/datasets in `/work/shared/realdata`), DIR a checkout of Atlas to compare with
(the main branch). For each checkout, in whole processes on a state folder of its own: the import, the
first `atlas ask --json` for an issue's labels and for a plan of the newest untriaged issues (their
triage call's kind and time, as the call log has them), the command a failed call names when it failed
(what a user then runs), and the replay of the proposals on the project's history (`atlas triage --eval`).
"""

from __future__ import annotations

import json
import re
import shlex
import subprocess
import tempfile
import time
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from bench.core import PYTHON, Figure, absolute_figure, quiet_env, score_figure

ASKS = {
    "suggest_labels": "what label should {issue} get",
    "plan_triage": "triage the 5 newest untriaged issues",
}
CALL_LIMIT_S = 10.0
"""A triage call's own deadline (`TRIAGE_TIMEOUT_S`): an answer must come within it."""
_NAMED = re.compile(r"run `(atlas [^`]+)`")


@dataclass
class FirstUse:
    import_s: float = 0.0
    calls: dict[str, tuple[str, float]] = field(default_factory=dict)
    """Each triage tool's first call: its kind (`ok`, `permanent`, ...) and milliseconds."""
    named_s: float = 0.0
    """The command a failed first call named, run as a user would before asking again (0: none failed)."""
    first_answer_s: float = 0.0
    """From the import's start to the first label answer: the import, the asks, and the named command."""
    replay: dict[str, Any] = field(default_factory=dict)


def _atlas(env: dict[str, str], cwd: Path, *args: str) -> tuple[str, float]:
    """`python -m atlas ARGS` from `cwd`: not from a checkout, whose own `atlas/` would shadow PYTHONPATH's."""
    started = time.perf_counter()
    done = subprocess.run(
        [PYTHON, "-m", "atlas", *args],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=3600,
        stdin=subprocess.DEVNULL,
    )
    if done.returncode not in (0, 1):  # an answer with a failed call exits 1; anything else is the bench's failure
        raise RuntimeError(f"atlas {' '.join(args)} exited {done.returncode}: {done.stderr.strip()[-400:]}")
    return done.stdout, time.perf_counter() - started


def newest_untriaged(data: Path, home: Path) -> int:
    """The newest open issue with a label group empty: the one a maintainer asks about first."""
    from atlas.triage.own_writes import untriaged
    from atlas.triage.project import Project

    return untriaged(Project.open(data, home), 1)[0].id


def measure(export: Path, root: Path, tree: Path | None, issue: int | None = None) -> tuple[FirstUse, int]:
    """One checkout's first use (`tree`: another checkout's path, or None for this one) in folders under `root`."""
    data, home = root / "data", root / "home"
    root.mkdir(parents=True)
    extra = {"PYTHONPATH": str(tree)} if tree is not None else {}
    env = quiet_env(home, ORBIT_DATA=str(data), **extra)
    found = FirstUse()
    _, found.import_s = _atlas(env, root, "data", "import", str(export), "--to", str(data))
    issue = issue if issue is not None else newest_untriaged(data, root / "pick-home")
    named: list[str] = []
    for tool, question in ASKS.items():
        out, seconds = _atlas(env, root, "ask", "--json", question.format(issue=issue))
        found.first_answer_s += seconds if tool == "suggest_labels" else 0.0
        answer = json.loads(out)
        call = next(c for c in answer["calls"] if c["name"] == tool)
        found.calls[tool] = (str(call["kind"]), float(call["ms"]))
        named += _NAMED.findall(answer["answer"]) if call["kind"] != "ok" else []
    if named:
        _, found.named_s = _atlas(env, root, *shlex.split(named[0])[1:])
        _, again = _atlas(env, root, "ask", "--json", ASKS["suggest_labels"].format(issue=issue))
        found.first_answer_s += found.named_s + again
    found.first_answer_s += found.import_s
    out, _ = _atlas(env, root, "triage", "--eval", "--json")
    found.replay = json.loads(out)
    return found, issue


def run(export: Path, before: Path | None) -> list[Figure]:
    with tempfile.TemporaryDirectory(prefix="atlas-bench-firstuse-") as folder:
        after, issue = measure(export, Path(folder) / "after", None)
        then = measure(export, Path(folder) / "before", before, issue)[0] if before is not None else None
    return figures(after, then, issue)


def figures(after: FirstUse, before: FirstUse | None, issue: int) -> list[Figure]:
    count = int(after.replay.get("issues", 0))
    against = "before"
    found = [
        absolute_figure(
            f"first use, {count:,} real issues: atlas data import",
            after.import_s,
            limit=None,
            unit="s",
            baseline=before.import_s if before else None,
            against=against,
            note="with the triage it readies" if before else "",
        )
    ]
    for tool, (kind, ms) in after.calls.items():
        was = f" vs {before.calls[tool][0]} in {before.calls[tool][1]:.0f} ms {against}" if before else ""
        found.append(
            Figure(
                name=f"first use: the first {tool} call (`atlas ask --json`, #{issue})",
                measured=f"{kind} in {ms:.0f} ms{was}",
                ratio=None,
                target=f"ok within {CALL_LIMIT_S:g} s",
                met=kind == "ok" and ms <= CALL_LIMIT_S * 1000,
                note="",
                values={"ms": ms},
            )
        )
    found.append(
        absolute_figure(
            "first use: from the import's start to the first label answer",
            after.first_answer_s,
            limit=None,
            unit="s",
            baseline=before.first_answer_s if before else None,
            against=against,
            note=f"before: the call failed and its named command took {before.named_s:.1f} s" if before else "",
        )
    )
    for group, runs in after.replay.get("labels", {}).items():
        ours = runs["model"]
        theirs = before.replay["labels"][group]["model"] if before else runs["baseline"]
        note = ", ".join(f"{key} {ours[key]:.3f}" for key in ("accuracy", "coverage", "precision_at_threshold"))
        if before:
            note += " vs " + ", ".join(
                f"{theirs[key]:.3f}" for key in ("accuracy", "coverage", "precision_at_threshold")
            )
        found.append(
            score_figure(
                f"first use: replay on the project's history, {group} macro-F1",
                ours["macro_f1"],
                theirs["macro_f1"],
                target=theirs["macro_f1"] if before else None,
                note=note,
                against=against if before else "plain TF-IDF",
            )
        )
    return found
