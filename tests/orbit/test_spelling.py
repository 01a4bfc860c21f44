"""A search word no issue holds, read as the nearest title word: two letters swapped are one slip."""

from __future__ import annotations

from pathlib import Path

from atlas.orbit.issues import SearchArgs, search_issues
from tests.support.dataset_factory import context, issue, make_dataset


def test_a_word_with_two_letters_swapped_is_read_as_the_title_word(tmp_path: Path, atlas_home: Path) -> None:
    ctx = context(
        make_dataset(
            tmp_path,
            [
                issue(1, "Upload timeout on push_to_hub", body="It stops."),
                issue(2, "Another timeout when uploading", body="Slow."),
                issue(3, "Streaming breaks", body="Nothing about time."),
            ],
        ),
        atlas_home,
    )
    found = search_issues(SearchArgs(query="timoeut"), ctx)  # `timeout` with two letters swapped
    assert {hit["id"] for hit in found["hits"]} == {1, 2} and "“timoeut” as “timeout”" in found["hint"]
