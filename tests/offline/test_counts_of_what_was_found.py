"""A count asked after a search, of the issues it found: `…, and who reported the most of them?`, `how many in
total, open and closed?`; and two labels set against each other by `more … A or B`."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from atlas.offline.compose import read_question
from atlas.offline.reading.people import ProjectPeople
from atlas.offline.reading.vocabulary import Vocabulary

FLAT = Vocabulary(labels=["bug", "enhancement", "vision", "speech", "good first issue"])
TOOLS = ("search_issues", "count_issues_by", "get_issue")


def first_calls(question: str, previous: tuple[str, ...] = ()) -> list[tuple[str, dict[str, Any]]]:
    plan = read_question(question, FLAT, TOOLS, previous=previous)
    return [(call.name, call.arguments) for call in plan.first_calls()]


def test_who_reported_the_most_of_them_counts_the_issues_found() -> None:
    assert first_calls("how many issues mention FileNotFoundError, and who reported the most of them?") == [
        ("search_issues", {"query": "FileNotFoundError", "count_only": True}),
        ("count_issues_by", {"query": "FileNotFoundError", "by": "author"}),
    ]


def test_among_those_in_a_chat_follows_the_search_before() -> None:
    assert first_calls("top reporters among those?", previous=("open bugs about streaming",)) == [
        ("count_issues_by", {"query": "streaming", "state": "open", "label": "bug", "by": "author"})
    ]


def test_a_ranking_of_its_own_counts_every_issue() -> None:
    calls = first_calls("open bugs about streaming. who opened the most issues?")
    assert calls[-1] == ("count_issues_by", {"by": "author"})


def test_in_total_open_and_closed_splits_the_issues_found_by_state() -> None:
    calls = first_calls("any open good first issue tickets? also how many are there in total, open and closed?")
    assert calls == [
        ("search_issues", {"query": "", "state": "open", "label": "good first issue"}),
        ("count_issues_by", {"label": "good first issue", "by": "state"}),
    ]


@pytest.mark.parametrize(
    "question",
    [
        "which label has more open issues: vision or speech?",
        "are there more open vision or speech issues?",
        "which has fewer open issues, vision or speech",
    ],
)
def test_more_of_one_label_or_another_counts_both(question: str) -> None:
    assert first_calls(question) == [
        ("count_issues_by", {"state": "open", "any_labels": ["vision", "speech"], "by": "label"})
    ]


def test_a_count_then_whether_any_are_still_open_is_the_split_by_state() -> None:
    people = Vocabulary(labels=FLAT.labels, people=ProjectPeople(logins=["stas00"]))
    plan = read_question("how many issues has stas00 opened, and are any still open?", people, TOOLS)
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [
        ("count_issues_by", {"author": "stas00", "by": "state"})
    ]
    assert first_calls("how many bugs about streaming are there and are any of them still open") == [
        ("count_issues_by", {"query": "streaming", "label": "bug", "by": "state"})
    ]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("open issues about streaming that have no label at all", {"query": "streaming", "unlabelled": True}),
        ("open bugs about our cache", {"query": "cache", "label": "bug"}),
    ],
)
def test_words_that_only_join_a_topic_are_not_searched(question: str, expected: dict[str, Any]) -> None:
    assert first_calls(question) == [("search_issues", {"query": "", "state": "open", **expected})]


def test_how_many_of_one_then_how_many_other_ones_are_two_counts_with_the_state_said_once() -> None:
    assert first_calls("how many vision issues are open, and how many speech ones?") == [
        ("search_issues", {"query": "", "state": "open", "label": "vision", "count_only": True}),
        ("search_issues", {"query": "", "state": "open", "label": "speech", "count_only": True}),
    ]
    assert first_calls("how many bugs are open, and how many closed?") == [
        ("count_issues_by", {"label": "bug", "by": "state"})
    ]


def test_that_year_is_the_year_searched_before() -> None:
    people = Vocabulary(labels=FLAT.labels, people=ProjectPeople(logins=["lhoestq", "albertvillanova"]))
    plan = read_question(
        "Show me issues by lhoestq from 2024, and how many did albertvillanova open that year?", people, TOOLS
    )
    year = {"created_since": "2024-01-01", "created_before": "2025-01-01"}
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [
        ("search_issues", {"query": "", "author": "lhoestq", **year}),
        ("search_issues", {"query": "", "author": "albertvillanova", **year, "count_only": True}),
    ]
    month = {"created_since": "2024-03-01", "created_before": "2024-04-01"}
    assert first_calls("bugs from march 2024. how many enhancements that same month?")[1] == (
        "search_issues",
        {"query": "", "label": "enhancement", **month, "count_only": True},
    )


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("how many enhancements did we close?", {"state": "closed", "label": "enhancement", "count_only": True}),
        ("bugs opened this yr?", {"label": "bug", "created_since": f"{date.today().year}-01-01"}),
        ("opne issues wiht label vision", {"state": "open", "label": "vision"}),
        (
            "any open good first issues I could point a new contributor at?",
            {"state": "open", "label": "good first issue"},
        ),
    ],
)
def test_a_state_a_time_or_a_reader_said_in_other_words_is_no_topic(question: str, expected: dict[str, Any]) -> None:
    assert first_calls(question) == [("search_issues", {"query": "", **expected})]


def test_issues_about_a_topic_after_a_news_ask_search_the_topic() -> None:
    calls = first_calls("whats going on with issues about CSV files - how many open?")
    assert calls == [("search_issues", {"query": "CSV files", "state": "open", "count_only": True})]


def test_a_quoted_symptom_then_do_we_already_have_an_issue_searches_it() -> None:
    plan = read_question(
        'someone says "push_to_hub payload too large" with a big ClassLabel — do we already have an issue for that?',
        FLAT,
        TOOLS,
    )
    [call] = plan.first_calls()
    assert call.name == "search_issues" and "push_to_hub payload too large" in call.arguments["query"]


def test_how_many_of_those_have_no_label_counts_the_unlabelled_among_the_count_before() -> None:
    assert first_calls("how many issues are open right now, and how many of those have no label at all?") == [
        ("search_issues", {"query": "", "state": "open", "count_only": True}),
        ("search_issues", {"query": "", "state": "open", "unlabelled": True, "count_only": True}),
    ]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "of the vision issues opened in 2024, how many are still open?",
            ("search_issues", {"query": "", "state": "open", "label": "vision", "count_only": True}),
        ),
        (
            "among the open bugs, which mention parquet?",
            ("search_issues", {"query": "parquet", "state": "open", "label": "bug"}),
        ),
    ],
)
def test_the_issues_said_first_are_those_the_question_after_them_asks_about(
    question: str, expected: tuple[str, dict[str, Any]]
) -> None:
    [(name, arguments)] = first_calls(question)
    assert (name, {key: arguments[key] for key in expected[1]}) == expected


def test_issues_still_sitting_there_are_open_and_the_oldest_few_are_three_of_them() -> None:
    year = {"created_since": "2021-01-01", "created_before": "2022-01-01"}
    assert first_calls("open issues from 2021 that are still sitting there - how many, and show me the oldest few") == [
        ("search_issues", {"query": "", "state": "open", **year, "count_only": True}),
        ("search_issues", {"query": "", "state": "open", **year, "limit": 3, "order": "oldest"}),
    ]


def test_the_verb_of_reporting_and_all_time_are_no_topic_of_a_ranking() -> None:
    assert first_calls("top 5 people reporting bugs, all time") == [
        ("count_issues_by", {"label": "bug", "by": "author", "limit": 5})
    ]


def test_does_someone_have_issues_they_filed_is_their_author_and_pronouns_are_no_topic() -> None:
    people = Vocabulary(labels=FLAT.labels, people=ProjectPeople(logins=["lhoestq"]))
    plan = read_question("does lhoestq have any open issues he filed himself? list them", people, TOOLS)
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [
        ("search_issues", {"query": "", "state": "open", "author": "lhoestq"})
    ]
    polite = read_question("please can you tell me the issues about audio decoding which are still not closed", FLAT)
    assert [(c.name, c.arguments) for c in polite.first_calls()] == [
        ("search_issues", {"query": "audio decoding", "state": "open"})
    ]


def test_a_ranking_asked_again_with_how_many_is_asked_once() -> None:
    assert first_calls("who opened the most issues? top 10 authors please") == [
        ("count_issues_by", {"by": "author", "limit": 10})
    ]
    assert first_calls("how many issues were opened per year, and how many of those are still open?") == [
        ("count_issues_by", {"by": "year"}),
        ("count_issues_by", {"state": "open", "by": "year"}),
    ]


def test_how_that_compares_to_another_year_counts_both_years() -> None:
    assert first_calls("How many issues were opened in 2024, and how does that compare to 2023?") == [
        (
            "search_issues",
            {"query": "", "created_since": "2024-01-01", "created_before": "2025-01-01", "count_only": True},
        ),
        (
            "search_issues",
            {"query": "", "created_since": "2023-01-01", "created_before": "2024-01-01", "count_only": True},
        ),
    ]


def test_which_five_are_the_oldest_lists_five_of_the_count_before_oldest_first() -> None:
    assert first_calls("sprint planning: how many enhancement issues are open, and which five are the oldest?") == [
        ("search_issues", {"query": "", "state": "open", "label": "enhancement", "count_only": True}),
        ("search_issues", {"query": "", "state": "open", "label": "enhancement", "limit": 5, "order": "oldest"}),
    ]


def test_who_opened_more_than_a_number_is_the_ranking_of_authors() -> None:
    assert first_calls("which people have opened more than 20 issues?") == [("count_issues_by", {"by": "author"})]
