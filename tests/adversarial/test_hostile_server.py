"""A hostile or broken model server behind the real openai SDK and the real CLI, on loopback.

Call ids of every wrong shape, token usage no request can have used, and a completed response
with nothing in it: each run either answers (exit 0) with every call logged on its own row, or
fails with one `atlas: error:` line naming the server — never a traceback, never a lost call.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from tests.adversarial.sse_server import ScriptedSSE, function_calls, response, text_answer, usage
from tests.support.run import (
    assert_no_traceback,
    atlas_env,
    finish,
    invoke,
    logged_calls,
    spawn_atlas,
    tracker_records,
)

ANSWER = "Issue #41 is about leases that expire under load."
READ_41 = {"name": "get_issue", "arguments": json.dumps({"issue_id": 41})}


def ask(server: ScriptedSSE, home: Path, *args: str) -> tuple[Any, dict[str, str]]:
    env = atlas_env(home, OPENAI_BASE_URL=server.url, OPENAI_API_KEY="test-key")
    return invoke("ask", "-m", "gpt-hostile", "--read-only", *args, "What is #41 about?", env=env), env


def test_call_ids_of_every_wrong_shape_get_their_own_row_and_answer(tmp_path: Path) -> None:
    given: list[Any] = [None, 7, {"id": "x"}, ["x"], "", "dup", "dup", "call_ok"]
    calls = [{**READ_41, "call_id": call_id} for call_id in given] + [READ_41]  # the last has no call_id at all
    with ScriptedSSE([function_calls(calls), text_answer(ANSWER)]) as server:
        asked, env = ask(server, tmp_path / "home", "--json")

    assert asked.code == 0, asked
    assert_no_traceback(asked)
    result = json.loads(asked.stdout)
    assert result["answer"] == ANSWER
    ids = [call["call_id"] for call in result["calls"]]
    assert len(ids) == len(set(ids)) == len(calls) and all(isinstance(i, str) and i for i in ids)
    assert "call_ok" in ids and "dup" in ids
    logged = logged_calls(env)
    assert sorted(call["call_id"] for call in logged) == sorted(ids)
    assert all(call["kind"] == "ok" for call in logged)

    # The model is answered under its own ids where it gave usable ones, every call exactly once.
    sent = server.bodies[1]["input"]
    asked_for = [item["call_id"] for item in sent if item.get("type") == "function_call"]
    answered = [item["call_id"] for item in sent if item.get("type") == "function_call_output"]
    assert sorted(asked_for) == sorted(answered)
    assert asked_for.count("dup") == 2 and "call_ok" in asked_for
    assert all(isinstance(call_id, str) and call_id for call_id in asked_for)
    assert not any("model_call_id" in item for item in sent)


def test_an_approved_write_under_an_object_call_id_is_done_once_and_logged(tmp_path: Path) -> None:
    label = {"name": "add_label", "arguments": json.dumps({"issue_id": 41, "label": "severity:S1"})}
    with ScriptedSSE([function_calls([{**label, "call_id": {"id": 1}}]), text_answer("Labelled #41.")]) as server:
        env = atlas_env(tmp_path / "home", OPENAI_BASE_URL=server.url, OPENAI_API_KEY="test-key")
        child = spawn_atlas("ask", "-m", "gpt-hostile", "Label #41 as S1", env=env)
        child.expect(rb"\[y/N\] ")
        child.send(b"y\r")
        code, rest = finish(child)

    assert code == 0, rest
    assert b"Traceback" not in rest and b"unexpected" not in rest
    assert b"Labelled #41." in rest
    assert [(r["action"], r["issue_id"]) for r in tracker_records(env)] == [("add_label", 41)]
    (logged,) = logged_calls(env)
    assert logged["name"] == "add_label" and logged["kind"] == "ok" and logged["approved"] is True


@pytest.mark.parametrize(
    "figures",
    [(-5, -7), (10**400, 3), ("12", "many"), (1e308, 2.5), (None, 40)],
    ids=["negative", "huge", "strings", "floats", "null"],
)
def test_hostile_usage_never_fails_an_answered_turn_or_shows_a_negative_cost(
    tmp_path: Path, figures: tuple[Any, Any]
) -> None:
    with ScriptedSSE([text_answer(ANSWER, usage=usage(*figures))]) as server:
        asked, _ = ask(server, tmp_path / "home")

    assert asked.code == 0, asked
    assert_no_traceback(asked)
    assert ANSWER in asked.stdout
    footer = asked.stderr.strip().splitlines()[-1]  # on a pipe, progress and the footer go to stderr
    assert "-" not in footer.replace(" · ", " ").replace("→", ""), footer
    assert "cost unknown" in footer, footer
    assert f"atlas: warning: {server.url} reported unusable token usage" in asked.stderr


@pytest.mark.parametrize(
    "completed",
    [
        {"type": "response.completed", "response": None},
        {"type": "response.completed", "response": {k: v for k, v in response().items() if k != "output"}},
        {"type": "response.completed"},
    ],
    ids=["null-response", "no-output", "no-response"],
)
def test_a_malformed_completed_response_is_one_line_naming_the_server(
    tmp_path: Path, completed: dict[str, Any]
) -> None:
    events = [{"type": "response.created", "response": response("in_progress")}, completed]
    with ScriptedSSE([events]) as server:
        asked, _ = ask(server, tmp_path / "home")

    assert asked.code == 1, asked
    assert_no_traceback(asked)
    errors = [line for line in asked.stderr.splitlines() if line.startswith("atlas: error: ")]
    assert len(errors) == 1, asked
    assert "malformed response" in errors[0] and server.url in errors[0], asked
    assert "unexpected" not in asked.stderr
