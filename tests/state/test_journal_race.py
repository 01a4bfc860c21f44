"""The journal's check-and-record, raced by real processes: a rule's `max_per_issue` and `max_per_run`
hold over everyone's records, and a drafted comment goes to an issue once."""

from __future__ import annotations

from pathlib import Path

from atlas.tracker.journal import MockTracker
from tests.state.race import race_writes


def test_eight_processes_under_max_per_issue_one_post_one_comment(tmp_path: Path) -> None:
    writes = [("post_comment", 41, f"key-{n}", f"run-{n}") for n in range(8)]
    answers = race_writes(tmp_path, writes, {"rule": "thanks", "max_per_issue": 1})
    assert sum(1 for a in answers if a.get("posted")) == 1, answers
    assert all("per issue" in a["refused"] for a in answers if not a.get("posted")), answers
    assert [r["issue_id"] for r in MockTracker(tmp_path).records()] == [41]


def test_eight_processes_of_one_run_keep_its_max_per_run(tmp_path: Path) -> None:
    writes = [("add_label", 100 + n, f"key-{n}", "plan-shared") for n in range(8)]
    answers = race_writes(tmp_path, writes, {"rule": "thanks", "max_per_run": 3})
    assert sum(1 for a in answers if a.get("changed")) == 3, answers
    assert len(MockTracker(tmp_path).records()) == 3


def test_drafted_comments_racing_on_one_issue_post_one(tmp_path: Path) -> None:
    writes = [("post_comment", 7, f"key-{n}", f"plan-{n}") for n in range(2)]
    answers = race_writes(tmp_path, writes, {"first_comment": True})
    assert sorted(bool(a["posted"]) for a in answers) == [False, True], answers
    assert any("already commented on #7" in a.get("note", "") for a in answers)
    records = MockTracker(tmp_path).records()
    assert len(records) == 1 and records[0]["person"] and records[0]["machine"]
