"""The offline planner for issue 12: the whole issue when asked to see it, several labels in one sentence."""

from __future__ import annotations

import pytest

from atlas.offline.compose import read_question


@pytest.mark.parametrize(
    ("question", "whole"),
    [
        ("show me #87", True),
        ("read issue 87 in full, with its comments", True),
        ("what do the comments on #87 say?", True),
        ("what is #87 about?", False),
        ("compare #41 and #87", False),
        ("explain the error in #41", False),
    ],
)
def test_asking_to_see_an_issue_asks_for_all_of_it(question: str, whole: bool) -> None:
    assert read_question(question).whole is whole


@pytest.mark.parametrize(
    ("question", "labels"),
    [
        ("label #41 severity:S2 and #45 severity:S3", [(41, "severity:S2"), (45, "severity:S3")]),
        (
            "label 41 sev:S2, 45 severity:S3 and #50 comp:api",
            [(41, "severity:S2"), (45, "severity:S3"), (50, "comp:api")],
        ),
        ("label #41 comp:core and type:bug", [(41, "comp:core"), (41, "type:bug")]),
        ("label #41 and #87 as comp:core", [(41, "comp:core"), (87, "comp:core")]),
    ],
)
def test_several_labels_in_one_sentence_are_all_planned(question: str, labels: list[tuple[int, str]]) -> None:
    planned = [(c.arguments["issue_id"], c.arguments["label"]) for c in read_question(question).actions()]
    assert planned == labels


@pytest.mark.parametrize(
    ("question", "compare"),
    [
        ("is 109 a duplicate of 41?", True),
        ("are #41 and #109 the same issue?", True),
        ("is #109 the same as #41", True),
        ("are 41 and 109 related?", True),
        ("show 41 and 109", False),
        ("is 109 a duplicate?", False),
    ],
)
def test_whether_two_issues_are_one_sets_them_side_by_side(question: str, compare: bool) -> None:
    plan = read_question(question)
    assert plan.compare is compare
    assert {call.arguments["issue_id"] for call in plan.first_calls() if call.name == "get_issue"} >= {109}


@pytest.mark.parametrize(
    "question", ["29/79 same?", "#29/#79 same root cause?", "is 29/79 a dupe?", "compare 41/87", "are #41/#87 related?"]
)
def test_two_issues_written_with_a_slash_and_compared_are_set_side_by_side(question: str) -> None:
    plan = read_question(question)
    assert len(plan.issue_ids) == 2 and plan.compare


@pytest.mark.parametrize("question", ["jobs from 12/03 are the same", "3/4 of the bugs are the same"])
def test_a_day_or_a_share_written_with_a_slash_is_no_pair_of_issues(question: str) -> None:
    assert read_question(question).issue_ids == []


def test_a_question_no_call_answers_is_said_and_one_the_reads_answer_is_not() -> None:
    from atlas.offline.lookups.unplanned import unanswered

    words = frozenset({"root", "cause", "same", "similar", "reported", "came", "first", "thing"})
    [said] = unanswered("compare 41 and 87, same root cause?", words)
    assert "“same root cause?”" in said
    assert not unanswered("show 7400 and whether there's anything similar already reported?", words)
    assert not unanswered("who opened 4709, and is it still open?", words | {"still"})
    [said] = unanswered("Between #5793 and #5083, which one came first and is the root cause the same?", words)
    assert "“is the root cause the same?”" in said and "came first" not in said
