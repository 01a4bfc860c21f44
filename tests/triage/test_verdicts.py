"""A label group is proposed for only where the model did at least as well as its baseline on the history."""

from __future__ import annotations

from pathlib import Path

from atlas.config import bundled_data_dir
from atlas.triage.project import Project
from atlas.triage.proposals import propose
from atlas.triage.verdicts import Verdict, verdicts


def test_a_group_whose_model_lost_to_its_baseline_gets_a_person_not_a_label(home: Path) -> None:
    project = Project.open(bundled_data_dir(), home)
    judged = verdicts(project)
    assert not judged["severity"].may_propose and judged["type"].may_propose  # Orbit's replay, as --eval shows
    groups = {g.group: g for g in propose(project, [project.issue(135)])[0].groups}
    severity = groups["severity"]
    assert severity.label is None and severity.guess is not None and "plain baseline" in severity.note
    assert groups["type"].label is not None


def test_too_few_issues_decide_nothing_and_a_bad_file_is_replayed(home: Path) -> None:
    assert Verdict("kind", 0.2, 0.9, tested=4, trained=100).may_propose  # four issues prove nothing
    assert not Verdict("kind", 0.2, 0.9, tested=40, trained=100).may_propose
    for path in (home / "triage").glob("verdicts-*.json"):
        path.write_text('{"format": 1, "key": "x", "groups": [{"group": 3}]}', encoding="utf-8")
    assert not verdicts(Project.open(bundled_data_dir(), home))["severity"].may_propose
