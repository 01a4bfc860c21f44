"""The inbox's order from labels and dates alone, and reasons read only for the issues a reader gets to."""

from __future__ import annotations

import itertools
from pathlib import Path

import pytest

from atlas.foundation.config import bundled_data_dir
from atlas.tracker.journal import LabelChanges
from atlas.triage import signals
from atlas.triage.inbox_order import FIRST_PAGE
from atlas.triage.project import Project
from atlas.triage.severity import scale, severity_of, sort_key
from tests.support.dataset_factory import issue, make_dataset
from tests.support.run import atlas_env, invoke

SEVERITIES = ["severity:S1", "severity:S2", "severity:S3", None]
TYPES = ["type:bug", "type:feature", "type:question", None]


def _backlog(count: int) -> list[dict[str, object]]:
    found = []
    for n in range(1, count + 1):
        labels = [label for label in (TYPES[n % 4], SEVERITIES[n * 7 % 4], f"comp:c{n % 3}") if label]
        if n % 11 == 0:
            labels.append('odd\nlabel "with" [json]')  # any character a tracker lets a label have
        day = 1 + n * 13 % 28
        state = "closed" if n % 9 == 0 else "open"
        found.append(issue(n, f"Issue {n}", labels=labels, state=state, created_at=f"2026-01-{day:02d}T10:00:00Z"))
    return found


def _reference_order(project: Project) -> list[int]:
    """What the inbox sorted by before: every open issue read whole, then ordered."""
    order = scale(project.groups)
    issues = list(project.corpus.newest(signals.OPEN_MAX, state="open"))
    keyed = sorted(issues, key=lambda i: (sort_key(severity_of(project.groups, i.labels), order), i.created_at, i.id))
    return [i.id for i in keyed]


@pytest.mark.parametrize("which", ["bundled", "synthetic"])
def test_every_open_issue_comes_in_the_order_of_its_severity_then_its_age(tmp_path: Path, which: str) -> None:
    data = bundled_data_dir() if which == "bundled" else make_dataset(tmp_path, _backlog(120))
    project = Project.open(data, tmp_path / "home")
    # Atlas's own label changes count as the labels they made: #3's severity is now the worst.
    project.corpus.changes[3] = LabelChanges(added=["severity:S1"], removed=["severity:S2", "severity:S3"])
    want = _reference_order(project)
    every = list(signals.inbox_items(project, seen_until="0000"))  # everything is new: every issue has a reason
    assert [item.issue.id for item in every] == want


def test_the_first_rows_read_the_reasons_of_one_page_of_issues(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    project = Project.open(make_dataset(tmp_path, _backlog(400)), tmp_path / "home")
    judged: list[int] = []
    reasons_for = signals.reasons_for

    def counted(project: Project, issue: signals.Issue, *rest: object) -> list[str]:
        judged.append(issue.id)
        return reasons_for(project, issue, *rest)  # type: ignore[arg-type]

    monkeypatch.setattr(signals, "reasons_for", counted)
    first = list(itertools.islice(signals.inbox_items(project, seen_until=None), 5))
    assert len(first) == 5
    assert len(judged) <= FIRST_PAGE < 300


def test_a_limited_table_says_there_are_more_and_a_whole_one_counts_them(tmp_path: Path) -> None:
    env = atlas_env(tmp_path / "home", ORBIT_DATA=str(make_dataset(tmp_path, _backlog(30))))
    whole = invoke("inbox", env=env)
    assert whole.code == 0, whole
    needing = int(whole.stdout.strip().splitlines()[-1].split()[0])
    some = invoke("inbox", "-n", "3", env=env)
    lines = some.stdout.strip().splitlines()
    assert len(lines) == 2 + 3 + 1
    assert lines[-1] == "The first 3 open issues that need a look; without -n, all of them."
    every = invoke("inbox", "-n", str(needing), env=env)
    assert every.stdout.strip().splitlines()[-1] == f"{needing} open issues need a look."
