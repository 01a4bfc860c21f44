"""A count asked after a search, of the issues it found: `…, and who reported the most of them?`, `how many in
total, open and closed?`; and two labels set against each other by `more … A or B`."""

from __future__ import annotations

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
