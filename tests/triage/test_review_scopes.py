"""`p 1,3` at a triage plan's review, on a real pseudo-terminal: a rule per item, exactly as shown,
that later runs with no terminal apply, and that `atlas policy revoke` takes back."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

from tests.support.run import atlas_env, finish, invoke, tracker_records
from tests.triage.test_review import QUESTION, comment_edited_to, review

WROTE = re.compile(rb"wrote rule (granted-[a-z-]+-[0-9a-f]{4}) to \S+config\.toml:(\d+)")


def events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


def test_p_writes_a_rule_for_the_label_shown_which_a_headless_run_then_applies(home: Path) -> None:
    env = atlas_env(home)
    child, items = review(env, "triage", "132")
    number = next(n for n, what in items.items() if what == "#132 add label type:bug")
    shown = (child.before or b"").decode()
    assert f"  {number}: add_label of type:bug on any issue" in shown
    # First a slip: `p` naming an item not shown writes nothing and asks again.
    child.send(f"p {max(items) + 1}\r".encode())
    child.expect(QUESTION)
    assert b"not allowed: name the items shown" in (child.before or b"")
    assert not (home / "config.toml").exists() and tracker_records(env) == []
    child.send(f"p {number}\r".encode())
    child.expect(WROTE)
    assert child.match is not None
    name = child.match.group(1).decode()
    code, rest = finish(child)
    assert code == 0 and f"✓ {number}. #132 add label type:bug: done".encode() in rest
    assert [(r["issue_id"], r["label"], r["decided_by"]) for r in tracker_records(env)] == [(132, "type:bug", "person")]
    assert (home / "config.toml").read_text(encoding="utf-8").count("[[policy.rules]]") == 1  # the slip's: none
    listed = invoke("policy", "list", env=env)
    assert name in listed.stdout and "config.toml:" in listed.stdout

    # No terminal: the rule adds type:bug to another issue; everything else is denied and listed.
    run = invoke("triage", "150", "--jsonl", env=env)
    assert run.code == 3, run
    stream = events(run.stdout)
    assert stream[0]["event"] == "triage_started" and stream[-1] == {**stream[-1], "event": "finished", "exit_code": 3}
    [plan] = [e for e in stream if e["event"] == "plan"]
    labels = {f"item-{item['n']}": item["arguments"].get("label") for item in plan["items"]}
    decided = {(labels[e["call_id"]], e["decided_by"]) for e in stream if e["event"] == "tool_finished"}
    assert ("type:bug", f"rule:{name}") in decided
    assert all(by == "no-terminal" for label, by in decided if label != "type:bug")
    written = [(r["issue_id"], r["label"], r["decided_by"]) for r in tracker_records(env)]
    assert (150, "type:bug", f"rule:{name}") in written

    assert invoke("policy", "revoke", name, env=env).code == 0
    again = invoke("triage", "135", "--jsonl", env=env)
    assert again.code == 3, again
    assert not [r for r in tracker_records(env) if r["issue_id"] == 135]


def test_p_on_an_edited_comment_allows_exactly_the_edited_text_once_per_issue(home: Path, tmp_path: Path) -> None:
    mine = "Which Orbit version, please? And the scheduler log of that night."
    child, number, env = comment_edited_to(mine, home, tmp_path)
    child.send(f"p {number}\r".encode())
    child.expect(WROTE)
    code, _ = finish(child)
    assert code == 0
    config = (home / "config.toml").read_text(encoding="utf-8")
    assert f"text = [{json.dumps(mine)}]" in config and "max_per_issue = 1" in config
    assert "after_untrusted = true" in config
    assert [r["body"] for r in tracker_records(env) if r["action"] == "post_comment"] == [mine]
    checked = invoke("policy", "check", env=env)
    assert checked.code == 0, checked


def test_a_deny_rule_is_said_at_the_review_and_wins_over_its_yes(home: Path) -> None:
    rule = '[[policy.rules]]\nname = "no-type"\ndecision = "deny"\ntool = "add_label"\nlabels = ["type:*"]\n'
    (home / "config.toml").write_text(rule, encoding="utf-8")
    env = atlas_env(home)
    child, items = review(env, "triage", "132")
    typed = next(n for n, what in items.items() if "add label type:" in what)
    shown = (child.before or b"").decode()
    assert "! rule no-type denies it, whatever the answer" in shown
    assert f"  {typed}: add_label" not in shown  # no rule is offered for it
    child.send(b"y\r")
    code, rest = finish(child)
    assert code == 0 and b"denied by rule no-type" in rest
    labels = [r["label"] for r in tracker_records(env)]
    assert labels and not any(label.startswith("type:") for label in labels)
    assert {r["decided_by"] for r in tracker_records(env)} == {"person"}
