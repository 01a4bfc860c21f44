"""Triage at size: proposals on a 10,000-issue project, `similar` at 100,000, memory against the backlog's size.

The projects are synthetic (`bench/triage_data.py`). Times are in-process after the fitted model is
in the state folder (fitting it is measured apart: once per version of the data), as a person meets
them on a second run; peak RSS is of whole `atlas triage --dry-run` processes at 10,000 and 100,000
issues, and whole `atlas similar N` processes at 100,000 issues vs the bundled data (`similar_cli.py`).
The history replay (`atlas triage --eval`) runs on the 10,000-issue project.
"""

from __future__ import annotations

import json
import random
import statistics
import subprocess
import tempfile
import time
from pathlib import Path

from atlas.dataset.ensure import ensure_db
from atlas.triage.groups import missing_groups
from atlas.triage.project import Project
from atlas.triage.proposals import propose
from atlas.triage.similar import similar
from atlas.triage.verdicts import verdicts
from bench.core import PYTHON, Figure, absolute_figure, busy_note, quiet_env, score_figure
from bench.scale import BUILD_PROBE
from bench.similar_cli import similar_figure
from bench.triage_data import write_project

SIZES = (10_000, 100_000)
PROPOSALS = 100
QUERIES = 60


def prepared(root: Path, count: int) -> tuple[Path, Path, float]:
    """The project's folder, a state folder as the first `atlas triage` leaves it (the fitted model and the
    groups' verdicts), and the seconds fitting the model took."""
    data = write_project(root / f"project-{count}", count)
    home = root / f"home-{count}"
    ensure_db(data, home)
    project = Project.open(data, home)
    started = time.perf_counter()
    project.model()
    fitted = time.perf_counter() - started
    verdicts(project)  # kept with the model: the proposals and dry runs measured after are warm
    return data, home, fitted


FIT_CHILD = """
import sys
from pathlib import Path
from atlas.triage.project import Project
Project.open(Path(sys.argv[1]), Path(sys.argv[2])).model()
"""
FIT_RSS_LIMIT_MB = 400.0


def fit_rss_mb(data: Path, home: Path) -> float:
    """Peak RSS of a whole process that opens the project and fits its model (a state folder with no model),
    read by a small fresh parent: this grown benchmark process, two fitted projects in it, would otherwise
    count its own resident set into the child's peak (`bench/startup.py`)."""
    home.mkdir()
    done = subprocess.run(
        [PYTHON, "-c", BUILD_PROBE, PYTHON, "-c", FIT_CHILD, str(data), str(home)],
        env=quiet_env(home),
        capture_output=True,
        text=True,
        timeout=900,
    )
    code, _wall, _cpu, kib = done.stdout.split()
    if code != "0":
        raise RuntimeError(f"fitting the model exited {code}")
    return int(kib) / 1024


def proposals_s(data: Path, home: Path) -> float:
    started = time.perf_counter()
    project = Project.open(data, home)
    issues = [i for i in project.corpus.newest(5000, state="open") if missing_groups(project.groups, i.labels)]
    found = propose(project, issues[:PROPOSALS])
    assert len(found) == PROPOSALS
    return time.perf_counter() - started


def similar_ms(data: Path, home: Path) -> list[float]:
    project = Project.open(data, home)
    count = project.corpus.count()
    rng = random.Random(5)
    similar(project, project.issue(1))  # the model is read from the state folder once
    times = []
    for issue_id in rng.sample(range(1, count + 1), QUERIES):
        issue = project.issue(issue_id)
        started = time.perf_counter()
        similar(project, issue)
        times.append((time.perf_counter() - started) * 1000)
    return times


def triage_rss_mb(data: Path, home: Path) -> float:
    argv = [PYTHON, "-m", "atlas", "triage", "--untriaged", "--limit", str(PROPOSALS), "--dry-run"]
    env = {**quiet_env(home), "ORBIT_DATA": str(data)}
    probe = subprocess.run([PYTHON, "-c", BUILD_PROBE, *argv], env=env, capture_output=True, text=True, timeout=900)
    code, _wall, _cpu, kib = probe.stdout.split()
    if code != "0":
        raise RuntimeError(f"atlas triage exited {code}")
    return int(kib) / 1024


def replay(data: Path, home: Path) -> dict[str, object]:
    env = {**quiet_env(home), "ORBIT_DATA": str(data)}
    done = subprocess.run(
        [PYTHON, "-m", "atlas", "triage", "--eval", "--json"], env=env, capture_output=True, text=True, timeout=3600
    )
    if done.returncode != 0:
        raise RuntimeError(f"atlas triage --eval exited {done.returncode}: {done.stderr.strip()}")
    return dict(json.loads(done.stdout))


def run() -> list[Figure]:
    with tempfile.TemporaryDirectory(prefix="atlas-bench-triage-") as folder:
        root = Path(folder)
        (small, small_home, fit_small), (big, big_home, fit_big) = (prepared(root, n) for n in SIZES)
        figures = [
            absolute_figure(
                "fit the model, 10,000 issues (once per version of the data)", fit_small, limit=None, unit="s"
            ),
            absolute_figure("fit the model, 100,000 issues (reads the newest 10,000)", fit_big, limit=None, unit="s"),
            absolute_figure(
                "fit the model, 100,000 issues: peak RSS",
                fit_rss_mb(big, root / "fit-home"),
                limit=FIT_RSS_LIMIT_MB,
                unit="MB",
                note="a whole process: open the project, fit, nothing else",
            ),
            busy_note(
                absolute_figure(
                    "100 proposals on 10,000 issues (model cached)", proposals_s(small, small_home), limit=2.0, unit="s"
                )
            ),
        ]
        times_small, times_big = similar_ms(small, small_home), similar_ms(big, big_home)
        p50_small, p50_big = statistics.median(times_small), statistics.median(times_big)
        figures.append(
            busy_note(
                absolute_figure(
                    "atlas similar p50 at 100,000 issues",
                    p50_big,
                    limit=50.0,
                    unit="ms",
                    baseline=p50_small,
                    against="at 10,000",
                    note=f"{QUERIES} random issues in-process; p95 {statistics.quantiles(times_big, n=20)[-1]:.1f} ms",
                )
            )
        )
        figures.append(similar_figure(big, big_home, root, SIZES[1] // 2))
        rss_small, rss_big = triage_rss_mb(small, small_home), triage_rss_mb(big, big_home)
        figures.append(
            Figure(
                name="triage --dry-run peak RSS: 100,000 vs 10,000 issues",
                measured=f"{rss_big:.0f} MB vs {rss_small:.0f} MB",
                ratio=rss_big / rss_small,
                target="ratio ≤ 1.3",
                met=rss_big / rss_small <= 1.3,
                note="whole processes, 100 proposals each",
                values={"measured_mb": rss_big, "baseline_mb": rss_small},
            )
        )
        figures += replay_figures(replay(small, small_home))
    return figures


def replay_figures(report: dict[str, object]) -> list[Figure]:
    labels = report["labels"]
    assert isinstance(labels, dict)
    found = []
    for group, runs in labels.items():
        ours, theirs = runs["model"], runs["baseline"]
        found.append(
            score_figure(
                f"replay, 10,000 synthetic issues: {group} macro-F1",
                ours["macro_f1"],
                theirs["macro_f1"],
                target=None,
                note=(
                    f"accuracy {ours['accuracy']:.2f}, coverage {ours['coverage']:.2f},"
                    f" precision {ours['precision_at_threshold']:.2f}"
                ),
            )
        )
    duplicates = report["duplicates"]
    assert isinstance(duplicates, dict)
    if duplicates.get("pairs"):
        found.append(
            score_figure(
                "replay, 10,000 synthetic issues: duplicates recall@5",
                duplicates["model"]["recall@5"],
                duplicates["baseline"]["recall@5"],
                target=None,
                note=f"{duplicates['pairs']} pairs",
            )
        )
    return found
