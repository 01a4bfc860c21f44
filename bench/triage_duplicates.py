"""Duplicates on real trackers: GitBugs' Hadoop (Jira) and SeaMonkey (Bugzilla) reports, through Atlas's own import.

GitBugs (github.com/av9ash/gitbugs, CC BY 4.0) keeps, per project, the reports (`<project>_bugs.csv`:
summary, id, status, created, description) and the maintainers' duplicate links
(`<project>_bugs-combined.csv`: an id and the ids it duplicates). Its files are not in this
repository (size, licence): `python -m bench duplicates --gitbugs DIR` reads them from a clone.

Each tracker becomes an export as `gh issue list --json` prints it, imported with `atlas data
import`: of two linked reports the later one gets the comment a triager leaves ("Duplicate of
#N", naming every earlier linked report), which is how `atlas triage --eval` finds known pairs
anywhere. The replay then looks each duplicate up among the reports filed before it, by title and
body alone, with Atlas's ranking and with a plain TF-IDF cosine. Atlas ranks by the reading the
tracker's own known duplicates choose (`atlas/triage/rankers.py`); on a held-back tracker each pair
is ranked by the choice of the other pairs, so no pair judges the choice it is scored by. Trackers are split once: the
ranking was developed against DEVELOPMENT and never run on HELD_BACK before its figure was taken.
"""

from __future__ import annotations

import csv
import json
import re
import subprocess
import tempfile
from datetime import datetime, timedelta
from pathlib import Path

from atlas.dataset.ensure import ensure_db
from atlas.triage.evaluate import history
from atlas.triage.evaluate_duplicates import duplicate_replay
from atlas.triage.project import Project
from bench.core import PYTHON, Figure, quiet_env, score_figure

DEVELOPMENT = ("hadoop",)
HELD_BACK = ("seamonkey",)
TARGET = 0.70
TIME_FORMATS = ("%Y-%m-%d %H:%M:%S%z", "%d/%b/%y %H:%M")
CLOSED = {"resolved", "closed", "verified", "done"}
_ID = re.compile(r"\d+")


class TrackerError(Exception):
    """A tracker's files cannot be read; the message says which and why."""


def _iso(text: str) -> datetime:
    for form in TIME_FORMATS:
        try:
            return datetime.strptime(text.strip(), form)
        except ValueError:
            continue
    raise TrackerError(f"an unknown time format: {text!r}")


def _files(folder: Path, project: str) -> tuple[Path, Path]:
    base = folder / project
    reports = [p for p in base.glob("*_bugs.csv")] if base.is_dir() else []
    if len(reports) != 1:
        raise TrackerError(f"no {project}/<name>_bugs.csv in {folder} (a clone of GitBugs)")
    links = reports[0].with_name(reports[0].stem + "-combined.csv")
    if not links.is_file():
        raise TrackerError(f"no {links.name} beside {reports[0]}")
    return reports[0], links


def export(folder: Path, project: str) -> list[dict[str, object]]:
    """One GitBugs project as `gh issue list --json` prints it, each known duplicate commented as a triager would."""
    reports_file, links_file = _files(folder, project)
    csv.field_size_limit(1 << 26)
    try:
        with reports_file.open(newline="", encoding="utf-8") as file:
            rows = list(csv.DictReader(file))
        with links_file.open(newline="", encoding="utf-8") as file:
            records = list(csv.DictReader(file))
        links = [(record["Issue id"], next(v for k, v in record.items() if k != "Issue id")) for record in records]
    except (OSError, KeyError, StopIteration, csv.Error, UnicodeDecodeError) as exc:
        raise TrackerError(f"cannot read {project}: {exc}") from None
    created = {int(row["Issue id"]): _iso(row["Created"]) for row in rows}
    earlier: dict[int, set[int]] = {}
    for one, others in links:
        for a, b in ((int(one), int(other)) for other in _ID.findall(others or "")):
            if a != b and a in created and b in created:
                first, later = sorted((a, b), key=lambda n: (created[n], n))
                earlier.setdefault(later, set()).add(first)
    items: list[dict[str, object]] = []
    for row in rows:
        number = int(row["Issue id"])
        when = created[number]
        comments = []
        if number in earlier:
            named = ", ".join(f"#{n}" for n in sorted(earlier[number]))
            said = _stamp(when + timedelta(hours=1))
            comments.append({"author": {"login": "triager"}, "body": f"Duplicate of {named}.", "createdAt": said})
        items.append(
            {
                "number": number,
                "title": row["Summary"],
                "body": row.get("Description") or "",
                "state": "CLOSED" if row["Status"].strip().casefold() in CLOSED else "OPEN",
                "labels": [],
                "author": {"login": "reporter"},
                "createdAt": _stamp(when),
                "comments": comments,
            }
        )
    return items


def _stamp(when: datetime) -> str:
    return when.strftime("%Y-%m-%dT%H:%M:%SZ")


def import_tracker(root: Path, project: str, items: list[dict[str, object]]) -> tuple[Path, Path]:
    exported, data, home = root / f"{project}.json", root / project, root / f"{project}-home"
    exported.write_text(json.dumps(items), encoding="utf-8")
    home.mkdir()
    done = subprocess.run(
        [PYTHON, "-m", "atlas", "data", "import", str(exported), "--to", str(data)],
        env=quiet_env(home),
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"atlas data import of {project} exited {done.returncode}: {done.stderr.strip()}")
    ensure_db(data, home)
    return data, home


def evaluate(folder: Path, projects: tuple[str, ...]) -> dict[str, dict[str, object]]:
    """Each tracker's duplicate replay (model and baseline recall@1/5/10)."""
    found = {}
    with tempfile.TemporaryDirectory(prefix="atlas-bench-duplicates-") as temp:
        for project in projects:
            data, home = import_tracker(Path(temp), project, export(folder, project))
            opened = Project.open(data, home)
            found[project] = {"issues": opened.corpus.count(), **duplicate_replay(opened, history(opened))}
    return found


def figures(scores: dict[str, dict[str, object]]) -> list[Figure]:
    rows = []
    for project, report in scores.items():
        # A held-back tracker's figure ranks each pair by the ranker its other pairs choose (leave one out).
        ours, theirs = report["left_out" if project in HELD_BACK else "model"], report["baseline"]
        each = report["rankers"]
        assert isinstance(ours, dict) and isinstance(theirs, dict) and isinstance(each, dict)
        kind = "held back" if project in HELD_BACK else "development"
        spread = ", ".join(f"{name} {found['recall@5']:.3f}" for name, found in each.items())
        rows.append(
            score_figure(
                f"duplicates, {project} ({kind}): recall@5",
                float(ours["recall@5"]),
                float(theirs["recall@5"]),
                target=TARGET if project in HELD_BACK else None,
                note=(
                    f"{report['issues']} reports, {report['pairs']} known duplicates; recall@1 {ours['recall@1']:.3f}"
                    f" ({theirs['recall@1']:.3f}), recall@10 {ours['recall@10']:.3f} ({theirs['recall@10']:.3f});"
                    f" chosen ranker {report['ranker']}; each ranker's recall@5: {spread}"
                ),
            )
        )
    return rows


def run(folder: Path, projects: tuple[str, ...] = DEVELOPMENT + HELD_BACK) -> list[Figure]:
    try:
        return figures(evaluate(folder, projects))
    except TrackerError as exc:
        raise RuntimeError(str(exc)) from None
