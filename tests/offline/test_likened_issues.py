"""An issue likened to another, typed with or without `#`: `similar issues to 41` reads like `similar to #41`."""

from __future__ import annotations

from typing import Any

import pytest

from atlas.offline.compose import read_question
from atlas.offline.reading.issue_refs import bare_issue_ids
from atlas.runtime.toolset import load_registry
from tests.offline.test_offline import run_to_answer

TOOLS = frozenset({"get_issue", "search_issues", "find_similar", "suggest_labels", "list_inbox", "plan_triage"})


def calls(question: str) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, c.arguments) for c in read_question(question, available=TOOLS).first_calls()]


@pytest.mark.parametrize(
    "question",
    [
        "similar issues to {n}",
        "similar issues to #{n}",
        "issues similar to {n}",
        "show me duplicates of {n}",
        "find similar bugs to {n}",
        "related tickets to {n}",
        "any similar reports to {n}?",
        "anything similar to {n}?",
    ],
)
@pytest.mark.parametrize("number", [41, 7400])
def test_a_bare_number_likened_to_is_the_issue_whose_neighbours_are_asked(question: str, number: int) -> None:
    assert calls(question.format(n=number)) == [
        ("get_issue", {"issue_id": number}),
        ("find_similar", {"issue_id": number}),
    ]


@pytest.mark.parametrize(
    ("text", "ids"),
    [
        ("similar bugs to 41 and 87", [41, 87]),
        ("similar issues to 3 days ago", []),
        ("issues opened similar to 5 days", []),
        ("top 5 issues related to caching", []),
    ],
)
def test_a_count_or_a_duration_after_the_likening_words_is_not_an_issue(text: str, ids: list[int]) -> None:
    assert bare_issue_ids(text) == ids


def test_similar_issues_to_a_bare_number_answers_with_its_neighbours_on_orbit() -> None:
    rounds, answer = run_to_answer("similar issues to 41", load_registry([]))
    assert ("find_similar", {"issue_id": 41}) in rounds[0]
    assert "#41" in answer and "Search:" not in answer
