"""A yes/no question asked inside a request (`tell me if …`, `check whether …`) is read as that question: the
issue is read (and its similar issues, for a duplicate), nothing is labelled, and a condition after it stays one."""

from __future__ import annotations

from typing import Any

import pytest

from atlas.offline.compose import read_question
from atlas.offline.reading.embedded import as_questions

TOOLS = frozenset({"get_issue", "search_issues", "find_similar", "add_label", "post_comment"})


def first_calls(question: str) -> list[tuple[str, dict[str, Any]]]:
    return [(call.name, call.arguments) for call in read_question(question, available=TOOLS).first_calls()]


@pytest.mark.parametrize(
    ("said", "asked"),
    [
        ("tell me whether 41 is a duplicate", "is 41 a duplicate?"),
        ("show 87 and tell me if it's a dupe", "show 87 and is it a dupe?"),
        ("can you check if #41 has been fixed?", "has #41 been fixed?"),
        ("check if 41 has a label", "does 41 have a label?"),
        ("let me know if there is an issue about lease renewals", "is there an issue about lease renewals?"),
        ("check if #41 is closed and if so comment 'thanks'", "is #41 closed? and if so comment 'thanks'"),
        ("tell me if 41 is still open. then show 87", "is 41 still open? then show 87"),
        ("label 41 bug if it is open", "label 41 bug if it is open"),
        ("what happens if the broker is down", "what happens if the broker is down"),
    ],
)
def test_a_question_inside_a_request_is_put_as_the_question(said: str, asked: str) -> None:
    assert as_questions(said) == asked


@pytest.mark.parametrize(
    "question", ["tell me whether 41 is a duplicate", "see whether 41 is a bug", "check if 41 is a dupe"]
)
def test_asking_whether_an_issue_is_something_labels_nothing(question: str) -> None:
    calls = first_calls(question)
    assert calls and all(name in {"get_issue", "find_similar"} for name, _ in calls), calls
    assert calls[0] == ("get_issue", {"issue_id": 41})


def test_asking_whether_it_is_a_duplicate_finds_the_similar_issues() -> None:
    assert first_calls("show 87 and tell me if it's a dupe") == [
        ("get_issue", {"issue_id": 87}),
        ("find_similar", {"issue_id": 87}),
    ]


def test_a_condition_after_the_question_waits_for_the_answer() -> None:
    plan = read_question("check if #41 is closed and if so comment 'thanks'", available=TOOLS)
    assert [call.name for call in plan.first_calls()] == ["get_issue"]
    assert not any("did not understand" in note for note in plan.notes), plan.notes


@pytest.mark.parametrize(
    "question",
    [
        "comment on #41: can you check if it still fails on 2.9?",
        "comment on 41 'please check whether it is fixed in 2.8.4'",
        "reply to 41: let me know if the workaround helps",
    ],
)
def test_a_question_inside_a_comment_s_words_is_posted_as_said(question: str) -> None:
    assert as_questions(question) == question
    [(name, arguments)] = first_calls(question)
    assert name == "post_comment" and arguments["body"] in question
