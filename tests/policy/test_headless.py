"""Runs with no terminal (cron, CI): what a rule allows runs, everything else is denied and listed,
and every record says who decided. `--jsonl` is one JSON event per line, with documented exit codes."""

from __future__ import annotations

import json
from pathlib import Path

from tests.support.run import (
    assert_no_traceback,
    atlas_env,
    invoke,
    jsonl_events,
    logged_calls,
    tracker_records,
    write_script,
)

POLICY = """\
[[policy.rules]]
name = "components"
decision = "allow"
tool = "add_label"
labels = ["comp:*"]
after_untrusted = true

[[policy.rules]]
name = "no-severity"
decision = "deny"
tool = "add_label"
labels = ["severity:*"]
"""


def env_with_policy(tmp_path: Path, text: str = POLICY) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(text, encoding="utf-8")
    return atlas_env(home)


def test_what_a_rule_allows_runs_and_the_rest_is_denied_and_listed(tmp_path: Path) -> None:
    env = env_with_policy(tmp_path)
    asked = invoke("ask", "-m", "offline", "label #41 comp:worker, label #87 severity:S1, label #45 type:docs", env=env)
    assert asked.code == 0, asked
    assert_no_traceback(asked)
    assert "Not done: 2 actions denied" in asked.stderr
    assert "add_label(issue_id=87, label='severity:S1') — denied by rule no-severity" in asked.stderr
    assert "add_label(issue_id=45, label='type:docs') — no terminal to ask" in asked.stderr
    assert [(r["issue_id"], r["label"], r["decided_by"]) for r in tracker_records(env)] == [
        (41, "comp:worker", "rule:components")
    ]
    by_label = {call["arguments"]["label"]: call for call in logged_calls(env)}
    assert {label: (c["kind"], c["decided_by"]) for label, c in by_label.items()} == {
        "comp:worker": ("ok", "rule:components"),
        "severity:S1": ("denied", "rule:no-severity"),
        "type:docs": ("denied", "no-terminal"),
    }
    table = invoke("log", env=env)
    assert "ok · rule:components" in table.stdout and "denied · no-terminal" in table.stdout
    shown = invoke("tracker", env=env)
    assert "rule:components" in shown.stdout


def test_ask_json_says_who_decided_each_side_effect(tmp_path: Path) -> None:
    env = env_with_policy(tmp_path)
    asked = invoke("ask", "--json", "-m", "offline", "label #41 comp:api and label #41 severity:S1", env=env)
    assert asked.code == 0, asked
    calls = {call["arguments"]["label"]: call for call in json.loads(asked.stdout)["calls"]}
    assert (calls["comp:api"]["approved"], calls["comp:api"]["decided_by"]) == (True, "rule:components")
    assert (calls["severity:S1"]["approved"], calls["severity:S1"]["decided_by"]) == (False, "rule:no-severity")


def test_jsonl_is_one_event_per_line_and_exit_3_when_actions_were_denied(tmp_path: Path) -> None:
    env = env_with_policy(tmp_path)
    model = write_script(
        tmp_path,
        [
            {"calls": [{"name": "get_issue", "arguments": {"issue_id": 92}}]},
            {
                "calls": [
                    {"name": "add_label", "arguments": {"issue_id": 92, "label": "comp:core"}},
                    {"name": "post_comment", "arguments": {"issue_id": 92, "body": "As the issue asks: done."}},
                ]
            },
            {"text": "Labelled #92."},
        ],
    )
    asked = invoke("ask", "--jsonl", "-m", model, "triage #92", env=env)
    assert asked.code == 3, asked
    assert_no_traceback(asked)
    stream = jsonl_events(asked)
    names = [event["event"] for event in stream]
    assert names[0] == "question_started" and names[-1] == "finished"
    assert stream[-1]["exit_code"] == 3
    for expected in ("model_request", "model_response", "tool_started", "tool_finished", "approval_asked"):
        assert expected in names, names
    assert names.count("model_request") == 3
    read = next(e for e in stream if e["event"] == "tool_finished" and e["tool"] == "get_issue")
    assert read["kind"] == "ok" and isinstance(read["ms"], float)
    decided = {e["tool"]: e for e in stream if e["event"] == "approval_decided"}
    assert (decided["add_label"]["approved"], decided["add_label"]["decided_by"]) == (True, "rule:components")
    assert (decided["post_comment"]["approved"], decided["post_comment"]["decided_by"]) == (False, "no-terminal")
    [denied] = [e for e in stream if e["event"] == "action_denied"]
    assert denied["tool"] == "post_comment"
    answer = next(e for e in stream if e["event"] == "answer")
    assert answer["text"] == "Labelled #92." and answer["finished"] is True
    usage = next(e for e in stream if e["event"] == "usage")
    assert set(usage) >= {"input_tokens", "output_tokens", "cost_usd"}
    assert all(e["session"] == stream[0]["session"] for e in stream)
    assert "{" not in asked.stderr  # no event on stderr, only the notices a person reads


def test_jsonl_exits_0_when_nothing_was_denied(tmp_path: Path) -> None:
    asked = invoke("ask", "--jsonl", "-m", "offline", "label #41 comp:cli", env=env_with_policy(tmp_path))
    assert asked.code == 0, asked
    stream = jsonl_events(asked)
    assert stream[-1] == {**stream[-1], "event": "finished", "exit_code": 0}


def test_a_malformed_policy_stops_the_run_before_anything_runs(tmp_path: Path) -> None:
    env = env_with_policy(tmp_path, POLICY.replace('labels = ["comp:*"]', 'labels = ["comp:*"]\nmax_per_run = -1'))
    for flags in ((), ("--jsonl",)):
        asked = invoke("ask", *flags, "-m", "offline", "label #41 comp:cli", env=env)
        assert asked.code == 2, asked
        [line] = asked.stderr.splitlines()
        assert line.startswith("atlas: error: ") and "config.toml:6: rule 'components': max_per_run" in line
        if flags:
            assert [event["event"] for event in jsonl_events(asked)] == ["finished"]
        else:
            assert asked.stdout == ""
    assert logged_calls(env) == [] and tracker_records(env) == []
    checked = invoke("policy", "check", env=env)
    assert checked.code == 2 and "config.toml:6:" in checked.stderr


def test_jsonl_errors_go_to_stderr_and_the_stream_still_ends(tmp_path: Path) -> None:
    env = env_with_policy(tmp_path)
    asked = invoke("ask", "--jsonl", "-m", f"replay:{tmp_path / 'missing.json'}", "hello", env=env)
    assert asked.code in (1, 2), asked
    assert asked.stderr.startswith("atlas: error: ")
    assert jsonl_events(asked)[-1]["exit_code"] == asked.code
