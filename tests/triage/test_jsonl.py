"""`atlas triage --jsonl` and `atlas apply --jsonl` with no terminal: ask's event stream, decided by
the rules alone, the documented exit codes, and nothing but JSON on standard output."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from tests.support.run import assert_no_traceback, atlas_env, invoke, jsonl_events, logged_calls, tracker_records

TYPES = """
[policy.label_groups]
type = ["type:*"]

[[policy.rules]]
name = "types"
decision = "allow"
tool = "add_label"
label_groups = ["type"]
after_untrusted = true

[[policy.rules]]
name = "no-comp"
decision = "deny"
tool = "add_label"
labels = ["comp:*"]
"""


def by_call(events: list[dict[str, Any]], name: str) -> dict[str, dict[str, Any]]:
    return {e["call_id"]: e for e in events if e["event"] == name}


def test_headless_triage_applies_what_rules_allow_and_streams_every_decision(home: Path) -> None:
    (home / "config.toml").write_text(TYPES, encoding="utf-8")
    env = atlas_env(home)
    run = invoke("triage", "132", "135", "--jsonl", env=env)
    assert run.code == 3, run
    assert_no_traceback(run)
    events = jsonl_events(run)
    assert [e["event"] for e in events[:2]] == ["triage_started", "plan"]
    assert events[0]["issues"] == [132, 135] and events[0]["dataset"] == "Orbit"
    items = {f"item-{i['n']}": i for i in events[1]["items"]}
    assert {e["session"] for e in events[1:]} == {events[1]["session"]}
    finished, decided, denied = (
        by_call(events, name) for name in ("tool_finished", "approval_decided", "action_denied")
    )
    assert set(finished) == set(decided) == set(items)
    for call_id, item in items.items():
        label = str(item["arguments"].get("label", ""))
        who = (
            "rule:types"
            if label.startswith("type:")
            else "rule:no-comp"
            if label.startswith("comp:")
            else "no-terminal"
        )
        assert decided[call_id]["decided_by"] == finished[call_id]["decided_by"] == who
        assert finished[call_id]["kind"] == ("ok" if who == "rule:types" else "denied")
        assert isinstance(finished[call_id]["ms"], (int, float))
        assert (call_id in denied) == (who != "rule:types")
    applied = [(r["issue_id"], r["label"], r["decided_by"]) for r in tracker_records(env)]
    assert applied and all(by == "rule:types" for _, _, by in applied)
    assert {c["decided_by"] for c in logged_calls(env)} <= {"rule:types", "rule:no-comp", "no-terminal"}
    # The report a person reads went to standard error.
    assert "Not done:" in run.stderr and "denied by rule no-comp" in run.stderr


def test_headless_apply_streams_the_saved_plan_and_exits_0_when_all_of_it_was_allowed(
    home: Path, tmp_path: Path
) -> None:
    env = atlas_env(home)
    path = tmp_path / "plan.json"
    assert invoke("triage", "132", "--plan", str(path), env=env).code == 0
    plan = json.loads(path.read_text(encoding="utf-8"))
    labels = sorted({item["arguments"]["label"] for item in plan["items"] if item["tool"] == "add_label"})
    everything = (
        f'[[policy.rules]]\nname = "plan"\ndecision = "allow"\ntool = "add_label"\nlabels = {json.dumps(labels)}\n'
    )
    (home / "config.toml").write_text(everything + "after_untrusted = true\n", encoding="utf-8")
    assert labels and all(item["tool"] == "add_label" for item in plan["items"])  # #132 is answered: no draft
    run = invoke("apply", str(path), "--jsonl", env=env)
    assert run.code == 0, run
    events = jsonl_events(run)
    assert [e["event"] for e in events[:2]] == ["apply_started", "plan"]
    assert not [e for e in events if e["event"] == "action_denied"]
    assert sorted(r["label"] for r in tracker_records(env)) == labels
    again = invoke("apply", str(path), "--jsonl", env=env)  # never twice
    assert again.code == 0 and jsonl_events(again)[1]["already_applied"] == [item["n"] for item in plan["items"]]


def test_a_malformed_policy_stops_triage_before_the_plan_with_one_line(home: Path) -> None:
    (home / "config.toml").write_text(TYPES.replace('decision = "deny"', 'decision = "never"'), encoding="utf-8")
    run = invoke("triage", "132", "--jsonl", env=atlas_env(home))
    assert run.code == 2
    assert [e["event"] for e in jsonl_events(run)] == ["finished"]
    [line] = run.stderr.splitlines()
    assert line.startswith("atlas: error: ") and "config.toml:" in line and "rule 'no-comp'" in line
    assert tracker_records(atlas_env(home)) == []


def test_errors_go_to_standard_error_and_usage_mistakes_exit_2(home: Path, tmp_path: Path) -> None:
    env = atlas_env(home)
    unknown = invoke("triage", "99999", "--jsonl", env=env)
    assert unknown.code not in (0, 3)
    assert jsonl_events(unknown)[-1]["exit_code"] == unknown.code
    assert unknown.stderr.startswith("atlas: error: ") and len(unknown.stderr.splitlines()) == 1
    combined = invoke("triage", "132", "--jsonl", "--plan", str(tmp_path / "p.json"), env=env)
    assert combined.code == 2 and combined.stdout == "" and not (tmp_path / "p.json").exists()
    not_a_plan = tmp_path / "notes.json"
    not_a_plan.write_text('{"hello": 1}', encoding="utf-8")
    refused = invoke("apply", str(not_a_plan), "--jsonl", env=env)
    assert (
        refused.code == 1
        and jsonl_events(refused)[-1]["exit_code"] == 1
        and "is not an Atlas triage plan" in refused.stderr
    )
