"""`atlas triage --eval`: how the proposals and the duplicate ranking would have done on this project's history."""

from __future__ import annotations

import time
from typing import Any

from atlas.foundation.config import atlas_home, data_dir
from atlas.foundation.errors import AtlasError, ToolError
from atlas.triage.evaluate import history, label_replay
from atlas.triage.evaluate_duplicates import duplicate_replay
from atlas.triage.project import Project
from atlas.triage.verdicts import judge
from atlas.ui.json_out import print_json
from atlas.ui.render import data_table, make_console

FIGURES = ("accuracy", "macro_f1", "coverage", "precision_at_threshold")


def evaluation(project: Project) -> dict[str, Any]:
    issues = history(project)
    threshold = project.settings.threshold
    started = time.monotonic()
    replayed = label_replay(project, issues)
    judge(project, issues, replayed)  # what the proposals will go by, kept for this version of the data
    labels = {
        group: {name: predictions.scores(threshold) for name, predictions in runs.items()}
        for group, runs in replayed.items()
    }
    return {
        "issues": len(issues),
        "threshold": threshold,
        "labels": labels,
        "duplicates": duplicate_replay(project, issues),
        "seconds": round(time.monotonic() - started, 1),
    }


def _pair(scores: dict[str, Any], key: str) -> str:
    ours, theirs = scores["model"].get(key), scores["baseline"].get(key)
    return "—" if ours is None else f"{ours:.2f} ({theirs:.2f})"


def run_triage_eval(*, as_json: bool) -> None:
    try:
        project = Project.open(data_dir(), atlas_home())
        report = evaluation(project)
    except ToolError as exc:
        raise AtlasError(str(exc)) from None
    if as_json:
        print_json(report)
        return
    console = make_console(for_tables=True)
    console.print(f"Replayed {report['issues']:,} issues; threshold {report['threshold']:.2f}. Model (baseline):")
    rows = [
        (group, str(scores["model"].get("n", 0)), *(_pair(scores, key) for key in FIGURES))
        for group, scores in report["labels"].items()
    ]
    console.print(data_table(("group", "issues", *(k.replace("_", " ") for k in FIGURES)), rows))
    dup = report["duplicates"]
    if dup.get("pairs"):
        cells = [f"{dup['model'][k]:.2f} ({dup['baseline'][k]:.2f})" for k in ("recall@1", "recall@5", "recall@10")]
        console.print(
            data_table(("duplicate pairs", "recall@1", "recall@5", "recall@10"), [(str(dup["pairs"]), *cells)])
        )
    else:
        console.print("No known duplicate pairs (a `duplicate` label or a comment saying duplicate of #N).")
