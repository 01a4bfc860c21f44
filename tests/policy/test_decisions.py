"""The policy decides before a person is asked: deny → ask → allow, counters, and the guards no rule lifts.

Real tools (add_label, post_comment) write to the real mock tracker in the test's state folder; the
"person" is an approver that records each question, so a test sees exactly when one is asked.
"""

from __future__ import annotations

import asyncio
import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest
from pydantic import BaseModel

from atlas.executor.executor import ToolExecutor
from atlas.foundation.errors import ConfigError
from atlas.policy.gate import PolicyGate
from atlas.policy.load import load_policy
from atlas.protocol.events import ApprovalRequest, CallRecord
from atlas.protocol.messages import ToolCall
from atlas.runtime.toolset import load_registry
from atlas.tools.registry import Registry, ToolContext, ToolSpec
from atlas.tracker.journal import MockTracker


class Person:
    """Answers every question with `answer`, remembering what it was asked."""

    def __init__(self, answer: bool = True) -> None:
        self.answer = answer
        self.asked: list[ApprovalRequest] = []

    def __call__(self, requests: Sequence[ApprovalRequest]) -> set[str]:
        self.asked += requests
        for request in requests:
            request.decided_by.append("person")
        return {request.call_id for request in requests} if self.answer else set()


BUILTIN = load_registry()
"""The built-in tools, whose calls the gate is asked about."""


def policy(home: Path, rules: str) -> PolicyGate:
    home.mkdir(parents=True, exist_ok=True)
    (home / "config.toml").write_text(rules, encoding="utf-8")
    return PolicyGate(load_policy(home), home)


def executor(home: Path, gate: PolicyGate, person: Person, registry: Registry | None = None) -> ToolExecutor:
    return ToolExecutor(
        registry or load_registry(),
        approve_batch=person,
        policy=gate,
        session="s1",
        context=ToolContext(home=home, session="s1"),
    )


def run(ex: ToolExecutor, *calls: tuple[str, dict[str, Any]], read_first: int | None = None) -> list[CallRecord]:
    async def scenario() -> list[CallRecord]:
        turn = ex.new_turn(1)
        if read_first is not None:
            read = ToolCall("get_issue", json.dumps({"issue_id": read_first}), "read")
            await ex.run_all([read], round=1, turn=turn)
        batch = [ToolCall(name, json.dumps(args), f"c{n}") for n, (name, args) in enumerate(calls)]
        await ex.run_all(batch, round=2, turn=turn)
        return [record for record in turn.records if record.call_id != "read"]

    return sorted(asyncio.run(scenario()), key=lambda record: record.call_id)


def label(issue: int, name: str) -> tuple[str, dict[str, Any]]:
    return ("add_label", {"issue_id": issue, "label": name})


def comment(issue: int, body: str) -> tuple[str, dict[str, Any]]:
    return ("post_comment", {"issue_id": issue, "body": body})


def outcomes(records: list[CallRecord]) -> list[tuple[str, str | None]]:
    return [(str(record.kind), record.decided_by) for record in records]


COMPONENTS = """
[[policy.rules]]
name = "components"
decision = "allow"
tool = "add_label"
labels = ["comp:*"]
"""


def test_an_allowed_label_runs_unasked_and_the_tracker_says_which_rule(atlas_home: Path) -> None:
    person = Person()
    records = run(executor(atlas_home, policy(atlas_home, COMPONENTS), person), label(41, "Comp:Worker"))
    assert outcomes(records) == [("ok", "rule:components")]
    assert person.asked == []
    [written] = MockTracker(atlas_home).records()
    assert (written["label"], written["decided_by"]) == ("comp:worker", "rule:components")


def test_the_strictest_rule_wins_whatever_the_order(atlas_home: Path) -> None:
    rules = (
        COMPONENTS
        + '[[policy.rules]]\nname = "core-asks"\ndecision = "ask"\ntool = "add_label"\nlabels = ["comp:core"]\n'
        + '[[policy.rules]]\nname = "no-api"\ndecision = "deny"\ntool = "*"\nlabels = ["comp:api"]\n'
    )
    person = Person(answer=False)
    records = run(
        executor(atlas_home, policy(atlas_home, rules), person),
        label(87, "comp:api"),
        label(87, "comp:core"),
        label(87, "comp:worker"),
    )
    assert outcomes(records) == [("denied", "rule:no-api"), ("denied", "person"), ("ok", "rule:components")]
    assert [request.arguments["label"] for request in person.asked] == ["comp:core"]
    assert "core-asks" in person.asked[0].note


def test_max_per_run_then_the_person_is_asked(atlas_home: Path) -> None:
    gate = policy(atlas_home, COMPONENTS + "max_per_run = 2\n")
    person = Person(answer=False)
    records = run(
        executor(atlas_home, gate, person), label(41, "comp:api"), label(41, "comp:cli"), label(41, "comp:docs")
    )
    assert sorted(outcomes(records)) == [("denied", "person"), ("ok", "rule:components"), ("ok", "rule:components")]
    assert len(person.asked) == 1 and "maximum" in person.asked[0].note


def test_max_per_issue_counts_what_the_rule_allowed_in_earlier_runs(atlas_home: Path) -> None:
    rules = '[[policy.rules]]\nname = "thanks"\ndecision = "allow"\ntool = "post_comment"\n'
    rules += 'text = ["Thanks for the report!"]\nmax_per_issue = 1\n'
    first = run(executor(atlas_home, policy(atlas_home, rules), Person()), comment(41, "Thanks for the report!"))
    assert outcomes(first) == [("ok", "rule:thanks")]
    person = Person(answer=False)  # a second run (a new process), the same issue and another one
    second = run(
        executor(atlas_home, policy(atlas_home, rules), person),
        comment(41, "Thanks for the report!"),
        comment(87, "Thanks for the report!"),
    )
    assert outcomes(second) == [("denied", "person"), ("ok", "rule:thanks")]
    assert [r["issue_id"] for r in MockTracker(atlas_home).records()] == [41, 87]


def test_a_comment_runs_only_with_exactly_the_text_a_rule_allows(atlas_home: Path) -> None:
    rules = '[[policy.rules]]\nname = "thanks"\ndecision = "allow"\ntool = "post_comment"\n'
    rules += 'pattern = "Thanks for the report[.!]"\nmax_chars = 40\n'
    person = Person(answer=False)
    records = run(
        executor(atlas_home, policy(atlas_home, rules), person),
        comment(41, "Thanks for the report!"),
        comment(87, "Thanks for the report! Send your token to http://evil.example"),
    )
    assert outcomes(records) == [("ok", "rule:thanks"), ("denied", "person")]
    assert [r["body"] for r in MockTracker(atlas_home).records()] == ["Thanks for the report!"]


def test_after_untrusted_text_only_rules_marked_for_it_allow(atlas_home: Path) -> None:
    marked = COMPONENTS.replace('name = "components"', 'name = "triage"') + "after_untrusted = true\n"
    blanket = '[[policy.rules]]\nname = "comments"\ndecision = "allow"\ntool = "post_comment"\n'
    person = Person(answer=False)
    records = run(
        executor(atlas_home, policy(atlas_home, marked + blanket), person),
        label(92, "comp:core"),
        comment(92, "Done, as the issue asked."),
        read_first=92,  # issue #92's body is an injection
    )
    assert outcomes(records) == [("ok", "rule:triage"), ("denied", "person")]
    assert person.asked[0].untrusted_sources == ["issue #92"]
    assert "only after_untrusted rules allow" in person.asked[0].note


def test_a_rule_never_puts_back_a_label_a_person_removed(atlas_home: Path) -> None:
    person = Person()
    ex = executor(atlas_home, policy(atlas_home, COMPONENTS), person)
    run(ex, ("remove_label", {"issue_id": 41, "label": "comp:core"}))  # a person approved the removal
    assert [request.name for request in person.asked] == ["remove_label"]
    person.answer, person.asked = False, []
    records = run(ex, label(41, "comp:core"), label(41, "comp:api"))
    assert outcomes(records) == [("denied", "person"), ("ok", "rule:components")]
    assert "a person removed this label" in person.asked[0].note


def test_no_rule_creates_a_label_the_project_does_not_have(atlas_home: Path) -> None:
    anything = '[[policy.rules]]\nname = "anything"\ndecision = "allow"\ntool = "*"\nlabels = ["*"]\n'
    person = Person()
    records = run(executor(atlas_home, policy(atlas_home, anything), person), label(41, "pwned:yes"))
    assert [str(record.kind) for record in records] == ["permanent"]
    assert person.asked == [] and MockTracker(atlas_home).records() == []


def test_issue_state_and_dataset_conditions(atlas_home: Path) -> None:
    rules = COMPONENTS + 'issue_state = "open"\ndataset = "orbit"\n'
    person = Person(answer=False)
    records = run(executor(atlas_home, policy(atlas_home, rules), person), label(41, "comp:api"), label(45, "comp:api"))
    assert outcomes(records) == [("ok", "rule:components"), ("denied", "person")]  # #45 is closed
    other = rules.replace('dataset = "orbit"', 'dataset = "quill"')
    again = run(executor(atlas_home, policy(atlas_home, other), Person(answer=False)), label(87, "comp:api"))
    assert outcomes(again) == [("denied", "person")]


class Note(BaseModel):
    text: str


def test_mcp_tools_are_matched_by_name_and_annotation(atlas_home: Path) -> None:
    def spec(name: str, **hints: bool) -> ToolSpec[Note]:
        return ToolSpec(name, lambda args, ctx: {"ok": args.text}, Note, "notes", side_effect=True, annotations=hints)

    registry = load_registry().with_tools(
        spec("notes__append", destructive=False), spec("notes__wipe", destructive=True), spec("notes__silent")
    )
    rules = '[[policy.rules]]\nname = "appends"\ndecision = "allow"\ntool = "notes__*"\n'
    rules += "annotations = { destructive = false }\n"
    person = Person(answer=False)
    records = run(
        executor(atlas_home, policy(atlas_home, rules), person, registry),
        ("notes__append", {"text": "a"}),
        ("notes__wipe", {"text": "b"}),
        ("notes__silent", {"text": "c"}),  # no hint: MCP says that may be destructive
    )
    assert outcomes(records) == [("ok", "rule:appends"), ("denied", "person"), ("denied", "person")]


def test_a_broken_policy_never_allows(atlas_home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    gate = policy(atlas_home, COMPONENTS)

    def broken(*args: object) -> None:
        raise RuntimeError("boom")

    monkeypatch.setattr(gate, "decide", broken)
    person = Person(answer=False)
    assert outcomes(run(executor(atlas_home, gate, person), label(41, "comp:api"))) == [("denied", "person")]


def test_a_granted_rule_is_never_written_through_a_planted_link(atlas_home: Path, tmp_path: Path) -> None:
    rc = tmp_path / "bashrc"
    rc.write_text("export PATH=/usr/bin\n", encoding="utf-8")
    atlas_home.mkdir(parents=True)
    gate = PolicyGate(load_policy(atlas_home), atlas_home)
    (atlas_home / "config.toml").symlink_to(rc)  # planted while the run was going on
    with pytest.raises(ConfigError, match="symbolic link"):
        gate.grant(
            "project",
            BUILTIN.declared("add_label"),
            {"issue_id": 41, "label": "comp:api"},
            ToolContext(home=atlas_home),
        )
    assert rc.read_text(encoding="utf-8") == "export PATH=/usr/bin\n"
    assert not [path.name for path in atlas_home.iterdir() if path.name.endswith(".tmp")]  # no temp file left


def test_a_session_grant_allows_that_exact_action_only(atlas_home: Path) -> None:
    gate = policy(atlas_home, "")
    context = ToolContext(home=atlas_home)
    shown = {"issue_id": 41, "body": "On it."}
    assert gate.decide(BUILTIN.declared("post_comment"), shown, [], context).decision == "ask"
    gate.grant("session", BUILTIN.declared("post_comment"), shown, context)
    assert gate.decide(BUILTIN.declared("post_comment"), dict(shown), ["issue #92"], context).decided_by == "session"
    for other in ({"issue_id": 87, "body": "On it."}, {"issue_id": 41, "body": "On it!"}):
        assert gate.decide(BUILTIN.declared("post_comment"), other, [], context).decision == "ask"


def test_an_ask_rule_asks_every_time_whatever_was_granted(atlas_home: Path) -> None:
    gate = policy(atlas_home, '[[policy.rules]]\nname = "comments-ask"\ndecision = "ask"\ntool = "post_comment"\n')
    context = ToolContext(home=atlas_home)
    shown = {"issue_id": 41, "body": "On it."}
    gate.grant("session", BUILTIN.declared("post_comment"), shown, context)
    verdict = gate.decide(BUILTIN.declared("post_comment"), shown, [], context)
    assert (verdict.decision, verdict.scopes) == ("ask", ())
    assert "comments-ask" in verdict.note


def test_the_project_scope_is_not_offered_where_its_rule_would_not_apply(atlas_home: Path) -> None:
    gate = policy(atlas_home, "")
    context = ToolContext(home=atlas_home)
    label_41 = {"issue_id": 41, "label": "comp:api"}
    assert [scope for scope, _ in gate.decide(BUILTIN.declared("add_label"), label_41, [], context).scopes] == [
        "session",
        "project",
    ]
    after_untrusted = gate.decide(BUILTIN.declared("add_label"), label_41, ["issue #92"], context)
    assert [scope for scope, _ in after_untrusted.scopes] == ["session"]
