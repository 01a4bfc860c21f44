"""What a maintainer says beside a search's topic: the state as an afterthought (`…, open only`), who did not label
the issues, labels joined by `or` before the noun, a count of the issues just found, a quoted text to find the likes
of, a week of a named month, a backlog to plan counted after its adjective, a tracker verb beside a label change, a
how-to question on a project without docs, a title asked for, typos that are real words, a few issues chosen by
an order to compare, idle issues with no time, a count and which of its issues are open, `and how many in 2024`,
open and closed counted of one kind, and a version after `working on`."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from atlas.offline.compose import read_question
from atlas.offline.plan import PlannedCall
from atlas.offline.reading.dates import span_in
from atlas.offline.reading.vocabulary import Vocabulary
from atlas.offline.reading.words import corrected
from atlas.offline.readings import ToolReading

FLAT = Vocabulary(labels=["bug", "enhancement", "dataset request", "speech", "vision", "streaming", "question"])
TOOLS = ("search_issues", "count_issues_by", "get_issue", "list_inbox", "plan_triage", "suggest_labels", "add_label")


def plan_of(question: str) -> tuple[list[tuple[str, dict[str, Any]]], list[str]]:
    plan = read_question(question, FLAT, TOOLS)
    return [(call.name, call.arguments) for call in plan.first_calls()], plan.notes


def calls(question: str) -> list[tuple[str, dict[str, Any]]]:
    return plan_of(question)[0]


@pytest.mark.parametrize(
    "question",
    [
        "issues about IterableDataset and shuffle, open only",
        "issues about IterableDataset and shuffle (open only)",
        "issues about IterableDataset and shuffle, only the open ones",
    ],
)
def test_a_state_said_last_filters_the_one_search(question: str) -> None:
    assert calls(question) == [("search_issues", {"query": "IterableDataset shuffle", "state": "open"})]


def test_a_count_said_last_with_only_counts_in_that_state() -> None:
    expected = {"query": "parquet", "state": "closed", "count_only": True}
    assert calls("how many issues about parquet, closed ones only") == [("search_issues", expected)]


@pytest.mark.parametrize("who", ["nobody", "no one", "no-one"])
def test_that_before_who_did_something_opens_what_is_said_of_the_issues(who: str) -> None:
    [(name, arguments)] = calls(f"any open issues mentioning parquet that {who} labeled?")
    assert (name, arguments) == ("search_issues", {"query": "parquet", "state": "open", "unlabelled": True})


def test_labels_joined_by_or_before_the_noun_are_either_label() -> None:
    expected = {"query": "", "state": "open", "any_labels": ["speech", "vision"]}
    assert calls("open speech or vision issues") == [("search_issues", expected)]
    [(_, both)] = calls("open speech and vision issues")
    assert "any_labels" not in both and {both["label"], *both["labels"]} == {"speech", "vision"}
    assert calls("issues about memory or speed") == [("search_issues", {"query": "memory speed", "any_words": True})]


@pytest.mark.parametrize(
    ("question", "state"),
    [
        ("any issues mentioning 'NonMatchingSplitsSizesError'? how many are still open", "open"),
        ("issues mentioning NonMatchingSplitsSizesError. how many of them were closed?", "closed"),
    ],
)
def test_a_count_by_a_verb_alone_counts_the_issues_just_found(question: str, state: str) -> None:
    counted = calls(question)[-1]
    assert counted == ("search_issues", {"query": "NonMatchingSplitsSizesError", "state": state, "count_only": True})


def test_the_same_issues_listed_in_an_order_are_searched_once() -> None:
    [(name, arguments)] = calls("did anyone report problems with json loading in 2024? list them oldest first")
    assert name == "search_issues" and arguments["order"] == "oldest" and arguments["query"] == "json loading"
    counted = calls("how many open bugs, and what's the oldest one?")
    assert len(counted) == 2 and counted[0][1]["count_only"] is True  # a count and a list are two answers


@pytest.mark.parametrize(
    ("question", "query"),
    [
        ("similar to 'KeyError in arrow_dataset'", "KeyError in arrow_dataset"),
        ('anything similar to "map is slow"', "map is slow"),
        ("dupes of 'load_dataset hangs on file lock'", "load_dataset hangs on file lock"),
    ],
)
def test_the_likes_of_a_quoted_text_are_searched_by_its_words(question: str, query: str) -> None:
    assert calls(question) == [("search_issues", {"query": query})]


@pytest.mark.parametrize(
    ("said", "since", "before"),
    [
        ("issues created last week of january 2025", date(2025, 1, 25), date(2025, 2, 1)),
        ("bugs from the first week of feb 2024", date(2024, 2, 1), date(2024, 2, 8)),
        ("opened in the third week of march 2023", date(2023, 3, 15), date(2023, 3, 22)),
        ("the last week of february 2024", date(2024, 2, 23), date(2024, 3, 1)),  # a leap year's last seven days
    ],
)
def test_a_week_of_a_named_month_is_seven_of_its_days(said: str, since: date, before: date) -> None:
    span = span_in(said, date(2026, 12, 7))
    assert span is not None and (span.since, span.before) == (since, before)


@pytest.mark.parametrize(
    ("said", "since", "before"),
    [
        ("bugs reported in the last 90 days of 2024", date(2024, 10, 3), date(2025, 1, 1)),
        ("opened in the first 3 months of 2023", date(2023, 1, 1), date(2023, 4, 1)),
        ("the last 2 months of 2024", date(2024, 11, 1), date(2025, 1, 1)),
        ("the first 2 weeks of march 2024", date(2024, 3, 1), date(2024, 3, 15)),
        ("the first month of 2025", date(2025, 1, 1), date(2025, 2, 1)),
        ("the last 400 days of 2024", date(2024, 1, 1), date(2025, 1, 1)),  # never past the year said
    ],
)
def test_a_count_from_one_end_of_a_year_or_month_is_those_days_of_it(said: str, since: date, before: date) -> None:
    span = span_in(said, date(2026, 12, 7))
    assert span is not None and (span.since, span.before) == (since, before)


def test_a_week_of_a_month_without_its_year_is_the_latest_such_month() -> None:
    span = span_in("the first week of december", date(2026, 11, 20))
    assert span is not None and span.since == date(2025, 12, 1)


@pytest.mark.parametrize(
    ("question", "limit"),
    [
        ("triage the latest 10 open issues", 10),
        ("triage the 5 newest open issues", 5),
        ("suggest labels for the 5 newest unlabeled issues", 5),
        ("propose labels for the 3 latest open issues", 3),
    ],
)
def test_a_backlog_counted_among_its_adjectives_is_planned(question: str, limit: int) -> None:
    assert calls(question) == [("plan_triage", {"untriaged": True, "limit": limit})]


def test_the_newest_untriaged_issues_stay_the_inbox_and_one_issue_stays_one() -> None:
    assert calls("triage the newest untriaged issues") == [("list_inbox", {"only": "untriaged", "order": "newest"})]
    assert calls("suggest labels for the newest open issue")[0][0] == "search_issues"


def test_a_tracker_verb_beside_a_label_change_is_said_not_dropped() -> None:
    made, notes = plan_of("tag #5887 as question and close it")
    assert made == [("add_label", {"issue_id": 5887, "label": "question"})]
    assert any(note.startswith("I cannot close issues") for note in notes)
    assert plan_of("remove bug from #41 and add enhancement")[1] == []


def test_a_how_to_question_without_docs_searches_the_issues_and_says_so() -> None:
    made, notes = plan_of("how do I push a dataset to the hub with a private flag")
    assert made == [("search_issues", {"query": "push dataset hub private flag"})]
    assert notes and "no docs" in notes[0]


def test_words_asked_in_titles_are_searched_everywhere_and_that_is_said() -> None:
    made, notes = plan_of("how many issues mention 'cache' in the title")
    assert made == [("search_issues", {"query": "cache", "count_only": True})]
    assert any("not in titles alone" in note for note in notes)
    assert calls("issues whose title contains parquet")[0][1]["query"] == "parquet"


@pytest.mark.parametrize(
    ("typed", "read"),
    [
        ("open issuse about windows", "open issues about windows"),  # a tie goes to the word of the same length
        ("issues I care about", "issues I care about"),  # `a` for `o` is no slip of a finger: a word of its own
        ("open bugz", "open bugs"),  # `z` is beside `s`
        ("opem bugs", "open bugs"),
        ("json loading", "json loading"),  # not `logging`: two far keys
        ("expalin it", "explain it"),
    ],
)
def test_a_typo_is_a_near_key_or_swapped_letters(typed: str, read: str) -> None:
    assert corrected(typed, frozenset()) == read


def test_what_changed_since_a_day_is_the_issues_active_since() -> None:
    assert calls("what changed since 2025-02-01") == [("search_issues", {"query": "", "updated_since": "2025-02-01"})]
    assert calls("what happened since 2025-02-01") == [("search_issues", {"query": "", "created_since": "2025-02-01"})]


@pytest.mark.parametrize(
    ("question", "count", "arguments"),
    [
        ("compare the two oldest open bugs", 2, {"query": "", "state": "open", "label": "bug", "order": "oldest"}),
        ("compare the 3 newest issues about parquet", 3, {"query": "parquet", "order": "newest"}),
    ],
)
def test_issues_chosen_by_an_order_are_found_then_compared(
    question: str, count: int, arguments: dict[str, Any]
) -> None:
    plan = read_question(question, FLAT, TOOLS)
    assert [(call.name, call.arguments) for call in plan.first_calls()] == [
        ("search_issues", {**arguments, "limit": count})
    ]
    [step] = plan.later
    hits = {"hits": [{"id": n} for n in (887, 1992, 2267)][:count]}
    found = ToolReading(PlannedCall("search_issues", {}), "c1", {"ok": True, "data": hits})
    assert [call.arguments["issue_id"] for call in step.calls([found])] == [887, 1992, 2267][:count]
    assert step.compared == count


def test_a_typo_of_a_label_before_the_issues_is_that_label_and_said() -> None:
    made, notes = plan_of("hw many closed enhancment issues")
    assert made == [("search_issues", {"query": "", "state": "closed", "label": "enhancement", "count_only": True})]
    assert notes == ["This project has no label “enhancment”: I took `enhancement`, the nearest of its labels."]
    assert calls("open parquet issues") == [("search_issues", {"query": "parquet", "state": "open"})]


@pytest.mark.parametrize(
    "question",
    [
        "open enhancements with no activity",
        "open enhancements that nobody has touched",
        "untouched open enhancements",
        "open enhancements that have never been updated",
    ],
)
def test_idle_issues_with_no_time_said_are_the_longest_inactive_first(question: str) -> None:
    found, notes = plan_of(question)
    expected = {"query": "", "state": "open", "label": "enhancement", "order": "least_recently_updated"}
    assert found == [("search_issues", expected)]
    assert any("longest inactive first" in note for note in notes)


def test_idle_said_beside_another_order_keeps_that_order_and_says_so() -> None:
    found, notes = plan_of("list the oldest open enhancements nobody has touched")
    assert found == [("search_issues", {"query": "", "state": "open", "label": "enhancement", "order": "oldest"})]
    assert any("never touched" in note for note in notes)


def test_a_count_of_idle_issues_with_no_time_counts_all_and_says_why() -> None:
    found, notes = plan_of("how many open bugs with no activity")
    assert found == [("search_issues", {"query": "", "state": "open", "label": "bug", "count_only": True})]
    assert any("cannot tell which are idle" in note for note in notes)


def test_idle_with_a_time_is_the_activity_filter_and_no_order() -> None:
    [(_, arguments)] = calls("open bugs with no activity in 6 months")
    assert "updated_before" in arguments and "order" not in arguments and arguments["query"] == ""


def test_a_count_and_which_are_in_a_state_are_the_count_and_those_issues() -> None:
    assert calls("how many bugs are there and which are still open") == [
        ("search_issues", {"query": "", "label": "bug", "count_only": True}),
        ("search_issues", {"query": "", "state": "open", "label": "bug"}),
    ]


@pytest.fixture
def in_2026(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr("atlas.offline.reading.dates.today", lambda: date(2026, 12, 7))


@pytest.mark.usefixtures("in_2026")
def test_and_how_many_with_only_a_time_counts_the_same_issues_then() -> None:
    found = calls("how many bugs in 2023 and how many in 2024")
    assert found == [
        (
            "search_issues",
            {
                "query": "",
                "label": "bug",
                "created_since": "2023-01-01",
                "created_before": "2024-01-01",
                "count_only": True,
            },
        ),
        (
            "search_issues",
            {
                "query": "",
                "label": "bug",
                "created_since": "2024-01-01",
                "created_before": "2025-01-01",
                "count_only": True,
            },
        ),
    ]
    _, own = calls("how many bugs in 2023, and how many issues in 2024?")
    assert own == (
        "search_issues",
        {"query": "", "created_since": "2024-01-01", "created_before": "2025-01-01", "count_only": True},
    )


@pytest.mark.parametrize(
    "question", ["how many bugs are open and how many are closed?", "how many bugs are still open, and how many closed"]
)
def test_open_and_closed_counted_of_a_kind_is_a_count_by_state_of_it(question: str) -> None:
    assert calls(question) == [("count_issues_by", {"label": "bug", "by": "state"})]


def test_a_version_after_working_on_is_no_issue() -> None:
    assert calls("is anyone working on the pyarrow 19 incompatibility?") == [
        ("search_issues", {"query": "pyarrow 19 incompatibility"})
    ]
    assert calls("is anyone looking into 7405?")[0] == ("get_issue", {"issue_id": 7405})


def test_a_state_asked_of_similar_issues_is_said_to_be_shown_not_kept() -> None:
    plan = read_question("similar issues to 7419 that are still open", FLAT, (*TOOLS, "find_similar"))
    assert ("find_similar", {"issue_id": 7419}) in [(call.name, call.arguments) for call in plan.first_calls()]
    assert any("cannot keep only the still open ones" in note for note in plan.notes)
    assert not read_question("similar issues to 7419", FLAT, (*TOOLS, "find_similar")).notes
