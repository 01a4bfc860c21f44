"""`count_issues_by`: issues counted by author, label, state, year or month, with search's filters."""

from __future__ import annotations

from pathlib import Path

from atlas.orbit.labels import AddLabelArgs, RemoveLabelArgs, add_label, remove_label
from atlas.orbit.tally import TallyArgs, count_issues_by
from atlas.tools.registry import ToolContext, lax_arguments
from tests.support.dataset_factory import context, issue, make_dataset


def _project(tmp_path: Path, atlas_home: Path) -> ToolContext:
    return context(
        make_dataset(
            tmp_path,
            [
                issue(1, "Crash on load", labels=["bug"], author="ana", created_at="2023-05-01T10:00:00Z"),
                issue(
                    2, "Crash on save", labels=["bug"], author="ana", state="closed", created_at="2024-02-01T10:00:00Z"
                ),
                issue(3, "Add polars support", labels=["enhancement"], author="bo", created_at="2024-02-09T10:00:00Z"),
                issue(4, "Crash when streaming", author="cy", created_at="2024-03-01T10:00:00Z"),
            ],
        ),
        atlas_home,
    )


def _groups(ctx: ToolContext, **args: object) -> dict[object, int]:
    return {group["key"]: group["count"] for group in count_issues_by(lax_arguments(TallyArgs, args), ctx)["groups"]}


def test_issues_are_counted_by_author_largest_first_with_searchs_filters(tmp_path: Path, atlas_home: Path) -> None:
    ctx = _project(tmp_path, atlas_home)
    counted = count_issues_by(TallyArgs(by="author"), ctx)
    assert counted["total"] == 4 and [g["key"] for g in counted["groups"]] == ["ana", "bo", "cy"]
    assert _groups(ctx, by="author", label="bug", state="open") == {"ana": 1}
    assert _groups(ctx, by="author", query="crash") == {"ana": 2, "cy": 1}
    assert _groups(ctx, by="author", created_since="2024-02-05") == {"bo": 1, "cy": 1}
    limited = count_issues_by(TallyArgs(by="author", limit=1), ctx)
    assert limited["groups"] == [{"key": "ana", "count": 2}] and "2 more groups" in limited["note"]
    assert limited["group_count"] == 3  # how many different keys, whatever the limit shows


def test_years_and_months_come_latest_first(tmp_path: Path, atlas_home: Path) -> None:
    ctx = _project(tmp_path, atlas_home)
    assert list(_groups(ctx, by="year").items()) == [("2024", 3), ("2023", 1)]
    assert list(_groups(ctx, by="month", limit=2).items()) == [("2024-03", 1), ("2024-02", 2)]
    assert _groups(ctx, by="state", label="bug") == {"open": 1, "closed": 1}


def test_the_busiest_months_come_first_when_asked(tmp_path: Path, atlas_home: Path) -> None:
    ctx = _project(tmp_path, atlas_home)
    assert list(_groups(ctx, by="month", busiest_first=True).items()) == [
        ("2024-02", 2),
        ("2023-05", 1),
        ("2024-03", 1),
    ]
    assert list(_groups(ctx, by="year", busiest_first=True, limit=1).items()) == [("2024", 3)]


def test_the_smallest_groups_come_first_when_asked(tmp_path: Path, atlas_home: Path) -> None:
    ctx = _project(tmp_path, atlas_home)
    assert list(_groups(ctx, by="year", fewest_first=True).items()) == [("2023", 1), ("2024", 3)]
    assert list(_groups(ctx, by="author", fewest_first=True, limit=2).items()) == [("bo", 1), ("cy", 1)]


def test_labels_are_counted_as_atlas_writes_left_them(tmp_path: Path, atlas_home: Path) -> None:
    ctx = _project(tmp_path, atlas_home)
    before = count_issues_by(TallyArgs(by="label"), ctx)
    assert _groups(ctx, by="label") == {"bug": 2, "enhancement": 1} and before["without_label"] == 1
    add_label(AddLabelArgs(issue_id=4, label="bug"), ctx)
    remove_label(RemoveLabelArgs(issue_id=3, label="enhancement"), ctx)
    after = count_issues_by(TallyArgs(by="label"), ctx)
    assert _groups(ctx, by="label") == {"bug": 3} and after["without_label"] == 1  # #3 lost its only label
    assert _groups(ctx, by="author", label="bug") == {"ana": 2, "cy": 1}


def test_an_unknown_label_or_days_after_the_data_are_said(tmp_path: Path, atlas_home: Path) -> None:
    ctx = _project(tmp_path, atlas_home)
    unknown = count_issues_by(TallyArgs(by="author", label="regression"), ctx)
    assert unknown["total"] == 0 and "No issue has the label 'regression'" in unknown["hint"]
    late = count_issues_by(lax_arguments(TallyArgs, {"by": "author", "created_since": "2030-01-01"}), ctx)
    assert late["total"] == 0 and "last activity is on 2024-03-01" in late["note"]


def test_any_of_labels_counts_issues_with_at_least_one(tmp_path: Path, atlas_home: Path) -> None:
    ctx = _project(tmp_path, atlas_home)
    assert _groups(ctx, by="state", any_labels=["bug", "enhancement"]) == {"open": 2, "closed": 1}
    assert _groups(ctx, by="author", any_labels=["enhancement", "nonexistent"]) == {"bo": 1}
    add_label(AddLabelArgs(issue_id=4, label="enhancement"), ctx)
    assert _groups(ctx, by="author", any_labels=["enhancement"], state="open") == {"bo": 1, "cy": 1}
    assert _groups(ctx, by="author", label="bug", any_labels=["enhancement"]) == {}
    neither = count_issues_by(TallyArgs(by="author", any_labels=["regression", "wontfix"]), ctx)
    assert neither["total"] == 0 and "No issue has the label 'regression'" in neither["hint"]


def test_issues_without_a_label_are_those_it_is_not_on_as_atlas_writes_left_them(
    tmp_path: Path, atlas_home: Path
) -> None:
    ctx = _project(tmp_path, atlas_home)
    assert _groups(ctx, by="author", without_labels=["bug"]) == {"bo": 1, "cy": 1}
    assert _groups(ctx, by="author", without_labels=["Bug", "enhancement"]) == {"cy": 1}
    add_label(AddLabelArgs(issue_id=4, label="bug"), ctx)
    assert _groups(ctx, by="author", without_labels=["bug"]) == {"bo": 1}
    unknown = count_issues_by(TallyArgs(by="author", without_labels=["regression"]), ctx)
    assert unknown["total"] == 0 and "No issue has the label 'regression'" in unknown["hint"]
