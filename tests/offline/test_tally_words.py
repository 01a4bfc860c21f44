"""Counts by label said as a comparison (`enhancements vs bugs`) or a superlative (`the most common label`)."""

from __future__ import annotations

from typing import Any

import pytest

from atlas.offline.compose import read_question
from atlas.offline.reading.vocabulary import Vocabulary

FLAT = Vocabulary(labels=["bug", "enhancement", "dataset request", "streaming", "documentation"])


def first_calls(question: str) -> list[tuple[str, dict[str, Any]]]:
    plan = read_question(question, FLAT, ("search_issues", "count_issues_by", "get_issue"))
    return [(call.name, call.arguments) for call in plan.first_calls()]


@pytest.mark.parametrize(
    ("question", "compared", "filters"),
    [
        ("how many of the open issues are enhancements vs bugs?", ["enhancement", "bug"], {"state": "open"}),
        ("bugs versus dataset requests since 2023", ["bug", "dataset request"], {"created_since": "2023-01-01"}),
        ("dataset requests vs streaming", ["dataset request", "streaming"], {}),
    ],
)
def test_two_labels_set_against_each_other_are_counted_side_by_side(
    question: str, compared: list[str], filters: dict[str, Any]
) -> None:
    [(name, arguments)] = first_calls(question)
    assert name == "count_issues_by" and arguments["by"] == "label" and arguments["any_labels"] == compared
    assert filters.items() <= arguments.items() and not arguments.get("query")


def test_words_that_are_no_labels_set_against_each_other_are_no_count_by_label() -> None:
    assert not any(name == "count_issues_by" for name, _ in first_calls("python 3.10 vs 3.11 problems"))
    [(name, arguments)] = first_calls("open vs closed bugs")
    assert name == "count_issues_by" and arguments["by"] == "state"


def test_the_most_common_label_is_a_count_by_label() -> None:
    [(name, arguments)] = first_calls("what's the most common label on open issues?")
    assert (name, arguments) == ("count_issues_by", {"state": "open", "by": "label"})


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("what percent of issues are bugs?", {"by": "label"}),
        ("what share of bugs are still open?", {"label": "bug", "by": "state"}),
        ("what percentage of open issues have no label", {"state": "open", "by": "label"}),
        ("what's the share of bugs among open issues?", {"state": "open", "by": "label"}),
        (
            "were there more bugs in 2023 or 2024?",
            {"label": "bug", "created_since": "2023-01-01", "created_before": "2025-01-01", "by": "year"},
        ),
        ("the proportion of open issues among bugs", {"label": "bug", "by": "state"}),
        (
            "percentage of enhancements in 2024",
            {"created_since": "2024-01-01", "created_before": "2025-01-01", "by": "label"},
        ),
        ("how many issues were closed out of all bugs", {"label": "bug", "by": "state"}),
        ("how many are still open out of the enhancement requests?", {"label": "enhancement", "by": "state"}),
    ],
)
def test_a_share_asked_is_a_count_of_the_issues_said_split_by_what_they_are(
    question: str, expected: dict[str, Any]
) -> None:
    assert first_calls(question) == [("count_issues_by", expected)]


def test_each_group_of_a_count_says_its_share_of_the_issues_counted() -> None:
    from atlas.offline.answer.results import tally_section
    from atlas.offline.plan import PlannedCall

    data = {"by": "label", "total": 200, "groups": [{"key": "bug", "count": 50}], "without_label": 30}
    said = tally_section(PlannedCall("count_issues_by", {"by": "label"}), data)
    assert "- `bug`: 50 (25 %)" in said and "- no label: 30 (15 %)" in said
    assert "(" not in tally_section(PlannedCall("count_issues_by", {"by": "label"}), {**data, "total": None})


def test_a_count_that_matched_nothing_lists_no_empty_group() -> None:
    from atlas.offline.answer.results import tally_section
    from atlas.offline.plan import PlannedCall

    empty = {"by": "label", "groups": [], "total": 0, "without_label": 0}
    said = tally_section(PlannedCall("count_issues_by", {"by": "label"}), empty)
    assert "No issue matched." in said and "no label" not in said
    some = {"by": "label", "groups": [], "total": 3, "without_label": 3}
    assert "- no label: 3" in tally_section(PlannedCall("count_issues_by", {"by": "label"}), some)
