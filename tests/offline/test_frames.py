"""The frame parser: requests, entities, acts and round two, on shapes people type."""

from __future__ import annotations

import time
from typing import Any

import pytest

from atlas.foundation.config import data_dir
from atlas.offline.compose import read_question
from atlas.offline.model import next_calls
from atlas.offline.plan import PlannedCall
from atlas.offline.reading.frames import split_message
from atlas.offline.reading.vocabulary import vocabulary_of
from atlas.offline.readings import ToolReading

TOOLS = {"get_issue", "search_issues", "get_doc_section", "list_docs", "add_label", "remove_label", "post_comment"}


def calls(question: str, tools: set[str] | None = None) -> list[tuple[str, dict[str, Any]]]:
    plan = read_question(question, vocabulary_of(data_dir()), available=tools or TOOLS)
    return [(call.name, call.arguments) for call in plan.first_calls()]


def test_a_message_splits_into_requests_and_keeps_quoted_text_whole() -> None:
    message = split_message("check #130; if it's still open, comment 'works; thanks. really' and then show #12")
    assert [request.text for request in message.requests] == [
        "check #130",
        'if it\'s still open, comment "Q0"',
        "show #12",
    ]
    assert message.requests[1].quoted == ["works; thanks. really"]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("12 +redis, 1 +postgres", [(12, "comp:broker-redis"), (1, "comp:broker-postgres")]),
        ("57 and 58 -> S2", [(57, "severity:S2"), (58, "severity:S2")]),
        ("41: S2, +comp:worker", [(41, "severity:S2"), (41, "comp:worker")]),
        ("add S2 to 41 and comp:core to 87", [(41, "severity:S2"), (87, "comp:core")]),
        ("75 add worker comp too", [(75, "comp:worker")]),
    ],
)
def test_triage_shorthand_adds_each_label_to_its_own_issues(question: str, expected: list[tuple[int, str]]) -> None:
    added = [(args["issue_id"], args["label"]) for name, args in calls(question) if name == "add_label"]
    assert sorted(added) == sorted(expected)


def test_removal_is_planned_and_a_family_is_read_first() -> None:
    assert ("remove_label", {"issue_id": 92, "label": "type:question"}) in calls(
        "92: drop type:question, add type:docs"
    )
    plan = read_question("strip the severity off 84 112", vocabulary_of(data_dir()))
    assert [call.arguments["issue_id"] for call in plan.first_calls()] == [84, 112]
    read = [
        ToolReading(PlannedCall("get_issue", {"issue_id": n}), f"c{n}", {"ok": True, "data": {"labels": labels}})
        for n, labels in ((84, ["severity:S4", "comp:core"]), (112, ["type:bug"]))
    ]
    assert [c.arguments for c in next_calls(plan, read, TOOLS)] == [{"issue_id": 84, "label": "severity:S4"}]


def test_a_condition_is_read_in_round_one_and_decided_in_round_two() -> None:
    plan = read_question("check #130; if it's still open, comment 'try PYTHON_GIL=0'", vocabulary_of(data_dir()))
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [("get_issue", {"issue_id": 130})]

    def read(state: str) -> list[ToolReading]:
        return [ToolReading(PlannedCall("get_issue", {"issue_id": 130}), "c1", {"ok": True, "data": {"state": state}})]

    assert next_calls(plan, read("closed"), TOOLS) == []
    assert [c.arguments for c in next_calls(plan, read("open"), TOOLS)] == [
        {"issue_id": 130, "body": "try PYTHON_GIL=0"}
    ]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("open scheduler bugs", {"query": "", "state": "open", "label": "comp:scheduler", "labels": ["type:bug"]}),
        ("how many open S1s", {"query": "", "state": "open", "label": "severity:S1", "count_only": True}),
    ],
)
def test_several_filters_are_kept(question: str, expected: dict[str, Any]) -> None:
    assert calls(question) == [("search_issues", expected)]


def test_numbers_that_are_not_issues_are_not_read() -> None:
    assert calls("1305 again") == [("get_doc_section", {"doc_id": "error-codes", "heading": "ORB-1305"})]
    assert all(name != "get_issue" for name, _ in calls("jobs take 90 minutes since 2026 on 2.8.3"))


def test_a_label_meaning_is_read_from_the_triage_doc() -> None:
    assert calls("what does severity S1 mean?") == [("get_doc_section", {"doc_id": "triage", "heading": "Severities"})]


def test_a_symptom_searches_issues_and_the_troubleshooting_doc() -> None:
    planned = calls("jobs take long to start on postgres")
    assert planned[0][0] == "search_issues" and "postgres" in planned[0][1]["query"]
    assert ("get_doc_section", {"doc_id": "troubleshooting", "heading": "Jobs are slow to start"}) in planned


def test_triage_tools_are_planned_only_when_the_registry_has_them() -> None:
    assert calls("what labels fit #130?") == [("get_issue", {"issue_id": 130})]
    with_triage = calls("what labels fit #130?", TOOLS | {"suggest_labels", "find_similar"})
    assert ("suggest_labels", {"issue_id": 130}) in with_triage
    assert ("find_similar", {"issue_id": 12}) in calls("anything similar to #12?", TOOLS | {"find_similar"})


def test_a_comment_asking_for_text_to_be_written_is_not_posted() -> None:
    assert all(name != "post_comment" for name, _ in calls("comment on 87 pointing at that section"))


def test_a_pasted_log_of_50_kb_plans_in_well_under_a_second() -> None:
    line = "2026-03-01T10:00:00Z worker-3 ERROR lease renew failed after 30s (ORB-1101 LeaseExpired) job=4711\n"
    question = "is there an issue for this already?\n" + line * (50_000 // len(line))
    vocabulary = vocabulary_of(data_dir())
    read_question("show #41", vocabulary)  # the grammar compiles on first use
    started = time.process_time()  # the planner's own work: a loaded machine's waits are not its cost
    plan = read_question(question, vocabulary)
    assert time.process_time() - started < 0.5
    names = [call.name for call in plan.first_calls()]
    assert "search_issues" in names and {"doc_id": "error-codes", "heading": "ORB-1101"} in [
        call.arguments for call in plan.first_calls()
    ]


def test_50_kb_of_pasted_prose_plans_in_well_under_a_second() -> None:
    """A pasted thread of sentences (not log lines) is evidence after the first requests, not 700 requests."""
    prose = "the worker keeps losing its lease when the broker is slow and jobs run twice. " * 700
    question = "show #41. is there an issue for this? " + prose[:50_000]
    vocabulary = vocabulary_of(data_dir())
    read_question("show #41", vocabulary)
    started = time.process_time()
    plan = read_question(question, vocabulary)
    assert time.process_time() - started < 0.5
    assert 41 in plan.issue_ids


def test_a_conditional_with_otherwise_after_a_comma_waits_for_the_check() -> None:
    """`for 90: if it's a feature request label it X, otherwise Y`: one label after reading #90, never both."""
    vocabulary = vocabulary_of(data_dir())
    for question in (
        "for 90: if it's a feature request label it comp:core, otherwise type:bug",
        "if 90 is a feature request add comp:core, otherwise type:bug",
    ):
        plan = read_question(question, vocabulary)
        assert [call.name for call in plan.first_calls()] == ["get_issue"]
        branches = [(step.test.negated, [a.arguments["label"] for a in step.actions]) for step in plan.later]
        assert branches == [(False, ["comp:core"]), (True, ["type:bug"])]
