"""Triage as a person runs it on a real terminal: several actions, one question, and only real changes asked."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from tests.support.run import atlas_env, finish, invoke, logged_calls, spawn_atlas, tracker_records, write_script

BATCH = re.compile(rb"Approve all (\d+) actions\? \[y/N, or their numbers, e\.g\. 1,3\] ")
TRIAGE: list[dict[str, Any]] = [
    {"name": "add_label", "arguments": {"issue_id": 41, "label": "severity:S2"}},
    {"name": "add_label", "arguments": {"issue_id": 41, "label": "comp:core"}},  # already there: not asked
    {"name": "add_label", "arguments": {"issue_id": 45, "label": "severity:S3"}},
    {"name": "remove_label", "arguments": {"issue_id": 41, "label": "type:bug"}},
    {"name": "add_label", "arguments": {"issue_id": 41, "label": "wontfix"}},  # refused: not asked
]


def triage_run(tmp_path: Path, *answers: bytes, early: bytes = b"") -> tuple[dict[str, str], str]:
    """One `ask` whose model proposes TRIAGE once per answer, each round's question answered in turn."""
    tmp_path.mkdir(parents=True, exist_ok=True)
    env = atlas_env(tmp_path / "home")
    model = write_script(tmp_path, [*({"calls": TRIAGE} for _ in answers), {"text": "Triaged."}])
    child = spawn_atlas("ask", "-m", model, "triage #41 and #45", env=env)
    screen = io.BytesIO()
    child.logfile_read = screen
    if early:
        child.send(early)  # typed before the question: must not answer it
    for answer in answers:
        child.expect(BATCH)
        assert child.match.group(1) == b"3"
        child.send(answer)
    child.expect("Triaged.")
    code, _ = finish(child)
    assert code == 0
    return env, screen.getvalue().decode("utf-8", errors="replace")


def test_a_number_out_of_range_denies_everything_then_a_selection_approves_those(tmp_path: Path) -> None:
    """One run asks about the same three changes twice: `1,7` names an item that is not there and
    denies all of them; `1,3` then approves those two."""
    env, screen = triage_run(tmp_path, b"1,7\r", b"1,3\r")
    listed, first, second = screen.split("Approve all 3 actions")
    assert "1. add_label(issue_id=41, label='severity:S2')" in listed
    assert "2. add_label(issue_id=45, label='severity:S3')" in listed
    assert "3. remove_label(issue_id=41, label='type:bug')" in listed
    assert "#41 (“" in listed and "labels: [comp:core, type:bug] → [comp:core] (remove type:bug)" in listed
    assert "comp:core')" not in listed.split("1. ", 1)[1] and "wontfix" not in listed.split("1. ", 1)[1]
    assert "all denied" in first and "approved" not in first
    assert "approved 1, 3; denied the others" in second
    # Approved actions run in parallel: their records may come in either order.
    assert sorted((r["action"], r["issue_id"], r["label"]) for r in tracker_records(env)) == [
        ("add_label", 41, "severity:S2"),
        ("remove_label", 41, "type:bug"),
    ]
    decided: dict[int, dict[tuple[int, str], tuple[str, bool | None]]] = {1: {}, 2: {}}
    for c in logged_calls(env):
        decided[c["round"]][(c["arguments"]["issue_id"], c["arguments"]["label"])] = (c["kind"], c["approved"])
    assert decided[1] == {
        (41, "severity:S2"): ("denied", False),
        (41, "comp:core"): ("ok", None),
        (45, "severity:S3"): ("denied", False),
        (41, "type:bug"): ("denied", False),
        (41, "wontfix"): ("permanent", None),
    }
    assert decided[2] == {
        (41, "severity:S2"): ("ok", True),
        (41, "comp:core"): ("ok", None),
        (45, "severity:S3"): ("denied", False),
        (41, "type:bug"): ("ok", True),
        (41, "wontfix"): ("permanent", None),
    }


def test_y_approves_all_and_keys_typed_before_the_question_never_answer_it(tmp_path: Path) -> None:
    env, screen = triage_run(tmp_path, b"y\r", early=b"1\r")
    assert "all approved" in screen
    done = [(r["action"], r["issue_id"], r["label"]) for r in tracker_records(env)]
    assert {
        ("add_label", 41, "severity:S2"),
        ("add_label", 45, "severity:S3"),
        ("remove_label", 41, "type:bug"),
    } <= set(done)
    env, screen = triage_run(tmp_path / "again", b"\r", early=b"y\r")
    assert "all denied" in screen and tracker_records(env) == []


def test_without_a_terminal_the_batch_is_denied_and_said_in_one_line(tmp_path: Path) -> None:
    env = atlas_env(tmp_path / "home")
    model = write_script(tmp_path, [{"calls": TRIAGE}, {"text": "Triaged."}])
    done = invoke("ask", "-m", model, "triage", env=env, stdin="y\n")
    assert done.returncode == 0, done.stderr
    assert "Approve all 3 actions? [y/N, or their numbers, e.g. 1,3] (no terminal, all 3 denied)" in done.stderr
    assert tracker_records(env) == []
