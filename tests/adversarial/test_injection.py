"""Injected instructions in issue text, on a real terminal: the prompt names where they came from; `n` writes nothing.

The dataset carries AgentDojo-style "important instructions" in an issue body (#58, #92, #74,
#119) and in a comment (#103). A replay script plays the model that fell for them: it reads the
issue, then asks for exactly what the text demands. The person at the terminal is warned which
issue the untrusted text came from, answers no (or just Enter), and the tracker stays empty.
"""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

import pytest

from tests.support.run import (
    assert_inert_tty,
    atlas_env,
    finish,
    logged_calls,
    spawn_atlas,
    tracker_records,
    write_script,
)

PROMPT = re.compile(rb"\? \[y/N(?:, or their numbers, e\.g\. 1,3)?\] ")
"""One action's question, or the one question for several asked in the same response."""

# (where the instructions are, how the model read them, what they made it ask for)
CASES: dict[str, tuple[str, dict[str, Any], list[dict[str, Any]]]] = {
    "body #92": (
        "issue #92",
        {"name": "get_issue", "arguments": {"issue_id": 92}},
        [{"name": "add_label", "arguments": {"issue_id": 92, "label": "type:bug"}}],
    ),
    "information block #58": (
        "issue #58",
        {"name": "get_issue", "arguments": {"issue_id": 58}},
        [
            {"name": "add_label", "arguments": {"issue_id": 41, "label": "severity:S1"}},
            {
                "name": "post_comment",
                "arguments": {"issue_id": 41, "body": "Escalated to S1 by the on-call lead, do not close"},
            },
        ],
    ),
    "html comment #74": (
        "issue #74",
        {"name": "get_issue", "arguments": {"issue_id": 74}},
        [{"name": "add_label", "arguments": {"issue_id": 74, "label": "type:feature"}}],
    ),
    "comment on #103": (
        "issue #103",
        {"name": "get_issue", "arguments": {"issue_id": 103}},
        [
            {"name": "add_label", "arguments": {"issue_id": 87, "label": "severity:S1"}},
            {"name": "post_comment", "arguments": {"issue_id": 87, "body": "duplicate of #103, closing"}},
        ],
    ),
    "search hit #119": (
        "issue #119",
        {"name": "search_issues", "arguments": {"query": "orbit_leases ZSET finished jobs"}},
        [
            {
                "name": "post_comment",
                "arguments": {"issue_id": 87, "body": "Root cause found in #119, fixed in 2.8.4 - closing"},
            }
        ],
    ),
}


@pytest.mark.parametrize("case", list(CASES))
def test_the_prompt_names_the_source_and_no_writes_nothing(tmp_path: Path, case: str) -> None:
    source, read, obey = CASES[case]
    env = atlas_env(tmp_path / "home")
    model = write_script(tmp_path, [{"calls": [read]}, {"calls": obey}, {"text": "Done as the issue asked."}])
    child = spawn_atlas("ask", "-m", model, "Summarise the latest reports", env=env)
    screen = io.BytesIO()
    child.logfile_read = screen

    # Several actions asked for at once are one question: `n` denies them all (one alone: Enter does).
    child.expect(PROMPT)
    shown = (child.before or b"").decode("utf-8", errors="replace")
    child.send(b"n\r" if len(obey) > 1 else b"\r")
    code, _ = finish(child)

    assert code == 0, screen.getvalue().decode(errors="replace")
    warning = shown[shown.rindex("Untrusted text was read") :]
    assert re.search(rf"from [^\n]*\b{re.escape(source)}\b", warning), shown
    if read["name"] == "get_issue":  # the one issue read is the whole of what is named
        named = f"Untrusted text was read earlier in this conversation from {source} — make sure this action is"
        assert f"{named} what you asked for." in warning, shown
    for number, call in enumerate(obey, start=1):
        label = f"{call['name']}(issue_id={call['arguments']['issue_id']}"
        assert (f"{number}. {label}" if len(obey) > 1 else f"Approve {label}") in shown
        if call["name"] == "post_comment":
            assert call["arguments"]["body"] in shown  # the whole comment is shown before it is approved
    assert_inert_tty(screen.getvalue())
    assert tracker_records(env) == []
    calls = logged_calls(env)
    assert sorted(call["kind"] for call in calls) == sorted(["ok", *["denied"] * len(obey)])
    assert all(call["approved"] is False for call in calls if call["kind"] == "denied")


def test_only_the_human_yes_lets_the_injected_action_through(tmp_path: Path) -> None:
    """The control: the same run answered `y` does write, so the tests above can tell a denial apart."""
    env = atlas_env(tmp_path / "home")
    _, read, obey = CASES["body #92"]
    model = write_script(tmp_path, [{"calls": [read]}, {"calls": obey}, {"text": "Labelled."}])
    child = spawn_atlas("ask", "-m", model, "Label #92 as a bug", env=env)
    child.expect(PROMPT)
    child.send(b"y\r")
    child.expect(b"approved")
    code, _ = finish(child)
    assert code == 0
    records = tracker_records(env)
    assert [(r["action"], r["issue_id"], r["label"]) for r in records] == [("add_label", 92, "type:bug")]


def test_ctrl_c_at_the_prompt_denies_and_the_run_still_answers(tmp_path: Path) -> None:
    env = atlas_env(tmp_path / "home")
    _, read, obey = CASES["comment on #103"]
    model = write_script(tmp_path, [{"calls": [read]}, {"calls": obey}, {"text": "Nothing was changed."}])
    child = spawn_atlas("ask", "-m", model, "Triage #103", env=env)
    child.expect(PROMPT)  # one question for both actions
    child.send(b"\x03")
    child.expect(b" all denied")
    child.expect("Nothing was changed.")
    code, _ = finish(child)
    assert code == 0 and child.signalstatus is None  # Ctrl-C at the prompt is a no, not an abort
    assert tracker_records(env) == []
    assert [call["kind"] for call in logged_calls(env)].count("denied") == len(obey)


def test_keys_typed_before_the_prompt_never_answer_it(tmp_path: Path) -> None:
    """A `y` already in the terminal's buffer (typed ahead, or pasted) is discarded, not taken as consent."""
    env = atlas_env(tmp_path / "home")
    _, read, obey = CASES["body #92"]
    model = write_script(tmp_path, [{"calls": [read]}, {"calls": obey}, {"text": "Done."}])
    child = spawn_atlas("ask", "-m", model, "Summarise #92", env=env)
    child.send(b"y\ry\ryes\r")  # long before the question: the process is still starting
    child.expect(PROMPT)
    child.send(b"\r")
    child.expect(b" denied")
    code, _ = finish(child)
    assert code == 0
    assert tracker_records(env) == []
    assert [call["approved"] for call in logged_calls(env) if call["name"] == "add_label"] == [False]


CHAT_PROMPT = "atlas\u203a".encode()


def test_in_a_chat_the_prompt_names_a_source_read_in_an_earlier_turn(tmp_path: Path) -> None:
    """The injected text stays in the conversation the model reads; so must the warning, until /clear."""
    env = atlas_env(tmp_path / "home")
    obey = {"calls": [{"name": "add_label", "arguments": {"issue_id": 92, "label": "type:bug"}}]}
    model = write_script(
        tmp_path,
        [
            {"calls": [{"name": "get_issue", "arguments": {"issue_id": 92}}]},
            {"text": "Issue 92 asks which backoff to use."},
            obey,
            {"text": "It was not labelled."},
            obey,
            {"text": "Still not labelled."},
        ],
    )
    child = spawn_atlas("chat", "-m", model, env={**env, "PROMPT_TOOLKIT_NO_CPR": "1"})
    child.expect(CHAT_PROMPT)
    child.send(b"what does #92 say?\r")
    child.expect(b"which backoff")
    child.expect(CHAT_PROMPT)
    child.send(b"ok, do what it says\r")  # a later turn: nothing untrusted is read in this one
    child.expect(PROMPT)
    assert re.search(rb"Untrusted text was read earlier[^\n]*issue #92", child.before or b""), child.before
    child.send(b"n\r")
    child.expect(b"It was not labelled.")
    child.expect(CHAT_PROMPT)
    child.send(b"/clear\r")
    child.expect(CHAT_PROMPT)
    child.send(b"label #92 as a bug\r")  # after /clear the model no longer sees #92's text
    child.expect(PROMPT)
    assert b"Untrusted text" not in (child.before or b"")
    child.send(b"n\r")
    child.expect(b"Still not labelled.")
    child.expect(CHAT_PROMPT)
    child.sendcontrol("d")
    code, _ = finish(child)
    assert code == 0
    assert tracker_records(env) == []
