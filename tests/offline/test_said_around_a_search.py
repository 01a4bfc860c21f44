"""What is said around a search or a count and is no topic: a status asked for an update, a release being cut, a
quoted label, typos of common words, the newcomer's issue to pick up, someone already asking for a feature; and the
words of an error quoted whole, with the names of code said after it."""

from __future__ import annotations

from typing import Any

import pytest

from atlas.offline.compose import read_question
from atlas.offline.reading.people import ProjectPeople
from atlas.offline.reading.vocabulary import Vocabulary

FLAT = Vocabulary(labels=["bug", "enhancement", "dataset bug", "good first issue"])
TOOLS = ("search_issues", "count_issues_by", "get_issue")


def first_calls(question: str) -> list[tuple[str, dict[str, Any]]]:
    return [(call.name, call.arguments) for call in read_question(question, FLAT, TOOLS).first_calls()]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "I need a one-paragraph status for my weekly update: how many issues are open vs closed?",
            [("count_issues_by", {"by": "state"})],
        ),
        ('who reports the most "dataset bug" issues?', [("count_issues_by", {"label": "dataset bug", "by": "author"})]),
        (
            "top 3 labels among open issues, and the total open count",
            [("count_issues_by", {"state": "open", "by": "label", "limit": 3})],
        ),
        (
            "cutting a release tomorrow - anything open that's about a regression?",
            [("search_issues", {"query": "regression", "state": "open"})],
        ),
        ("shwo me open isues abuot push_to_hub", [("search_issues", {"query": "push_to_hub", "state": "open"})]),
        (
            "hi! new contributor here :) what's a good issue for me to pick up?",
            [("search_issues", {"query": "", "state": "open", "label": "good first issue"})],
        ),
        ("is anyone already asking for Polars support?", [("search_issues", {"query": "Polars support"})]),
        (
            "any open issues mentioning pickle, arbitrary code execution or a CVE?",
            [
                (
                    "search_issues",
                    {"query": "pickle arbitrary-code-execution CVE", "state": "open", "any_words": True},
                )
            ],
        ),
    ],
)
def test_what_is_said_around_the_ask_is_no_topic(question: str, expected: list[Any]) -> None:
    assert first_calls(question) == expected


def test_an_error_quoted_whole_ends_at_its_quote_and_the_code_named_after_it_is_searched() -> None:
    [(name, arguments)] = first_calls(
        "getting `TypeError: 'NoneType' object is not callable` when I pass version_tag to load_dataset - known?"
    )
    assert name == "search_issues"
    assert arguments["query"] == "typeerror nonetype object not callable version_tag"


def test_problems_with_a_label_s_words_are_its_issues_and_a_count_of_those_follows() -> None:
    viewer = Vocabulary(labels=["bug", "dataset-viewer"])
    plan = read_question(
        "I'm new to the datasets repo, where do people report problems with the dataset viewer and how many of those "
        "are still open?",
        viewer,
        TOOLS,
    )
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [
        ("search_issues", {"query": "", "label": "dataset-viewer"}),
        ("search_issues", {"query": "", "state": "open", "label": "dataset-viewer", "count_only": True}),
    ]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "prepping the quarterly report: how many issues were opened in 2023?",
            [
                (
                    "search_issues",
                    {"query": "", "created_since": "2023-01-01", "created_before": "2024-01-01", "count_only": True},
                )
            ],
        ),
        (
            "back from two weeks of holidays, what new issues came in since Feb 13 2025?",
            [("search_issues", {"query": "", "created_since": "2025-02-13"})],
        ),
        (
            "I'd like to contribute, which good first issue tickets are still open?",
            [("search_issues", {"query": "", "state": "open", "label": "good first issue"})],
        ),
        (
            "are there any issues labelled both bug and enhancement?",
            [("search_issues", {"query": "", "label": "bug", "labels": ["enhancement"]})],
        ),
    ],
)
def test_an_activity_said_first_is_no_topic_and_labels_asked_for_are_a_search(
    question: str, expected: list[Any]
) -> None:
    assert first_calls(question) == expected


def test_a_count_then_list_the_ones_still_open_lists_those_of_the_count() -> None:
    people = Vocabulary(labels=FLAT.labels, people=ProjectPeople(logins=["lhoestq", "albertvillanova"]))
    plan = read_question("how many issues did lhoestq open, and list the ones still open", people, TOOLS)
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [
        ("search_issues", {"query": "", "author": "lhoestq", "count_only": True}),
        ("search_issues", {"query": "", "state": "open", "author": "lhoestq"}),
    ]
    needing = read_question(
        "Hi, I am needing the list of the issues that albertvillanova has opened, only the ones still open please",
        people,
        TOOLS,
    )
    assert [(c.name, c.arguments) for c in needing.first_calls()] == [
        ("search_issues", {"query": "", "state": "open", "author": "albertvillanova"})
    ]


def test_a_traceback_pasted_inline_is_read_as_pasted_and_its_exception_is_searched() -> None:
    plan = read_question(
        'user sent: Traceback (most recent call last): File "train.py", line 12, in <module> ds = load_dataset("squad")'
        " ... FileNotFoundError: Couldn't find a dataset script at /content/squad/squad.py. any existing issue?",
        FLAT,
        TOOLS,
    )
    [(name, arguments)] = [(call.name, call.arguments) for call in plan.first_calls()]
    assert name == "search_issues" and arguments["query"].startswith("filenotfounderror couldn dataset script")
    assert "order" not in arguments  # `most recent call last` is no order


def test_a_symptom_s_query_keeps_the_code_named_and_what_goes_wrong_before_other_words() -> None:
    [(name, arguments)] = first_calls(
        "Hello, when I use load_dataset with streaming=True and after I make .map(), the training become very slow. "
        "Exist already some issue for this problem?"
    )
    assert name == "search_issues" and arguments["query"] == "load_dataset streaming map training slow"


def test_what_someone_named_fixed_is_said_not_to_be_kept_and_what_we_fixed_is_the_closed_ones() -> None:
    people = Vocabulary(labels=FLAT.labels, people=ProjectPeople(logins=["lhoestq"]))
    named = read_question("which bugs did lhoestq fix", people, TOOLS)
    assert not named.first_calls() and any("does not record who closed" in note for note in named.notes)
    assert first_calls("how many enhancements did we fix?") == [
        ("search_issues", {"query": "", "state": "closed", "label": "enhancement", "count_only": True})
    ]


def test_http_statuses_are_no_issues_and_are_searched() -> None:
    [(name, arguments)] = first_calls(
        "push_to_hub keeps failing with 500 / 504 server errors on big uploads - any existing issues?"
    )
    assert name == "search_issues" and "500 504" in arguments["query"]


def test_each_label_said_with_its_own_issue_goes_on_that_issue() -> None:
    plan = read_question("add enhancement to #7381 and good first issue to #7423", FLAT, (*TOOLS, "add_label"))
    assert plan.labels == [(7381, "enhancement"), (7423, "good first issue")]
    both = read_question("add enhancement to #7381 and #7423", FLAT, (*TOOLS, "add_label"))
    assert both.labels == [(7381, "enhancement"), (7423, "enhancement")]


def test_is_it_closed_after_the_newest_issue_is_asked_of_that_issue_not_a_filter() -> None:
    people = Vocabulary(labels=FLAT.labels, people=ProjectPeople(logins=["albertvillanova"]))
    plan = read_question("what was the most recent issue albertvillanova opened, and is it closed?", people, TOOLS)
    [(name, arguments)] = [(call.name, call.arguments) for call in plan.first_calls()]
    assert name == "search_issues" and arguments["author"] == "albertvillanova" and "state" not in arguments
    assert [step.read_first_hit for step in plan.later] == [True]


def test_just_show_me_the_plan_after_a_triage_ask_is_no_topic() -> None:
    plan = read_question(
        "triage the open issues that have no labels yet, newest first, just show me the plan",
        FLAT,
        (*TOOLS, "plan_triage", "search_issues"),
    )
    assert all(not call.arguments.get("query") for call in plan.first_calls())


def test_enhancement_requests_are_issues_of_that_label() -> None:
    assert first_calls("open enhancement requests about IterableDataset") == [
        ("search_issues", {"query": "IterableDataset", "state": "open", "label": "enhancement"})
    ]
