"""Search words as an FTS5 match: two words the issues write as one identifier are found either way."""

from __future__ import annotations

from pathlib import Path

from atlas.orbit.issues import SearchArgs, search_issues
from atlas.orbit.tally import TallyArgs, count_issues_by
from atlas.tools.registry import ToolContext
from tests.support.dataset_factory import context, issue, make_dataset


def _project(tmp_path: Path, atlas_home: Path) -> ToolContext:
    return context(
        make_dataset(
            tmp_path,
            [
                issue(1, "PermissionError on Windows when caching", body="Raised by os.rename."),
                issue(2, "Windows: PermissionError in the temp dir", body="Access is denied."),
                issue(3, "Windows permission error on load", body="It fails."),
                issue(4, "Permission denied on Linux", body="An error."),
                issue(5, "A single ListViewType mention", body="Nothing else."),
            ],
        ),
        atlas_home,
    )


def _ids(ctx: ToolContext, query: str) -> set[int]:
    return {hit["id"] for hit in search_issues(SearchArgs(query=query), ctx)["hits"]}


def test_two_words_an_identifier_joins_find_it_and_the_words_apart(tmp_path: Path, atlas_home: Path) -> None:
    ctx = _project(tmp_path, atlas_home)
    assert _ids(ctx, "windows permission error") == {1, 2, 3}
    assert count_issues_by(TallyArgs(by="state", query="permission error"), ctx)["total"] == 4  # 4: both words apart


def test_a_joining_fewer_than_two_issues_hold_is_no_alternative(tmp_path: Path, atlas_home: Path) -> None:
    ctx = _project(tmp_path, atlas_home)
    assert _ids(ctx, "list view type") == set()  # one issue's identifier may be anything: the words stay words
    assert _ids(ctx, "windows error") == {3}  # a word inside an identifier is no word of its own
