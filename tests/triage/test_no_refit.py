"""A write through Atlas keeps the fitted model and the replay's verdicts: only a new version of the data refits."""

from __future__ import annotations

from pathlib import Path

from atlas.dataset.source import dataset_identity
from atlas.foundation.config import bundled_data_dir
from atlas.tracker.journal import IssueBrief, MockTracker
from atlas.triage.project import Project
from atlas.triage.proposals import propose
from atlas.triage.verdicts import verdicts


def _kept(home: Path) -> dict[str, int]:
    """The model and verdict files of the state folder, each with when it was written."""
    folder = home / "triage"
    return {p.name: p.stat().st_mtime_ns for p in [*folder.glob("model-*.npz"), *folder.glob("verdicts-*.json")]}


def _write(home: Path, issue_id: int, label: str) -> None:
    data = bundled_data_dir()
    before = Project.open(data, home).issue(issue_id)
    tracker = MockTracker(home, dataset_identity(data), data=data)
    tracker.add_label(IssueBrief(issue_id, before.title, list(before.labels)), label, key=f"k{issue_id}", session="s")
    tracker.post_comment(IssueBrief(issue_id, before.title, []), "Which version?", key=f"c{issue_id}", session="s")


def test_a_write_that_shifts_the_inferred_groups_keeps_the_model_and_its_verdicts(home: Path) -> None:
    data = bundled_data_dir()
    first = Project.open(data, home)
    first.model(), verdicts(first)
    kept, groups = _kept(home), first.groups
    assert not first.model_behind()
    # A question given a severity: the issues with its component now usually carry one, so the
    # inferred severity group is expected on more issues than before.
    _write(home, 31, "severity:S1")
    after = Project.open(data, home)
    assert after.groups != groups and after.label_key != first.label_key
    assert after.model_behind()  # served, marked as fitted before the write
    assert verdicts(after) and _kept(home) == kept  # nothing fitted, replayed or written again
    proposal = propose(after, [after.issue(31)])[0]
    assert "severity" not in {g.group for g in proposal.groups}  # the write filled it: nothing re-proposed
    assert "severity:S1" not in proposal.labels


def test_a_kept_model_that_was_tampered_with_is_refitted_not_trusted(home: Path) -> None:
    _write(home, 31, "severity:S1")
    (model,) = (home / "triage").glob("model-*.npz")
    raw = bytearray(model.read_bytes())
    name, other = ('"labels_key"'.encode("utf-32-le"), '"labels_kez"'.encode("utf-32-le"))  # numpy's str arrays
    at = raw.find(name)
    assert at > 0
    raw[at : at + len(name)] = other  # same size, no longer what Atlas wrote
    model.write_bytes(bytes(raw))
    project = Project.open(bundled_data_dir(), home)
    assert not project.model_behind()  # fitted again, with the approved label learnt
    assert project.model().group("type") is not None
