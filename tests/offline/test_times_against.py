"""Two times set against each other in one request: the request is asked once for each time."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from atlas.offline.compose import read_question
from atlas.offline.reading.times_against import times_set_against
from atlas.offline.reading.vocabulary import Vocabulary

FLAT = Vocabulary(labels=["bug", "enhancement", "dataset request"])
TOOLS = ("search_issues", "count_issues_by", "get_issue")


@pytest.fixture(autouse=True)
def fixed_today(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("atlas.offline.reading.dates.today", lambda: date(2026, 12, 7))


def calls(question: str) -> list[tuple[str, dict[str, Any]]]:
    return [(call.name, call.arguments) for call in read_question(question, FLAT, TOOLS).first_calls()]


def test_two_months_counted_against_each_other_are_two_counts_in_the_order_said() -> None:
    assert calls("how many issues were opened in march 2024 vs march 2023") == [
        (
            "search_issues",
            {"query": "", "created_since": "2024-03-01", "created_before": "2024-04-01", "count_only": True},
        ),
        (
            "search_issues",
            {"query": "", "created_since": "2023-03-01", "created_before": "2023-04-01", "count_only": True},
        ),
    ]


def test_the_rest_of_the_request_holds_for_both_times() -> None:
    first, second = calls("open bugs about parquet in january 2024 compared to january 2025, please")
    assert first[1] == {
        "query": "parquet",
        "state": "open",
        "label": "bug",
        "created_since": "2024-01-01",
        "created_before": "2024-02-01",
    }
    assert second[1] == {**first[1], "created_since": "2025-01-01", "created_before": "2025-02-01"}


def test_times_said_without_a_lead_word_are_read_as_said() -> None:
    assert times_set_against("bugs this month vs last month") == ("bugs this month", "bugs last month")


def test_years_against_each_other_stay_one_count_per_year() -> None:
    assert calls("how many bugs in 2023 vs 2024") == [
        (
            "count_issues_by",
            {"label": "bug", "created_since": "2023-01-01", "created_before": "2025-01-01", "by": "year"},
        )
    ]


@pytest.mark.parametrize(
    "text",
    ["compare 7412 vs 6775", "open vs closed bugs since january", "bugs in march vs enhancements", "parquet vs arrow"],
)
def test_no_time_on_one_side_is_no_pair_of_times(text: str) -> None:
    assert times_set_against(text) is None
