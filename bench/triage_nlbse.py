"""Triage on real projects: the NLBSE'24 issue report classification benchmark, through Atlas's own import.

The benchmark (github.com/nlbse2024/issue-report-classification) holds 300 + 300 issues of each of
five GitHub projects (facebook/react, tensorflow/tensorflow, microsoft/vscode, bitcoin/bitcoin,
opencv/opencv), each labelled bug, feature or question, split in two halves by its authors. Its
CSVs are not in this repository (their size and licence): `python -m bench triage --nlbse DIR`
reads `issues_train.csv` and `issues_test.csv` from DIR (or DIR/data).

Each project becomes an export as `gh issue list --json` prints it and is imported with `atlas data
import` (the CSVs carry no issue numbers: they are numbered in the order filed), with its three
labels named as one group in config.toml, as a project whose labels have no prefixes does. The
proposal model of `atlas triage --eval` and its plain TF-IDF baseline are then fitted on the
published training half alone and scored on the test half: macro-F1 per project, averaged as the
benchmark's authors average it (published: fastText 0.72, SetFit 0.83).
"""

from __future__ import annotations

import csv
import json
import statistics
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

from atlas.dataset.ensure import ensure_db
from atlas.triage.evaluate import split_replay
from atlas.triage.project import Project
from bench.core import PYTHON, Figure, quiet_env, score_figure

SPLITS = ("train", "test")
LABELS = ("bug", "feature", "question")
GROUP = "kind"
PUBLISHED = {"fastText": 0.72, "SetFit": 0.83}
TARGET = 0.75


class NlbseError(Exception):
    """The benchmark's files cannot be read; the message says which and why."""


@dataclass(frozen=True)
class Row:
    split: str
    created_at: str
    label: str
    title: str
    body: str


def read_benchmark(folder: Path) -> dict[str, list[Row]]:
    """Each project's rows, both halves, from the two CSVs in `folder` (or `folder/data`)."""
    base = folder / "data" if not (folder / "issues_train.csv").exists() else folder
    csv.field_size_limit(1 << 26)  # some bodies are whole logs
    found: dict[str, list[Row]] = {}
    for split in SPLITS:
        path = base / f"issues_{split}.csv"
        try:
            with path.open(newline="", encoding="utf-8") as file:
                for record in csv.DictReader(file):
                    row = Row(split, _iso(record["created_at"]), record["label"], record["title"], record["body"] or "")
                    found.setdefault(record["repo"], []).append(row)
        except FileNotFoundError:
            raise NlbseError(f"no {path.name} in {folder} (the NLBSE'24 benchmark's data folder)") from None
        except (OSError, KeyError, csv.Error, UnicodeDecodeError) as exc:
            raise NlbseError(f"cannot read {path}: {exc}") from None
    if not found:
        raise NlbseError(f"{folder} holds no issues")
    return found


def _iso(text: str) -> str:
    """`2023-08-26 06:33:37` as GitHub writes times."""
    return text.strip().replace(" ", "T") + "Z"


def export(repo: str, rows: list[Row]) -> tuple[list[dict[str, object]], dict[str, list[int]]]:
    """The project as `gh issue list --json` prints it, and which issue numbers are in which half."""
    ordered = sorted(enumerate(rows), key=lambda pair: (pair[1].created_at, pair[0]))
    items: list[dict[str, object]] = []
    halves: dict[str, list[int]] = {split: [] for split in SPLITS}
    for number, (_, row) in enumerate(ordered, start=1):
        items.append(
            {
                "number": number,
                "title": row.title,
                "body": row.body,
                "state": "CLOSED",
                "labels": [{"name": row.label}],
                "author": {"login": "reporter"},
                "createdAt": row.created_at,
                "url": f"https://github.com/{repo}/issues/{number}",
                "comments": [],
            }
        )
        halves[row.split].append(number)
    return items, halves


def import_project(root: Path, repo: str, items: list[dict[str, object]]) -> tuple[Path, Path]:
    """The export imported with `atlas data import`, and a state folder naming the label group."""
    slug = repo.replace("/", "-")
    exported, data, home = root / f"{slug}.json", root / slug, root / f"{slug}-home"
    exported.write_text(json.dumps(items), encoding="utf-8")
    home.mkdir()
    (home / "config.toml").write_text(f"[triage.groups]\n{GROUP} = {json.dumps(list(LABELS))}\n", encoding="utf-8")
    done = subprocess.run(
        [PYTHON, "-m", "atlas", "data", "import", str(exported), "--to", str(data)],
        env=quiet_env(home),
        capture_output=True,
        text=True,
        timeout=600,
    )
    if done.returncode != 0:
        raise RuntimeError(f"atlas data import of {repo} exited {done.returncode}: {done.stderr.strip()}")
    ensure_db(data, home)
    return data, home


def score_project(data: Path, home: Path, halves: dict[str, list[int]]) -> dict[str, dict[str, float | int]]:
    """Macro-F1 (and the rest of `--eval`'s figures) of the model and the baseline on the test half."""
    project = Project.open(data, home)
    if [g.name for g in project.groups] != [GROUP]:
        raise RuntimeError(f"expected the one label group {GROUP!r}, found {[g.name for g in project.groups]}")
    train, test = (list(project.corpus.many(halves[split]).values()) for split in SPLITS)
    runs = split_replay(project, train, test)[GROUP]
    return {name: predictions.scores(project.settings.threshold) for name, predictions in runs.items()}


def evaluate(folder: Path) -> dict[str, dict[str, dict[str, float | int]]]:
    """Each project's scores, imported one after another into a temporary folder."""
    benchmark = read_benchmark(folder)
    with tempfile.TemporaryDirectory(prefix="atlas-bench-nlbse-") as temp:
        root = Path(temp)
        found = {}
        for repo in sorted(benchmark):
            items, halves = export(repo, benchmark[repo])
            data, home = import_project(root, repo, items)
            found[repo] = score_project(data, home, halves)
    return found


def figures(scores: dict[str, dict[str, dict[str, float | int]]]) -> list[Figure]:
    rows = []
    for repo, runs in scores.items():
        ours, theirs = runs["model"], runs["baseline"]
        note = (
            f"{ours['n']} test issues; accuracy {ours['accuracy']:.3f}, coverage {ours['coverage']:.2f},"
            f" precision at threshold {ours['precision_at_threshold']:.3f}"
        )
        rows.append(
            score_figure(
                f"NLBSE'24 {repo}: macro-F1", float(ours["macro_f1"]), float(theirs["macro_f1"]), target=None, note=note
            )
        )
    mean = statistics.mean(float(runs["model"]["macro_f1"]) for runs in scores.values())
    base = statistics.mean(float(runs["baseline"]["macro_f1"]) for runs in scores.values())
    published = ", ".join(f"{name} {value:.2f}" for name, value in PUBLISHED.items())
    rows.append(
        score_figure(
            f"NLBSE'24 mean macro-F1 over {len(scores)} projects (bug/feature/question)",
            mean,
            base,
            target=TARGET,
            note=f"published on the same split: {published}",
        )
    )
    return rows


def run(folder: Path) -> list[Figure]:
    try:
        return figures(evaluate(folder))
    except NlbseError as exc:
        raise RuntimeError(str(exc)) from None
