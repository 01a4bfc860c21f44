"""A time said with no number (`recently`, `lately`, `in the last while`): the last 30 days, said in the answer."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from atlas.offline.compose import read_question
from atlas.offline.reading.dates import RECENT_DAYS, span_in
from atlas.runtime.toolset import load_registry
from tests.offline.test_offline import run_to_answer
from tests.offline.test_search_filters import SATURDAY, fixed_today, searches

__all__ = ["fixed_today"]  # the autouse fixture that fixes today, shared with the other filters' tests

WINDOW = "2026-11-05"  # SATURDAY less RECENT_DAYS


@pytest.mark.parametrize(
    ("words", "said", "activity"),
    [
        ("bugs opened recently", "recently", False),
        ("recently filed issues", "recently", False),
        ("newly reported bugs", "newly", False),
        ("issues filed lately", "lately", False),
        ("what was reported in the last while", "in the last while", False),
        ("any tickets over the past little while?", "over the past little while", False),
        ("anything about retries lately?", "lately", False),
        ("issues updated recently", "recently", True),
        ("bugs with activity lately", "lately", True),
    ],
)
def test_a_time_with_no_number_said_of_the_issues_is_the_last_30_days(words: str, said: str, activity: bool) -> None:
    span = span_in(words, SATURDAY)
    assert span is not None and span.vague and span.said == said and span.activity is activity
    assert span.since is not None and (SATURDAY - span.since).days == RECENT_DAYS and span.before is None


@pytest.mark.parametrize(
    "words",
    [
        "I recently upgraded and the worker crashes",
        "has anyone hit this lately?",
        "recently closed issues",  # the data keeps no closing dates
        "bugs opened in the last 2 weeks",  # a number: the span it says
    ],
)
def test_recently_said_of_something_else_or_with_a_number_is_no_vague_window(words: str) -> None:
    span = span_in(words, SATURDAY)
    assert span is None or not span.vague


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("bugs opened recently", {"label": "type:bug", "created_since": WINDOW}),
        ("recently opened issues", {"created_since": WINDOW}),
        ("what was reported in the last while", {"created_since": WINDOW}),
        ("any crashes lately?", {"query": "crashes", "created_since": WINDOW}),
        ("anything about retries lately?", {"query": "retries", "created_since": WINDOW}),
        ("open issues updated recently", {"state": "open", "updated_since": WINDOW}),
        ("how many bugs were filed lately?", {"label": "type:bug", "created_since": WINDOW, "count_only": True}),
    ],
)
def test_the_window_is_the_search_s_days_and_the_answer_says_it(question: str, expected: dict[str, Any]) -> None:
    assert searches(question) == [{"query": "", **expected}]
    notes = read_question(question).notes
    assert any(f"the last {RECENT_DAYS} days" in note and WINDOW in note for note in notes)


def test_recently_updated_as_an_order_stays_an_order() -> None:
    assert searches("recently updated issues") == [{"query": "", "order": "recently_updated"}]


def test_the_answer_on_orbit_says_which_days_it_took() -> None:
    rounds, answer = run_to_answer("bugs opened recently", load_registry([]))
    assert rounds[0] == [("search_issues", {"query": "", "label": "type:bug", "created_since": WINDOW})]
    assert f"“recently” is read as the last {RECENT_DAYS} days: issues opened since {WINDOW}" in answer


def test_a_long_text_with_no_sentence_end_is_read_in_linear_time() -> None:
    import time

    prose = ("the worker loses its lease and jobs run twice on issues " * 900)[:50_000]
    started = time.process_time()
    assert span_in(prose + " lately", SATURDAY) is not None and span_in(prose, SATURDAY) is None
    assert time.process_time() - started < 1.0  # a pattern rescanning the text from each issue word took seconds


def test_a_range_between_two_times_is_one_span_and_its_years_are_no_issues() -> None:

    from atlas.offline.reading.dates import span_in
    from atlas.offline.reading.entities import issue_refs

    now = date(2026, 12, 6)
    cases = {
        "issues opened between march and may 2024": (date(2024, 3, 1), date(2024, 6, 1)),
        "bugs from 2023-06 to 2024-01": (date(2023, 6, 1), date(2024, 2, 1)),
        "between november 2023 and february 2024": (date(2023, 11, 1), date(2024, 3, 1)),
        "between november and february 2024": (date(2023, 11, 1), date(2024, 3, 1)),
        "issues opened between 2022 and 2023": (date(2022, 1, 1), date(2024, 1, 1)),
        "between may and march 2024": (date(2023, 5, 1), date(2024, 4, 1)),  # the months before the year's march
    }
    for said, (since, before) in cases.items():
        span = span_in(said, now)
        assert span is not None and (span.since, span.before) == (since, before), said
    assert issue_refs("issues opened between 2022 and 2023") == []
    assert issue_refs("compare 41 and 87") == [41, 87]
