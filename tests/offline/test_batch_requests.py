"""Batch and short action requests: several issues at once, the same action again, a comment said tersely."""

from __future__ import annotations

import pytest

from atlas.offline.compose import read_question


def actions(question: str) -> list[tuple[str, int, str]]:
    return [
        (c.name, c.arguments["issue_id"], c.arguments.get("label") or c.arguments.get("body", ""))
        for c in read_question(question).actions()
    ]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "tag 41, 48, 109 as worker too",
            [("add_label", 41, "comp:worker"), ("add_label", 48, "comp:worker"), ("add_label", 109, "comp:worker")],
        ),
        ("add comp:core to #41, #48", [("add_label", 41, "comp:core"), ("add_label", 48, "comp:core")]),
        ("label 41 comp:core and the same on 87", [("add_label", 41, "comp:core"), ("add_label", 87, "comp:core")]),
        (
            "post the same comment on 41 and 87: 'fixed in 2.8.4'",
            [("post_comment", 41, "fixed in 2.8.4"), ("post_comment", 87, "fixed in 2.8.4")],
        ),
        ("reply to 41 and 87: thanks both", [("post_comment", 41, "thanks both"), ("post_comment", 87, "thanks both")]),
        (
            "comment on 41: 'thanks for the report' and post the same on 87",
            [("post_comment", 41, "thanks for the report"), ("post_comment", 87, "thanks for the report")],
        ),
        (
            "reply 'fixed in 2.8.4' on #41. Same comment on #87 and #92 please",
            [
                ("post_comment", 41, "fixed in 2.8.4"),
                ("post_comment", 87, "fixed in 2.8.4"),
                ("post_comment", 92, "fixed in 2.8.4"),
            ],
        ),
        ("on 41 say: 'looking into it'", [("post_comment", 41, "looking into it")]),
        ("leave this on #41: 'thanks, reproduced'", [("post_comment", 41, "thanks, reproduced")]),
        ("on #93 write: LGTM", [("post_comment", 93, "LGTM")]),
    ],
)
def test_a_batch_or_a_short_request_plans_every_action_it_names(question: str, expected: list[object]) -> None:
    assert actions(question) == expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        (
            "comment on #41: see #87 and #92 for the same bug",
            [("post_comment", 41, "see #87 and #92 for the same bug")],
        ),
        ("read 41 and 87, then comment on 41: 'dup of #87'", [("post_comment", 41, "dup of #87")]),
        (
            "comment on 41 that 48 and 109 have the same root cause",
            [("post_comment", 41, "48 and 109 have the same root cause")],
        ),
        ("the same on 87", []),  # nothing before it to repeat
    ],
)
def test_issues_inside_the_text_or_with_nothing_to_repeat_get_nothing(question: str, expected: list[object]) -> None:
    assert actions(question) == expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("41 and 48 are both bugs, tag them", [("add_label", 41, "type:bug"), ("add_label", 48, "type:bug")]),
        ("#41, #48: these are bugs, label them", [("add_label", 41, "type:bug"), ("add_label", 48, "type:bug")]),
        (
            "41 and 48 are all worker issues, tag them",
            [("add_label", 41, "comp:worker"), ("add_label", 48, "comp:worker")],
        ),
        ("41 is a bug, label it", [("add_label", 41, "type:bug")]),
        # What the issues are said to be in a clause about something else labels nothing by itself.
        ("if #41 has no severity give it S1; duplicate runs are S1 per our triage doc", []),
        ("are 41 and 48 bugs?", []),
    ],
)
def test_issues_said_to_be_of_a_label_get_it_when_tagged(question: str, expected: list[object]) -> None:
    assert actions(question) == expected


@pytest.mark.parametrize(
    "question", ["41: add type:bug", "#41: add the type:bug label", "41: type:bug", "41 add type:bug"]
)
def test_an_issue_then_a_colon_then_the_verb_labels_it(question: str) -> None:
    assert actions(question) == [("add_label", 41, "type:bug")]


@pytest.mark.parametrize(
    ("question", "suggested"),
    [
        ("what labels does 41 have?", False),
        ("which labels are on #41", False),
        ("what labels does issue 41 carry", False),
        ("what labels should 41 have?", True),
        ("what labels does 41 need?", True),
        ("which labels fit 41", True),
    ],
)
def test_the_labels_an_issue_has_are_read_and_those_it_should_have_proposed(question: str, suggested: bool) -> None:
    calls = [call.name for call in read_question(question, available={"get_issue", "suggest_labels"}).first_calls()]
    assert "get_issue" in calls and ("suggest_labels" in calls) == suggested


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("tag 7423 enhancement and 7421 bug", [(7423, "enhancement"), (7421, "bug")]),
        ("tag 7423 as enhancement and 7421 as bug", [(7423, "enhancement"), (7421, "bug")]),
        ("label 7423 enhancement, 7421 bug", [(7423, "enhancement"), (7421, "bug")]),
        ("label 41 as good first issue and 48 as bug", [(41, "good first issue"), (48, "bug")]),
        ("label 41 bug, 87 is fine", [(41, "bug")]),
        ("tag 41, 48 as bug", [(41, "bug"), (48, "bug")]),
    ],
)
def test_each_issue_gets_the_label_said_beside_it(question: str, expected: list[tuple[int, str]]) -> None:
    from atlas.offline.reading.vocabulary import Vocabulary

    flat = Vocabulary(labels=["bug", "enhancement", "good first issue", "duplicate"])
    planned = [(c.arguments["issue_id"], c.arguments["label"]) for c in read_question(question, flat).actions()]
    assert sorted(planned) == sorted(expected)
