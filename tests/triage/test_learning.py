"""Label groups, proposals and similarity learned from a project's own issues, read in process."""

from __future__ import annotations

import json
from pathlib import Path

from atlas.foundation.config import bundled_data_dir
from atlas.triage.groups import learn_groups, missing_groups
from atlas.triage.project import Project
from atlas.triage.proposals import propose
from atlas.triage.signatures import signature
from atlas.triage.similar import similar
from tests.support.dataset_factory import issue, make_dataset


def test_groups_come_from_prefixes_and_a_group_is_expected_where_the_data_says() -> None:
    issues = [("type:bug", "comp:core", "severity:S2")] * 6 + [("type:question", "comp:api")] * 6
    known = ["type:bug", "type:question", "comp:core", "comp:api", "severity:S2", "severity:S3", "wontfix"]
    groups = {g.name: g for g in learn_groups(issues, known, {})}
    assert set(groups) == {"type", "comp", "severity"}  # `wontfix` has no group: never proposed
    assert groups["type"].always and groups["comp"].always
    assert not groups["severity"].always and groups["severity"].implied_by == ("comp:core", "type:bug")
    assert [g.name for g in missing_groups(list(groups.values()), ["type:question"])] == ["comp"]
    assert {g.name for g in missing_groups(list(groups.values()), ["type:bug"])} == {"comp", "severity"}


def test_projects_without_prefixes_name_their_groups() -> None:
    issues = [("bug", "area-cli")] * 5 + [("enhancement", "area-docs")] * 5
    groups = learn_groups(issues, ["bug", "enhancement", "area-cli", "area-docs"], {"kind": ("bug", "enhancement")})
    assert [(g.name, g.labels, g.always) for g in groups] == [("kind", ("bug", "enhancement"), True)]


def test_signatures_ignore_line_numbers_and_install_paths() -> None:
    one = signature('ORB-1101 LeaseExpired\n  File "/srv/a/site-packages/orbit/worker/runner.py", line 212, in _claim')
    two = signature('  File "/usr/lib/python3/dist-packages/orbit/worker/runner.py", line 240, in _claim\nORB-1101')
    codes, frames = one.shared(two)
    assert codes == ["ORB-1101"] and frames == ["orbit/worker/runner.py in _claim"]


def test_similar_finds_the_earlier_report_of_the_same_problem(home: Path) -> None:
    project = Project.open(bundled_data_dir(), home)
    found = similar(project, project.issue(145), 3)  # pgbouncer delay, in other words than #87
    assert 87 in [m.id for m in found]
    assert [m.score for m in found] == sorted((m.score for m in found), reverse=True)  # best first, open or not
    queue = similar(project, project.issue(158), 5)
    assert any("ORB-1306" in m.codes for m in queue)


def untriaged_dataset(tmp_path: Path) -> Path:
    lease = "The job ran twice: ORB-1101 LeaseExpired after the lease ran out while the worker was busy."
    redis = "Redis broker loses the connection and ORB-1302 BrokerAuthFailed repeats after a password change."
    issues = [
        issue(n, f"Lease expired and job ran twice ({n})", labels=["comp:core", "type:bug"], body=lease)
        for n in range(1, 8)
    ]
    issues += [
        issue(
            n,
            f"Redis password rotation breaks workers ({n})",
            labels=["comp:broker-redis", "type:question"],
            body=redis,
        )
        for n in range(8, 15)
    ]
    issues.append(issue(20, "Job ran twice after its lease expired", body=lease, created_at="2026-03-05T10:00:00Z"))
    return make_dataset(tmp_path, issues)


def test_proposals_fill_only_empty_groups_with_the_projects_labels(tmp_path: Path, atlas_home: Path) -> None:
    project = Project.open(untriaged_dataset(tmp_path), atlas_home)
    proposal = propose(project, [project.issue(20), project.issue(3)])
    groups = {g.group: g for g in proposal[0].groups}
    assert groups["comp"].label == "comp:core" and groups["type"].label == "type:bug"
    assert groups["comp"].nearest and set(groups["comp"].nearest) <= set(range(1, 8))
    assert "lease" in " ".join(groups["comp"].words)
    assert proposal[1].groups == []  # #3 has both groups: nothing is proposed, nothing changed


def test_a_label_a_person_removed_is_never_proposed_again(tmp_path: Path, atlas_home: Path) -> None:
    data = untriaged_dataset(tmp_path)
    atlas_home.mkdir(parents=True, exist_ok=True)
    record = {"ts": "2026-03-06T10:00:00.000Z", "key": "k1", "action": "remove_label", "issue_id": 20}
    (atlas_home / "tracker_actions.jsonl").write_text(json.dumps({**record, "label": "comp:core"}) + "\n")
    project = Project.open(data, atlas_home)
    comp = next(g for g in propose(project, [project.issue(20)])[0].groups if g.group == "comp")
    assert comp.label != "comp:core" and comp.guess != "comp:core"


def test_below_the_threshold_there_is_no_label_only_a_best_guess(tmp_path: Path, atlas_home: Path) -> None:
    atlas_home.mkdir(parents=True, exist_ok=True)
    (atlas_home / "config.toml").write_text("[triage]\nthreshold = 0.9999\n")  # more than 14 issues can make sure of
    project = Project.open(untriaged_dataset(tmp_path), atlas_home)
    groups = propose(project, [project.issue(20)])[0].groups
    assert groups and all(g.label is None and g.guess is not None for g in groups)
