"""The inbox, a triage plan and similar issues asked for in words, in `ask` and in a chat's follow-ups."""

from __future__ import annotations

from datetime import date
from typing import Any

import pytest

from atlas.offline.compose import read_question
from atlas.runtime.toolset import load_registry
from atlas.tools.registry import Registry
from tests.offline.test_offline import run_to_answer, search

TOOLS = frozenset({"get_issue", "search_issues", "find_similar", "suggest_labels", "list_inbox", "plan_triage"})


def calls(question: str) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, c.arguments) for c in read_question(question, available=TOOLS).first_calls()]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("what needs my attention this week?", [("list_inbox", {})]),
        ("what's in my inbox", [("list_inbox", {})]),
        ("list stale issues", [("list_inbox", {"only": "stale"})]),
        ("anything unanswered?", [("list_inbox", {"only": "unanswered"})]),
        ("list open issues with no comments", [("list_inbox", {"only": "unanswered"})]),
        ("open issues nobody has replied to", [("list_inbox", {"only": "unanswered"})]),
        ("which issues has no one commented on?", [("list_inbox", {"only": "unanswered"})]),
        ("which tickets are waiting on the reporter?", [("list_inbox", {"only": "waiting"})]),
        ("triage the new issues", [("plan_triage", {"untriaged": True, "limit": 10})]),
        ("triage the 5 newest issues", [("plan_triage", {"untriaged": True, "limit": 5})]),
        ("please triage the latest 3", [("plan_triage", {"untriaged": True, "limit": 3})]),
        ("triage the top 99 untriaged tickets", [("plan_triage", {"untriaged": True, "limit": 50})]),
        ("suggest labels for the untriaged issues", [("plan_triage", {"untriaged": True, "limit": 10})]),
        ("please triage 132 and 135", [("plan_triage", {"issue_ids": [132, 135]})]),
        ("whats waiting on the reporter", [("list_inbox", {"only": "waiting"})]),
        ("which open ones haven't been triaged yet?", [("list_inbox", {"only": "untriaged"})]),
        ("make me a triage plan for whatever is left", [("plan_triage", {"untriaged": True, "limit": 10})]),
        ("a triage plan for 132 and 135 please", [("plan_triage", {"issue_ids": [132, 135]})]),
        ("how should #87 be labelled?", [("get_issue", {"issue_id": 87}), ("suggest_labels", {"issue_id": 87})]),
        ("what would 41 be tagged as", [("get_issue", {"issue_id": 41}), ("suggest_labels", {"issue_id": 41})]),
        ("show #41 and the similar ones", [("get_issue", {"issue_id": 41}), ("find_similar", {"issue_id": 41})]),
        ("what should I triage first?", [("list_inbox", {"only": "untriaged"})]),
        ("what does the queue for bugs look like?", [("list_inbox", {"label": "type:bug"})]),
        ("what's the backlog of scheduler issues look like", [("list_inbox", {"label": "comp:scheduler"})]),
        ("which issues should we triage today?", [("list_inbox", {"only": "untriaged"})]),  # today: the work's day
        ("what's left to triage about the scheduler?", [("list_inbox", {"only": "untriaged", "about": "scheduler"})]),
    ],
)
def test_a_backlog_request_reaches_the_command_s_code(question: str, expected: list[Any]) -> None:
    assert calls(question) == expected


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("what needs triage from the last 2 weeks", {"only": "untriaged", "opened_since": "2026-11-21"}),
        (
            "which bugs should I triage from the last 2 weeks?",
            {"only": "untriaged", "opened_since": "2026-11-21", "label": "type:bug"},
        ),
        ("what should I triage this week?", {"only": "untriaged"}),  # the week of the work, not of the issues
    ],
)
def test_the_days_the_issues_to_triage_came_narrow_the_inbox(
    question: str, expected: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("atlas.offline.reading.dates.today", lambda: date(2026, 12, 5))
    assert calls(question) == [("list_inbox", expected)]


@pytest.mark.parametrize("question", ["any similar?", "and anything similar?", "similar?", "and the similar ones?"])
def test_similar_said_alone_in_a_chat_is_about_the_issue_read_before(question: str) -> None:
    plan = read_question(question, available=TOOLS, earlier=[41])
    assert ("find_similar", {"issue_id": 41}) in [(c.name, c.arguments) for c in plan.first_calls()]


@pytest.mark.parametrize(
    "question",
    [
        "triage doc, severities",
        "#66 is a terminal injection vector. Under our triage rules a security hole is S1, so make it S1.",
        "If #41 still has no severity, give it S1; duplicate runs are S1 per our triage doc.",
        "open issues with no activity in 30 days",
        "issues about stale leases",
    ],
)
def test_triage_and_stale_as_plain_words_are_not_backlog_requests(question: str) -> None:
    assert not {"list_inbox", "plan_triage", "find_similar"} & {name for name, _ in calls(question)}


@pytest.fixture(scope="module")
def tools() -> Registry:
    return load_registry([])


@pytest.mark.usefixtures("fitted_atlas_home")  # the plan reads the run's fitted model, as after a first triage
def test_the_inbox_and_the_plan_are_in_the_answer(tools: Registry) -> None:
    _, inbox = run_to_answer("what needs my attention?", tools)
    assert "### Inbox:" in inbox and "open issues need a look" in inbox and "#13" in inbox
    _, plan = run_to_answer("triage #160", tools)
    assert "### Triage plan for #160" in plan and "add label `type:feature`" in plan
    assert "nothing was changed" in plan and "atlas triage 160" in plan


@pytest.mark.parametrize(
    ("question", "found"),
    [
        ("triage the open scheduler issues", search(state="open", label="comp:scheduler", limit=10)),
        ("triage the issues about leases", ("search_issues", {"query": "leases", "state": "open", "limit": 10})),
        (
            "make a triage plan for the closed issues from 2025",
            search(state="closed", created_since="2025-01-01", created_before="2026-01-01", limit=10),
        ),
        ("suggest labels for the 5 newest bugs", search(state="open", label="type:bug", limit=5)),
    ],
)
def test_a_plan_for_issues_a_search_finds_searches_then_plans_for_its_hits(question: str, found: Any) -> None:
    plan = read_question(question, available=TOOLS)
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [found]
    [planning] = plan.later
    assert planning.planned_hits == found[1]["limit"]


@pytest.mark.usefixtures("fitted_atlas_home")
def test_the_plan_for_a_search_s_hits_is_made_for_those_hits(tools: Registry) -> None:
    rounds, answer = run_to_answer("make a triage plan for the open scheduler issues", tools)
    searched, planned = rounds
    assert searched == [search(state="open", label="comp:scheduler", limit=10)]
    [(name, arguments)] = planned
    assert name == "plan_triage" and arguments["issue_ids"] and len(arguments["issue_ids"]) <= 10
    assert "### Triage plan for #" in answer and "nothing was changed" in answer
    _, none = run_to_answer("triage the open issues about zzqqxx", tools)
    assert "No issue matched, so there is nothing to plan." in none


def test_a_condition_after_and_waits_for_its_test_before_the_action() -> None:
    plan = read_question("show 87 and if it is closed, label it comp:worker", available=[*TOOLS, "add_label"])
    assert [(c.name, c.arguments) for c in plan.first_calls()] == [("get_issue", {"issue_id": 87})]
    [step] = plan.later
    assert step.test is not None and step.test.kind == "state" and step.actions


def test_a_duplicate_condition_is_tested_on_the_similar_issues_and_a_suggestion_is_only_said(tools: Registry) -> None:
    rounds, answer = run_to_answer("if there's an obvious duplicate of 109, suggest I label it comp:worker", tools)
    assert ("find_similar", {"issue_id": 109}) in rounds[0]
    assert not [call for calls in rounds for call in calls if call[0] == "add_label"]
    assert "#109 looks like a duplicate" in answer and "`label #109 comp:worker`" in answer
    rounds, answer = run_to_answer("if 90 looks like a dupe, label it comp:worker", tools)  # nothing close to #90
    assert not [call for calls in rounds for call in calls if call[0] == "add_label"]
    assert "#90 does not meet the condition" in answer


def test_a_kind_said_as_a_condition_is_tested_by_its_label_and_the_answer_says_so(tools: Registry) -> None:
    _, answer = run_to_answer("read #13 and tell me if it's a question; if it is, label it comp:worker", tools)
    assert "the label this project gives a question" in answer  # #13 is a bug report: no `type:question`
    assert "cannot judge whether the text describes a question" in answer
    _, labelled = run_to_answer("if 13 is labelled type:question, label it comp:worker", tools)
    assert "the label this project gives" not in labelled  # the label named as a label is only a label


def test_when_an_issue_was_closed_is_said_not_to_be_kept_and_the_issue_is_read(tools: Registry) -> None:
    rounds, answer = run_to_answer("when was #13 closed?", tools)
    assert rounds[0] == [("get_issue", {"issue_id": 13})]
    assert "The data does not record when an issue was closed" in answer
