"""`my issues`: the person asking is an author once they say who they are, and asked with no login said, the answer
says so instead of searching for the word `my`."""

from __future__ import annotations

from typing import Any

import pytest

from atlas.offline.compose import read_question
from atlas.offline.reading.self_named import UNKNOWN_SELF, mine_named

TOOLS = frozenset({"get_issue", "search_issues", "count_issues_by"})


def searches(question: str, previous: tuple[str, ...] = ()) -> list[dict[str, Any]]:
    plan = read_question(question, available=TOOLS, previous=previous)
    return [call.arguments for call in plan.first_calls() if call.name == "search_issues"]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("I'm svetlana-k, show my open issues", {"state": "open", "author": "svetlana-k"}),
        (
            "I'm svetlana-k. how many bugs have I filed?",
            {"label": "type:bug", "author": "svetlana-k", "count_only": True},
        ),
        ("this is jlaurent here: issues I opened", {"author": "jlaurent"}),
    ],
)
def test_who_is_asking_said_in_the_message_makes_my_their_issues(question: str, expected: dict[str, Any]) -> None:
    assert searches(question) == [{"query": "", **expected}]


def test_who_is_asking_said_earlier_in_the_chat_holds() -> None:
    assert searches("and my open bugs?", previous=("hi, I'm jlaurent", "show #41")) == [
        {"query": "", "state": "open", "label": "type:bug", "author": "jlaurent"}
    ]


@pytest.mark.parametrize("question", ["show my open issues", "issues I opened", "what did I file last month?"])
def test_my_issues_with_no_login_said_is_answered_by_saying_so(question: str) -> None:
    plan = read_question(question, available=TOOLS)
    assert plan.first_calls() == [] and UNKNOWN_SELF in plan.notes


def test_a_login_the_project_does_not_know_is_no_one() -> None:
    plan = read_question("I'm nobody-here, show my issues", available=TOOLS)
    assert plan.first_calls() == [] and UNKNOWN_SELF in plan.notes


def test_my_said_of_anything_but_issues_is_left_alone() -> None:
    assert mine_named("my question is about streaming", "jlaurent") == "my question is about streaming"
    assert mine_named("did I file it by me", "jlaurent") == "did jlaurent file it by jlaurent"


@pytest.mark.parametrize(
    ("question", "call"),
    [
        (
            "comment on 41 that it was reported by me too",
            ("post_comment", {"issue_id": 41, "body": "it was reported by me too"}),
        ),
        ("is 41 my issue?", ("get_issue", {"issue_id": 41})),
    ],
)
def test_my_said_in_a_write_or_of_a_named_issue_is_left_as_said(question: str, call: tuple[str, Any]) -> None:
    plan = read_question(question, available=TOOLS | {"post_comment"})
    assert call in [(c.name, c.arguments) for c in plan.first_calls()] and UNKNOWN_SELF not in plan.notes


@pytest.mark.parametrize("question", ["I'm confused", "it's broken"])
def test_a_word_that_is_no_author_after_i_am_is_no_introduction(question: str) -> None:
    assert UNKNOWN_SELF not in read_question(question, available=TOOLS).notes


def test_saying_who_you_are_alone_is_acknowledged() -> None:
    plan = read_question("hi, I'm jlaurent", available=TOOLS)
    assert plan.first_calls() == [] and any("you are jlaurent" in note for note in plan.notes)
