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


def test_w_slash_o_is_without_and_a_kind_beside_no_label_is_only_a_noun() -> None:
    [(name, arguments)] = first_calls("bugs w/o labels")
    assert name == "search_issues" and arguments["unlabelled"] is True and "label" not in arguments
    assert not arguments["query"]


def test_pull_requests_are_said_to_be_outside_the_data_not_searched_as_words() -> None:
    plan = read_question("any open pull requests about streaming?", FLAT)
    assert plan.first_calls() == [] and any("not its pull requests" in note for note in plan.notes)
    plan = read_question("is there a PR for #41?", FLAT)
    assert [call.arguments for call in plan.first_calls()] == [{"issue_id": 41}]


def test_labels_joined_by_and_before_the_word_labels_are_each_added() -> None:
    plan = read_question("give 41 the streaming and enhancement labels", FLAT, ("add_label", "get_issue"))
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [
        ("add_label", {"issue_id": 41, "label": "streaming"}),
        ("add_label", {"issue_id": 41, "label": "enhancement"}),
    ]


@pytest.mark.parametrize(
    ("question", "one"), [("the oldest open enhancement", True), ("the oldest open enhancements", False)]
)
def test_one_issue_of_a_label_asked_for_is_read_after_the_sorted_search(question: str, one: bool) -> None:
    plan = read_question(question, FLAT, ("search_issues", "get_issue"))
    [(name, arguments)] = [(c.name, c.arguments) for c in plan.first_calls()]
    assert name == "search_issues" and arguments["label"] == "enhancement" and arguments["order"] == "oldest"
    assert any(later.read_first_hit for later in plan.later) is one


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ('issues with "load_dataset" in them that are closed', {"query": "load_dataset", "state": "closed"}),
        ("open bugs with parquet in the title", {"query": "parquet", "state": "open", "label": "bug"}),
    ],
)
def test_words_in_them_are_where_the_words_are_not_issues_named_before(question: str, expected: dict[str, Any]) -> None:
    assert first_calls(question) == [("search_issues", expected)]


@pytest.mark.parametrize(
    ("question", "state"), [("did anyone open bugs about audio?", None), ("open bugs about audio", "open")]
)
def test_open_said_as_what_someone_did_is_no_state(question: str, state: str | None) -> None:
    [(_, arguments)] = first_calls(question)
    assert arguments.get("state") == state and arguments["query"] == "audio"
