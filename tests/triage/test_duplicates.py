"""Duplicates: ranked by evidence, issue forms ignored, "nothing close" said, replayed against known pairs."""

from __future__ import annotations

from pathlib import Path

import pytest

from atlas.dataset.source import dataset_identity
from atlas.tracker.journal import IssueBrief, MockTracker
from atlas.triage import boilerplate
from atlas.triage import index as index_module
from atlas.triage.evaluate import history
from atlas.triage.evaluate_duplicates import duplicate_replay, known_pairs
from atlas.triage.project import Project
from atlas.triage.similar import nearest, nothing_close, similar
from tests.support.dataset_factory import issue, make_dataset

FORM = "### Describe the bug\n{what}\n\n### Steps to reproduce the bug\n{how}\n\n### Expected behavior\nIt works.\n"
FILLER = [
    ("Parquet export drops the index column", "Writing to parquet loses the index column", "call to_parquet"),
    ("Streaming hangs on the second shard", "Iteration stops forever at the second shard", "stream a sharded set"),
    ("Image feature decodes PNG as grey", "Colour PNG files come out in grey levels", "load any png"),
    ("Audio resampling is off by one", "Resampled clips are one sample short", "resample to 16 kHz"),
    ("Map with num_proc leaks file handles", "Too many open files after map", "map with num_proc 8"),
    ("Cache folder ignores the env variable", "The cache ends up in the home folder", "set the cache variable"),
    ("Tokenizer batch drops the last row", "Batched tokenising loses the final example", "batch of 3"),
    ("Filter is slow on wide tables", "Filtering a table of 500 columns takes minutes", "filter a wide table"),
]


def form_dataset(tmp_path: Path) -> Path:
    issues = [
        issue(
            n,
            title,
            state="closed",
            labels=["bug" if n % 2 else "enhancement"],
            body=FORM.format(what=what, how=how),
            created_at=f"2026-01-{n:02d}T10:00:00Z",
        )
        for n, (title, what, how) in enumerate(FILLER, start=1)
    ]
    issues.append(
        issue(
            20,
            "Streaming stalls at shard two",
            body=FORM.format(what="Iterating a sharded set stops forever at the second shard", how="stream it"),
            created_at="2026-02-01T10:00:00Z",
            comments=["Duplicate of #2 and #9."],
        )
    )
    issues.append(issue(9, "Open question about streaming", body="Does streaming support shards?"))
    issues.append(
        issue(
            21,
            "Add a logo to the docs",
            body=FORM.format(what="The docs have no logo", how="open the docs"),
            created_at="2026-02-02T10:00:00Z",
        )
    )
    return make_dataset(tmp_path, issues)


def test_form_lines_are_learned_from_the_project_and_hidden_comments_dropped() -> None:
    bodies = [FORM.format(what=f"thing {n} broke", how=f"step {n}") for n in range(10)] + ["plain text"] * 10
    common = boilerplate.learn(bodies)
    assert "### describe the bug" in common and "it works." in common
    assert not any("thing" in line for line in common)  # what each reporter wrote is theirs
    stripped = boilerplate.strip("<!-- fill this in\nplease -->\n### Describe the bug\nthing 3 broke", common)
    assert stripped == "\nthing 3 broke"


def test_similar_ranks_by_evidence_not_by_state_and_ignores_the_form(tmp_path: Path, atlas_home: Path) -> None:
    project = Project.open(form_dataset(tmp_path), atlas_home)
    found = similar(project, project.issue(20), 3)
    assert found[0].id == 2 and found[0].state == "closed"  # the closed report of the same bug, above open #9
    assert not nothing_close(found)
    assert not {"describe", "steps", "reproduce", "expected"} & set(found[0].words)
    unrelated = similar(project, project.issue(21), 3)  # shares the whole form with every issue, nothing else
    assert nothing_close(unrelated)


def test_the_replay_counts_a_hit_on_any_report_a_duplicate_was_marked_of(tmp_path: Path, atlas_home: Path) -> None:
    project = Project.open(form_dataset(tmp_path), atlas_home)
    issues = history(project)
    pairs = known_pairs(project, issues)
    assert [(d.id, sorted(o.id for o in originals)) for d, originals in pairs] == [(20, [2])]  # #9 is newer
    report = duplicate_replay(project, issues)
    assert report["pairs"] == 1 and report["model"] == {"recall@1": 1.0, "recall@5": 1.0, "recall@10": 1.0}
    assert [m.id for m in nearest(project, project.issue(20), before="2026-01-01T00:00:00Z")] == []


def test_the_index_is_kept_across_label_writes(
    tmp_path: Path, atlas_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    data = form_dataset(tmp_path)
    project = Project.open(data, atlas_home)
    similar(project, project.issue(20))
    tracker = MockTracker(atlas_home, dataset_identity(data), data=data)
    tracker.add_label(IssueBrief(21, "Add a logo to the docs", []), "enhancement", key="k1", session="s")

    def no_build(*_: object) -> None:
        raise AssertionError("the index was built again")

    monkeypatch.setattr(index_module, "build", no_build)
    project = Project.open(data, atlas_home)
    assert project.corpus.changes  # the write is seen ...
    assert similar(project, project.issue(20), 1)[0].id == 2  # ... and the index kept
