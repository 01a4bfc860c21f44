"""A label group is proposed for only where the model did at least as well as its baseline on the history."""

from __future__ import annotations

from pathlib import Path

import pytest

from atlas.dataset.source import dataset_identity
from atlas.foundation.config import bundled_data_dir
from atlas.tracker.journal import IssueBrief, MockTracker
from atlas.triage import index as index_module
from atlas.triage import model as model_module
from atlas.triage import verdicts as verdicts_module
from atlas.triage.project import Project
from atlas.triage.proposals import propose
from atlas.triage.similar import similar
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


def test_an_approved_label_refits_nothing(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    data = bundled_data_dir()
    tracker = MockTracker(home, dataset_identity(data), data=data)
    tracker.add_label(IssueBrief(132, "t", []), "type:bug", key="k1", session="s")

    def refit(*_: object, **__: object) -> None:
        raise AssertionError("fitted again after a write")

    monkeypatch.setattr(model_module, "fit", refit)
    monkeypatch.setattr(index_module, "build", refit)
    monkeypatch.setattr(verdicts_module, "label_replay", refit)
    project = Project.open(data, home)
    assert project.corpus.changes[132].added == ["type:bug"]
    assert propose(project, [project.issue(135)])[0].groups
    assert similar(project, project.issue(145), 3)
