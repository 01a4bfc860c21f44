"""The inbox asked for in an order: `the newest untriaged issues`, `oldest unanswered first`: by the date opened."""

from __future__ import annotations

import re
from typing import Any

import pytest

from atlas.offline.compose import read_question
from atlas.runtime.toolset import load_registry
from tests.offline.test_offline import run_to_answer
from tests.offline.test_search_filters import SATURDAY

TOOLS = frozenset({"get_issue", "search_issues", "find_similar", "suggest_labels", "list_inbox", "plan_triage"})


def calls(question: str) -> list[tuple[str, dict[str, Any]]]:
    return [(c.name, c.arguments) for c in read_question(question, available=TOOLS).first_calls()]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("triage the newest untriaged issues", {"only": "untriaged", "order": "newest"}),
        ("the latest issues that need triage", {"only": "untriaged", "order": "newest"}),
        ("most recent untriaged issues", {"only": "untriaged", "order": "newest"}),
        ("which untriaged issues are newest?", {"only": "untriaged", "order": "newest"}),
        ("oldest untriaged issues first", {"only": "untriaged", "order": "oldest"}),
        ("the oldest unanswered issues", {"only": "unanswered", "order": "oldest"}),
        ("newest stale issues", {"only": "stale", "order": "newest"}),
        ("what needs my attention, oldest first", {"order": "oldest"}),
        ("what needs my attention?", {}),
        ("list stale issues", {"only": "stale"}),
    ],
)
def test_an_order_word_sorts_the_inbox_by_the_date_opened(question: str, expected: dict[str, Any]) -> None:
    assert calls(question) == [("list_inbox", expected)]


def test_an_order_the_inbox_cannot_take_leaves_it_in_its_own() -> None:
    assert calls("most commented untriaged issues") == [("list_inbox", {"only": "untriaged"})]
    assert calls("oldest open bugs")[0][0] == "search_issues"  # a kind of issue, not a reason: a sorted search


def test_the_newest_untriaged_issues_come_newest_first_on_orbit() -> None:
    rounds, answer = run_to_answer("the latest untriaged issues", load_registry([]))
    assert rounds[0] == [("list_inbox", {"only": "untriaged", "order": "newest"})]
    assert "### Inbox · untriaged · newest opened first:" in answer
    listed = [int(n) for n in re.findall(r"^- #(\d+)", answer, re.M)]
    assert len(listed) > 3 and listed == sorted(listed, reverse=True)  # Orbit numbers its issues as they are filed
    assert "`atlas inbox --only untriaged --order newest`" in answer
    _, oldest = run_to_answer("the oldest untriaged issues", load_registry([]))
    first_oldest = int(re.findall(r"^- #(\d+)", oldest, re.M)[0])
    assert first_oldest < listed[-1]


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("untriaged issues about leases", {"only": "untriaged", "about": "leases"}),
        ("which stale issues mention postgres?", {"only": "stale", "about": "postgres"}),
        ("what's untriaged from the last two weeks?", {"only": "untriaged", "opened_since": "2026-11-21"}),
        ("untriaged issues since january 2025", {"only": "untriaged", "opened_since": "2025-01-01"}),
        ("what needs my attention this week?", {}),  # the week of the work, not of the issues
    ],
)
def test_the_inbox_is_narrowed_to_the_topic_and_first_day_said(
    question: str, expected: dict[str, Any], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("atlas.offline.reading.dates.today", lambda: SATURDAY)
    assert calls(question) == [("list_inbox", expected)]


@pytest.mark.parametrize("question", ["stale issues since March", "untriaged issues by svetlana-k"])
def test_days_or_people_the_inbox_cannot_narrow_to_are_a_search(question: str) -> None:
    assert calls(question)[0][0] == "search_issues"


@pytest.mark.parametrize(
    ("question", "expected"),
    [
        ("bugs with no reply", {"only": "unanswered", "label": "type:bug"}),
        (
            "unanswered questions about the scheduler",
            {"only": "unanswered", "about": "scheduler", "label": "type:question"},
        ),
        ("any open questions people asked that were never answered?", {"only": "unanswered", "label": "type:question"}),
        ("stale feature requests", {"only": "stale", "label": "type:feature"}),
        ("which bugs are stale?", {"only": "stale", "label": "type:bug"}),
        ("what needs my attention?", {}),
    ],
)
def test_the_inbox_narrowed_to_the_label_its_issues_are_named_by(question: str, expected: dict[str, Any]) -> None:
    assert calls(question) == [("list_inbox", expected)]


@pytest.mark.parametrize("question", ["idle workers", "issues about stale leases", "stale jobs in the redis broker"])
def test_stale_said_of_a_thing_that_is_no_issue_is_no_inbox(question: str) -> None:
    assert "list_inbox" not in [name for name, _ in calls(question)]
