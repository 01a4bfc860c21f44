"""What a search request's topic is: words joined by `or`, a label said as the issues' noun, the words that
joined a label taken out, and issues with no label as the backlog still to label."""

from __future__ import annotations

from typing import Any

import pytest

from atlas.offline.compose import read_question
from atlas.offline.reading.search_labels import label_named_first
from atlas.offline.reading.vocabulary import Vocabulary

FLAT = Vocabulary(labels=["bug", "enhancement", "dataset request", "streaming", "good first issue", "help wanted"])


def first_calls(question: str) -> list[tuple[str, dict[str, Any]]]:
    return [(call.name, call.arguments) for call in read_question(question, FLAT).first_calls()]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("open bugs about memory or leak", {"query": "memory leak", "state": "open", "label": "bug"}),
        ("feature requests about pickling or hashing", {"query": "pickling hashing"}),
        ("open enhancements about pickling or hashing", {"query": "pickling hashing", "label": "enhancement"}),
    ],
)
def test_a_topic_of_words_joined_by_or_matches_any_of_them(question: str, expected: dict[str, Any]) -> None:
    [(name, arguments)] = first_calls(question)
    assert name == "search_issues" and expected.items() <= arguments.items() and arguments["any_words"] is True


def test_a_topic_without_or_needs_every_word() -> None:
    [(_, arguments)] = first_calls("open bugs about memory leaks")
    assert arguments["query"] == "memory leaks" and "any_words" not in arguments
    [(_, joined)] = first_calls("list open issues mentioning load_dataset and timeout")
    assert joined["query"] == "load_dataset timeout" and "any_words" not in joined  # `and` is no word to find


@pytest.mark.parametrize(
    ("question", "named"),
    [
        ("enhancements about arrow", True),
        ("open dataset requests mentioning audio", True),
        ("any streaming issues?", False),  # no topic after it: the label is a filter said in words
        ("why do enhancements about arrow take so long", False),
    ],
)
def test_a_label_said_first_as_the_issues_noun_asks_for_a_search(question: str, named: bool) -> None:
    assert label_named_first(question, FLAT.labels) is named


def test_the_words_that_joined_a_label_are_no_topic() -> None:
    [(_, arguments)] = first_calls("which issues mention cache and are labelled bug?")
    assert arguments["query"] == "cache" and arguments["label"] == "bug"


@pytest.mark.parametrize("question", ["anything unlabelled?", "the oldest unlabelled issues", "issues with no labels"])
def test_issues_with_no_label_are_the_open_ones_still_to_label(question: str) -> None:
    [(name, arguments)] = first_calls(question)
    assert name == "search_issues" and arguments["unlabelled"] is True and arguments["state"] == "open"


def test_a_count_of_issues_with_no_label_counts_every_state() -> None:
    [(_, arguments)] = first_calls("how many issues have no labels?")
    assert arguments["unlabelled"] is True and "state" not in arguments and arguments["count_only"] is True
    [(_, closed)] = first_calls("closed issues with no labels")
    assert closed["state"] == "closed"
