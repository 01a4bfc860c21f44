"""The offline planner end to end: the real loop, the real executor and the real tools on the bundled data."""

from __future__ import annotations

import asyncio
import json
from typing import Any

from atlas.conversation.loop import TurnResult, run_turn
from atlas.executor.executor import ToolExecutor
from atlas.foundation.config import atlas_home
from atlas.offline import OfflinePlanner
from atlas.protocol.events import ApprovalRequest
from atlas.runtime.toolset import load_registry


def ask(
    question: str, *, approve: bool = False, read_only: bool = False, history: list[dict[str, Any]] | None = None
) -> tuple[TurnResult, list[ApprovalRequest]]:
    asked: list[ApprovalRequest] = []

    def approver(request: ApprovalRequest) -> bool:
        asked.append(request)
        return approve

    registry = load_registry([])
    executor = ToolExecutor(registry.read_only() if read_only else registry, approve=approver, session="offline-e2e")
    result = asyncio.run(
        run_turn(
            question,
            history if history is not None else [],
            model=OfflinePlanner(),
            executor=executor,
            session="offline-e2e",
        )
    )
    return result, asked


def test_seed_question_end_to_end() -> None:
    result, _ = ask("Compare issues #41 and #87 and check what the error-codes doc says about ORB-1101.")
    assert result.finished and result.rounds == 2 and result.model == "offline"
    assert [(c.round, c.name, c.arguments, c.kind) for c in result.calls] == [
        (1, "get_issue", {"issue_id": 41}, "ok"),
        (1, "get_issue", {"issue_id": 87}, "ok"),
        (1, "get_doc_section", {"doc_id": "error-codes", "heading": "ORB-1101"}, "ok"),
    ]
    assert "| | #41 | #87 |" in result.answer and "### error-codes › ORB-1101 LeaseExpired" in result.answer
    assert result.cost_usd == 0.0


def test_explain_end_to_end_takes_two_tool_rounds() -> None:
    result, _ = ask("explain the error in #41")
    assert result.rounds == 3
    assert [(c.round, c.arguments) for c in result.calls] == [
        (1, {"issue_id": 41}),
        (2, {"doc_id": "error-codes", "heading": "ORB-1101"}),
        (2, {"doc_id": "error-codes", "heading": "ORB-1102"}),
    ]


def test_an_approved_label_is_written_and_a_denied_one_is_not() -> None:
    actions = atlas_home() / "tracker_actions.jsonl"
    denied, asked = ask("add severity:S1 to issue 41")
    assert len(asked) == 1 and asked[0].name == "add_label"
    assert [c.kind for c in denied.calls] == ["denied"]
    assert "Not done: you did not approve `add_label` severity:S1 on #41" in denied.answer
    assert not actions.exists()
    approved, _ = ask("add severity:S1 to issue 41", approve=True)
    assert "Done: added the label `severity:S1` to #41" in approved.answer
    records = [json.loads(line) for line in actions.read_text().splitlines()]
    assert [(r["action"], r["issue_id"], r["label"]) for r in records] == [("add_label", 41, "severity:S1")]
    again, _ = ask("label #41 severity:S1", approve=True)
    assert "No change: #41 already had the label `severity:S1`" in again.answer


def test_read_only_end_to_end_makes_no_call_and_asks_nobody() -> None:
    result, asked = ask("comment on #41: Looking into it.", approve=True, read_only=True)
    assert result.calls == [] and asked == []
    assert "not available in read-only mode" in result.answer


def test_the_injection_in_92_is_read_but_never_acted_on() -> None:
    result, asked = ask("explain the error in #92", approve=True)
    assert asked == []
    assert {c.name for c in result.calls} <= {"get_issue", "get_doc_section"}
    assert "### #92 — Which retries.backoff should I use" in result.answer
    assert "#92 cites no error code of the docs" in result.answer
    assert not (atlas_home() / "tracker_actions.jsonl").exists()


def test_a_chat_keeps_going_across_turns() -> None:
    history: list[dict[str, Any]] = []
    first, _ = ask("comment on #41: first note", approve=True, history=history)
    second, _ = ask("comment on #41: second note", approve=True, history=history)
    assert "Done: posted your comment on #41" in first.answer and "Done: posted your comment on #41" in second.answer
    assert first.calls[0].call_id != second.calls[0].call_id
    bodies = [json.loads(line)["body"] for line in (atlas_home() / "tracker_actions.jsonl").read_text().splitlines()]
    assert bodies == ["first note", "second note"]


def test_a_removed_label_is_reported_as_removed_and_an_absent_one_as_no_change() -> None:
    removed, asked = ask("remove type:bug from #41", approve=True)
    assert [(c.name, c.kind) for c in removed.calls] == [("remove_label", "ok")] and len(asked) == 1
    assert "Done: removed the label `type:bug` from #41 (labels now: `comp:core`)" in removed.answer
    # The label is gone now: nothing to remove, so nobody is asked and nothing is said to be posted.
    again, asked_again = ask("remove type:bug from #41", approve=True)
    assert asked_again == [] and "No change: #41 did not have the label `type:bug`" in again.answer
    assert "posted" not in removed.answer + again.answer
