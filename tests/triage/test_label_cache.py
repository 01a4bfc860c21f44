"""The label groups kept in the state folder: read once per version of the labels, refused when tampered with."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from atlas.dataset.ensure import build_db, db_path, jsonl_path
from atlas.triage import label_cache
from atlas.triage.corpus import Corpus
from atlas.triage.inbox_order import open_in_order, read_order, severity_judge
from atlas.triage.project import Project
from tests.support.dataset_factory import issue, make_dataset

FLAT = ["bug"] * 6 + ["enhancement"] * 5 + ["question"] * 2


def flat_issues(labels: list[str]) -> list[dict[str, object]]:
    return [issue(n, f"Issue {n}", labels=[label]) for n, label in enumerate(labels, start=1)]


def kept_file(home: Path) -> Path:
    [path] = (home / label_cache.FOLDER).glob(f"{label_cache.PREFIX}*.json")
    return path


def unread_labels(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every issue's labels may not be read: the project must come from the kept file."""

    def refuse(self: Corpus) -> None:
        raise AssertionError("every issue's labels were read again")

    monkeypatch.setattr(Corpus, "label_sets", refuse)


def test_groups_are_learnt_once_per_version_of_the_labels(
    tmp_path: Path, atlas_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = make_dataset(tmp_path, flat_issues(FLAT))
    first = Project.open(data, atlas_home)
    assert [(g.name, g.labels) for g in first.groups] == [("kind", ("bug", "enhancement"))]
    assert first.most_used == ("bug", "enhancement", "question")
    unread_labels(monkeypatch)
    again = Project.open(data, atlas_home)
    assert again.groups == first.groups and again.most_used == first.most_used


def test_a_label_written_through_atlas_is_counted_at_once(tmp_path: Path, atlas_home: Path) -> None:
    data = make_dataset(tmp_path, flat_issues(FLAT))
    assert Project.open(data, atlas_home).most_used[0] == "bug"
    records = [
        {"ts": "2026-03-06T10:00:00.000Z", "key": f"k{n}", "action": "add_label", "issue_id": n, "label": "question"}
        for n in range(1, 12)
    ]
    (atlas_home / "tracker_actions.jsonl").write_text("".join(json.dumps(r) + "\n" for r in records))
    assert Project.open(data, atlas_home).most_used[0] == "question"
    assert len(list((atlas_home / label_cache.FOLDER).glob("labels-*.json"))) == 1  # the older one removed


def test_a_new_version_of_the_data_is_learnt_again(tmp_path: Path, atlas_home: Path) -> None:
    data = make_dataset(tmp_path, flat_issues(FLAT))
    assert Project.open(data, atlas_home).groups
    jsonl = jsonl_path(data)
    jsonl.write_text("".join(json.dumps(i) + "\n" for i in flat_issues(["bug", "enhancement"] * 7)))
    build_db(jsonl, db_path(data))  # what an import or a sync leaves
    assert Project.open(data, atlas_home).most_used == ("bug", "enhancement")


@pytest.mark.parametrize(
    "tamper",
    [
        lambda text: text.replace('"enhancement"', '"question"', 1),  # another of the project's labels
        lambda text: text.replace('"bug"', '"wontfix"'),  # a label the project lacks
        lambda text: "[" * 100_000,
        lambda text: "\xff not json",
        lambda text: json.dumps({**json.loads(text), "groups": [{"name": 1}]}),
    ],
)
def test_a_tampered_file_is_refused_in_one_line_and_learnt_again(
    tmp_path: Path, atlas_home: Path, capsys: pytest.CaptureFixture[str], tamper: object
) -> None:
    data = make_dataset(tmp_path, flat_issues(FLAT))
    learnt = Project.open(data, atlas_home).groups
    path = kept_file(atlas_home)
    assert callable(tamper)
    path.write_text(tamper(path.read_text()))
    capsys.readouterr()
    assert Project.open(data, atlas_home).groups == learnt
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and err.startswith("atlas: warning: the label groups kept in the state folder")
    assert Project.open(data, atlas_home).groups == learnt  # rewritten: no warning the next time
    assert capsys.readouterr().err == ""


def test_a_link_in_place_of_the_file_is_refused_and_left_as_it_is(
    tmp_path: Path, atlas_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    data = make_dataset(tmp_path, flat_issues(FLAT))
    learnt = Project.open(data, atlas_home).groups
    path = kept_file(atlas_home)
    elsewhere = tmp_path / "elsewhere.json"
    elsewhere.write_text("not Atlas's")
    path.unlink()
    path.symlink_to(elsewhere)
    capsys.readouterr()
    assert Project.open(data, atlas_home).groups == learnt
    assert "does not follow links" in capsys.readouterr().err
    assert path.is_symlink() and elsewhere.read_text() == "not Atlas's"  # neither removed nor written through


def test_the_inbox_order_is_kept_and_follows_a_severity_set_through_atlas(
    tmp_path: Path, atlas_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    labels = [["type:bug", "severity:S3"]] * 3 + [["type:bug", "severity:S1"]] * 3 + [["type:question"]] * 3
    issues = [issue(n, f"Issue {n}", labels=x, created_at=f"2026-03-0{n}T10:00:00Z") for n, x in enumerate(labels, 1)]
    data = make_dataset(tmp_path, issues)
    severity = severity_judge(Project.open(data, atlas_home).groups)
    read = open_in_order(Project.open(data, atlas_home), severity)
    assert read[:3] == [4, 5, 6] and read == read_order(Project.open(data, atlas_home), severity)
    assert open_in_order(Project.open(data, atlas_home), severity) == read  # the kept order
    record = {"ts": "2026-03-06T10:00:00.000Z", "key": "k1", "action": "add_label", "issue_id": 9, "label": "type:bug"}
    sev = {**record, "key": "k2", "label": "severity:S1"}
    (atlas_home / "tracker_actions.jsonl").write_text(json.dumps(record) + "\n" + json.dumps(sev) + "\n")
    assert open_in_order(Project.open(data, atlas_home), severity)[:4] == [4, 5, 6, 9]
    [kept] = (atlas_home / label_cache.FOLDER).glob(f"{label_cache.ORDER_PREFIX}*")
    kept.write_bytes(kept.read_bytes()[:32] + bytes(8) + kept.read_bytes()[40:])
    capsys.readouterr()
    assert open_in_order(Project.open(data, atlas_home), severity)[:4] == [4, 5, 6, 9]
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "the inbox's order kept in the state folder was refused" in err
