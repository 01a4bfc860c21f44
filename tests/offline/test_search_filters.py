"""The offline planner's search filters: author, days opened or last active, and counts, in a maintainer's words."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from atlas.offline.compose import read_question
from atlas.offline.reading.dates import span_in

SATURDAY = date(2026, 12, 5)


@pytest.fixture(autouse=True)
def fixed_today(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("atlas.offline.reading.dates.today", lambda: SATURDAY)


def searches(question: str) -> list[dict[str, Any]]:
    return [call.arguments for call in read_question(question).first_calls() if call.name == "search_issues"]


@pytest.mark.parametrize(
    ("words", "since", "before", "activity"),
    [
        ("since last Monday", "2026-11-30", None, False),
        ("opened this month", "2026-12-01", None, False),
        ("from last week", "2026-11-23", "2026-11-30", False),
        ("in the past 10 days", "2026-11-25", None, False),
        ("in the last week", "2026-11-28", None, False),
        ("from the last month", "2026-11-05", None, False),  # counted back: `the` last month, not the calendar's
        ("from last month", "2026-11-01", "2026-12-01", False),
        ("older than 2 weeks", None, "2026-11-21", False),
        ("with no activity in 30 days", None, "2026-11-05", True),
        ("updated since yesterday", "2026-12-04", None, True),
        ("filed in March", "2026-03-01", "2026-04-01", False),
        ("after 2026-11-30", "2026-12-01", None, False),
        ("before 2026-01", None, "2026-01-01", False),
        ("in 2025", "2025-01-01", "2026-01-01", False),
        ("since feb 1", "2026-02-01", None, False),
        ("after Dec 4th", "2026-12-05", None, False),
        ("since dec 6", "2025-12-06", None, False),
        ("on 1 march 2024", "2024-03-01", "2024-03-02", False),
        ("before the 3rd of june", None, "2026-06-03", False),
        ("between jan 15 and feb 1 2025", "2025-01-15", "2025-02-02", False),
    ],
)
def test_a_time_in_words_is_a_span_of_days_counted_from_today(
    words: str, since: str | None, before: str | None, activity: bool
) -> None:
    span = span_in(words, SATURDAY)
    assert span is not None
    assert (span.since and span.since.isoformat(), span.before and span.before.isoformat()) == (since, before)
    assert span.activity is activity


@pytest.mark.parametrize(
    "words", ["that may break", "issue 2026 please", "it took 3 weeks", "the monday deploy", "since feb 30"]
)
def test_words_that_only_look_like_a_time_are_not_one(words: str) -> None:
    assert span_in(words, SATURDAY) is None


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("Are there any open S1s?", {"state": "open", "label": "severity:S1"}),
        ("open S1s since last Monday", {"state": "open", "label": "severity:S1", "created_since": "2026-11-30"}),
        ("stuff opened before 2025 that's still open", {"state": "open", "created_before": "2025-01-01"}),
        ("bugs by svetlana-k", {"label": "type:bug", "author": "svetlana-k"}),
        ("issues opened this month", {"created_since": "2026-12-01"}),
        ("what did jlaurent file since March?", {"author": "jlaurent", "created_since": "2026-03-01"}),
        ("open issues with no activity in 30 days", {"state": "open", "updated_before": "2026-11-05"}),
        ("anything open on the redis broker rn?", {"state": "open", "label": "comp:broker-redis"}),
        ("Anything still open with the comp:docs label?", {"state": "open", "label": "comp:docs"}),
        ("how many open bugs?", {"state": "open", "label": "type:bug", "count_only": True}),
        ("How many issues has fpereira filed in total?", {"author": "fpereira", "count_only": True}),
        ("bugs that haven't been closed", {"state": "open", "label": "type:bug"}),  # a state said by its negation
        ("bugs that are no longer open", {"state": "closed", "label": "type:bug"}),
        ("issues that never got a label", {"state": "open", "unlabelled": True}),
    ],
)
def test_filters_a_maintainer_names_are_the_search_s_arguments(question: str, expected: dict[str, Any]) -> None:
    assert searches(question) == [{"query": "", **expected}]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("whats new since feb 1", {"created_since": "2026-02-01"}),
        ("issues opened after jan 15 2025", {"created_since": "2025-01-16"}),
        (
            "bugs filed on 3 june 2024",
            {"label": "type:bug", "created_since": "2024-06-03", "created_before": "2024-06-04"},
        ),
    ],
)
def test_the_number_of_a_day_beside_its_month_is_no_issue(question: str, expected: dict[str, Any]) -> None:
    plan = read_question(question)
    assert [call.name for call in plan.first_calls()] == ["search_issues"]
    assert searches(question) == [{"query": "", **expected}]


def test_may_before_a_number_is_a_verb_unless_a_time_word_leads() -> None:
    assert [call.arguments for call in read_question("may 3 be closed?").first_calls()] == [{"issue_id": 3}]


def test_who_reported_an_issue_reads_the_issue_instead_of_refusing() -> None:
    plan = read_question("who reported #87 and when?")
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [("get_issue", {"issue_id": 87})]
    assert plan.notes == []


@pytest.mark.parametrize(
    ("question", "wanted"),
    [
        ("read #41 and find other issues that mention ORB-1101", {"query": "ORB-1101"}),
        ("worker issues that are closed", {"state": "closed", "label": "comp:worker"}),
    ],
)
def test_a_that_describing_the_issues_sought_is_a_search_act_not_a_reference(
    question: str, wanted: dict[str, Any]
) -> None:
    """`issues that mention …`: the `that` says what the issues are, so the search is the request's act (a search
    has one home, the acts); `find issues like that` would mean an issue talked of before."""
    found = searches(question)
    assert len(found) == 1 and all(str(value) in str(found[0].get(key)) for key, value in wanted.items()), found


def test_a_search_has_one_home_the_acts() -> None:
    """The lookup reader plans no search, so a request for issues is read by one rule set only."""
    from atlas.offline.lookups.reader import read_lookups

    question = "issues in the cli component that are open"
    assert read_lookups(question).search is None
    assert searches(question) == [{"query": "", "state": "open", "label": "comp:cli"}]


@pytest.mark.parametrize(
    "question",
    [
        "anyone complaining about lease timeouts lately?",
        "has somebody reported anything about lease timeouts",
        "did anything get reported about lease timeouts",
        "has anything been filed about lease timeouts?",
    ],
)
def test_someone_reporting_something_is_a_search_for_it(question: str) -> None:
    found = searches(question)
    assert len(found) == 1 and "lease timeouts" in found[0]["query"] and "lately" not in found[0]["query"], found


@pytest.mark.parametrize(
    ("question", "query"),
    [
        ("anything like 'KeyError: split' reported?", "keyerror split"),
        (
            "has anyone seen something like 'LeaseExpired: lease renew failed' before?",
            "leaseexpired lease renew failed",
        ),
    ],
)
def test_the_words_of_an_error_likened_to_are_the_search_without_the_likening(question: str, query: str) -> None:
    assert searches(question)[0]["query"] == query


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("any open security-related issues?", {"query": "security", "state": "open"}),
        (
            "open redis-related bugs",
            {"query": "", "state": "open", "label": "comp:broker-redis", "labels": ["type:bug"]},
        ),
        ("Any open security issues I should know about before the audit?", {"query": "security", "state": "open"}),
        ("any core issues for a newcomer?", {"query": "", "label": "comp:core"}),
        (
            "open worker bugs for first-time contributors",
            {"query": "", "state": "open", "label": "comp:worker", "labels": ["type:bug"]},
        ),
        ("bugs that we need to fix in the scheduler", {"query": "", "label": "comp:scheduler", "labels": ["type:bug"]}),
        (
            "open bugs I should look at since March",
            {"query": "", "state": "open", "label": "type:bug", "created_since": "2026-03-01"},
        ),
    ],
)
def test_who_should_look_at_the_issues_and_a_related_suffix_are_no_topic(
    question: str, expected: dict[str, Any]
) -> None:
    assert searches(question) == [expected]


@pytest.mark.parametrize(
    ("question", "query", "state"),
    [
        ("issues about misfires that were never resolved", "misfires", "open"),
        ("open issues about leases that are not yet fixed", "leases", "open"),
    ],
)
def test_a_negated_state_after_the_topic_is_the_state_not_words(question: str, query: str, state: str) -> None:
    assert [(call["query"], call.get("state")) for call in searches(question)] == [(query, state)]


@pytest.mark.parametrize(
    ("question", "query", "said"),
    [
        ("open issues that don't mention postgres", "", "that don't mention postgres"),
        ("crash reports not about redis", "crash", "not about redis"),
    ],
)
def test_words_the_issues_must_not_hold_are_said_as_unread_not_searched(question: str, query: str, said: str) -> None:
    plan = read_question(question)
    assert [call["query"] for call in searches(question)] == [query]
    assert any(f"“{said}”" in note and "cannot leave out" in note for note in plan.notes)
