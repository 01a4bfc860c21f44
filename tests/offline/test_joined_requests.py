"""Requests that lean on the one before: a condition carried over `and`, `if so`, `whichever`, `and on 93: …`."""

from __future__ import annotations

from typing import Any

from atlas.foundation.config import data_dir
from atlas.offline.compose import read_question
from atlas.offline.model import next_calls
from atlas.offline.plan import Plan, PlannedCall
from atlas.offline.reading.frames import split_message
from atlas.offline.reading.vocabulary import vocabulary_of
from atlas.offline.readings import ToolReading

TOOLS = {"get_issue", "search_issues", "get_doc_section", "list_docs", "add_label", "remove_label", "post_comment"}


def plan_of(question: str) -> Plan:
    return read_question(question, vocabulary_of(data_dir()), available=TOOLS)


def first(question: str) -> list[tuple[str, dict[str, Any]]]:
    return [(call.name, call.arguments) for call in plan_of(question).first_calls()]


def issue(issue_id: int, state: str, labels: list[str] | None = None) -> ToolReading:
    data = {"id": issue_id, "state": state, "labels": labels or []}
    return ToolReading(PlannedCall("get_issue", {"issue_id": issue_id}), f"c{issue_id}", {"ok": True, "data": data})


def second(plan: Plan, *read: ToolReading) -> list[tuple[str, dict[str, Any]]]:
    return [(call.name, call.arguments) for call in next_calls(plan, list(read), TOOLS)]


def test_an_action_joined_by_and_waits_for_the_same_condition() -> None:
    plan = plan_of("if #61 is still open, add severity:S3 and post 'Bumped after the retro.'")
    assert first("if #61 is still open, add severity:S3 and post 'Bumped after the retro.'") == [
        ("get_issue", {"issue_id": 61})
    ]
    assert second(plan, issue(61, "closed")) == []
    assert second(plan, issue(61, "open")) == [
        ("add_label", {"issue_id": 61, "label": "severity:S3"}),
        ("post_comment", {"issue_id": 61, "body": "Bumped after the retro."}),
    ]


def test_a_new_sentence_after_a_quoted_comment_is_a_request_of_its_own() -> None:
    message = split_message("If 12 is open, comment 'Closing soon.' If it's closed, do nothing.")
    assert [request.text for request in message.requests] == [
        'If 12 is open, comment "Q0"',
        "If it's closed, do nothing.",
    ]
    assert split_message("comment 'duplicate of #41' on 109").requests[0].text == 'comment "Q0" on 109'


def test_if_so_takes_the_question_before_as_its_condition() -> None:
    plan = plan_of("41 still open? if so comment 'ping'")
    assert second(plan, issue(41, "closed")) == []
    assert second(plan, issue(41, "open")) == [("post_comment", {"issue_id": 41, "body": "ping"})]
    bare = plan_of("is 20 still S3? if yes S2")
    assert second(bare, issue(20, "open", ["severity:S3"])) == [("add_label", {"issue_id": 20, "label": "severity:S2"})]
    assert second(bare, issue(20, "open", ["severity:S1"])) == []


def test_whichever_acts_on_each_issue_named_before_by_its_state() -> None:
    plan = plan_of("look at 12 and 45; whichever is closed gets comp:core")
    assert second(plan, issue(12, "open"), issue(45, "closed")) == [
        ("add_label", {"issue_id": 45, "label": "comp:core"})
    ]


def test_and_on_another_issue_posts_there_too() -> None:
    assert first("comment on 12: 'seen on 2.8.3' and on 45: 'same here'") == [
        ("post_comment", {"issue_id": 12, "body": "seen on 2.8.3"}),
        ("post_comment", {"issue_id": 45, "body": "same here"}),
    ]
    assert first("🙏 please label #33 type:docs") == [("add_label", {"issue_id": 33, "label": "type:docs"})]
    assert first("open 4 n add comp:docs") == [
        ("get_issue", {"issue_id": 4}),
        ("add_label", {"issue_id": 4, "label": "comp:docs"}),
    ]


def test_it_means_the_issue_marked_with_a_hash_beside_bare_numbers() -> None:
    planned = first("Saw #70 again with 3 workers and concurrency 2. Mark it S2.")
    assert [call for call in planned if call[0] == "add_label"] == [
        ("add_label", {"issue_id": 70, "label": "severity:S2"})
    ]
    # Without a mark, which number `it` means is not said: nothing is labelled.
    assert all(name != "add_label" for name, _ in first("read 12 and 45. Mark it S2."))


def test_a_symptom_search_leads_with_the_words_of_the_ask() -> None:
    planned = first("Workers pile up on Monday mornings. Has anyone asked for a warm-up delay?")
    query = next(args["query"] for name, args in planned if name == "search_issues")
    assert query.startswith("warm-up delay")
    assert "2.8.3" not in next(
        args["query"]
        for name, args in first("On 2.8.3 worker logs carry ANSI colours. Known?")
        if name == "search_issues"
    )


def test_a_comment_asked_for_without_text_takes_the_sentence_after_it_as_the_text() -> None:
    plan = plan_of("Can you reply to alexgrant on #90? We'd love to see their notes on job dependencies, maybe a gist?")
    assert plan.comments == [(90, "We'd love to see their notes on job dependencies, maybe a gist?")]
    assert plan_of("reply on #90. thanks for the report, fixed in 2.8.4").comments == [
        (90, "thanks for the report, fixed in 2.8.4")
    ]


def test_a_sentence_that_asks_for_something_is_no_comment_s_text() -> None:
    for after in ("Also show #87", "What does ORB-1101 mean?", "add comp:docs.", "open bugs about leases"):
        plan = plan_of(f"comment on #41. {after}")
        assert plan.comments == [] and any("give the text too" in note for note in plan.notes), after


def test_someone_told_on_an_issue_that_something_is_so_is_a_comment_of_those_words() -> None:
    assert plan_of("tell alexgrant on #90 that we'd love a gist of the notes").comments == [
        (90, "we'd love a gist of the notes")
    ]
    assert plan_of("thank jlaurent on #41 for the detailed report").comments == [
        (41, "Thank you for the detailed report!")
    ]
