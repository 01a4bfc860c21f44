"""Four `atlas ask` processes at once, each approving writes on its own pseudo-terminal.

They share one state folder: the tracker file and the call log. Every approved action must be
recorded exactly once and whole, a label all four add lands once, and no process meets
"database is locked".
"""

from __future__ import annotations

import io
import json
import threading
from pathlib import Path
from typing import Any

from tests.support.run import atlas_env, finish, invoke, logged_calls, spawn_atlas, write_script

PROCESSES = 4
LABELS = ("severity:S1", "type:docs", "comp:scheduler", "comp:worker")
SHARED_LABEL = "comp:api"


def turns(index: int) -> list[dict[str, Any]]:
    first = [
        {"name": "get_issue", "arguments": {"issue_id": 41}},
        {"name": "post_comment", "arguments": {"issue_id": 41, "body": f"run {index} comment 1 " + "c" * 500}},
        {"name": "add_label", "arguments": {"issue_id": 41, "label": LABELS[index]}},
        {"name": "add_label", "arguments": {"issue_id": 41, "label": SHARED_LABEL}},
        {"name": "search_issues", "arguments": {"query": "lease expired"}},
        {"name": "post_comment", "arguments": {"issue_id": 87, "body": f"run {index} comment 2"}},
    ]
    second = [{"name": "post_comment", "arguments": {"issue_id": 92, "body": f"run {index} comment 3"}}]
    return [{"calls": first}, {"calls": second}, {"text": f"Run {index} done."}]


def approve_everything(index: int, env: dict[str, str], model: str, results: dict[int, tuple[int, bytes]]) -> None:
    child = spawn_atlas("ask", "-m", model, f"Triage run {index}", env=env, timeout=60)
    screen = io.BytesIO()
    child.logfile_read = screen
    # The first response's side effects are one question (the shared label may already be there,
    # added by another run, and then it is not asked); the second response's comment is another.
    for _ in range(2):
        child.expect(rb"\? \[y/N(?:, or their numbers, e\.g\. 1,3)?\] ")
        child.send(b"y\r")
        child.expect(b"approved")
    child.expect(f"Run {index} done.".encode())
    code, _ = finish(child)
    results[index] = (code, screen.getvalue())


def test_four_processes_approving_at_once_lose_nothing(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = atlas_env(home)
    models = [write_script(tmp_path, turns(index), f"run{index}.json") for index in range(PROCESSES)]
    results: dict[int, tuple[int, bytes]] = {}
    failures: list[BaseException] = []

    def drive(index: int) -> None:
        try:
            approve_everything(index, env, models[index], results)
        except BaseException as exc:
            failures.append(exc)

    workers = [threading.Thread(target=drive, args=(index,)) for index in range(PROCESSES)]
    for worker in workers:
        worker.start()
    for worker in workers:
        worker.join(90)
    assert not failures, failures
    assert sorted(results) == list(range(PROCESSES))
    for code, screen in results.values():
        text = screen.decode("utf-8", errors="replace")
        assert code == 0, text
        assert "locked" not in text.lower() and "Traceback" not in text

    # Every line of the tracker file is a whole record.
    lines = (home / "tracker_actions.jsonl").read_bytes().split(b"\n")
    assert lines[-1] == b""
    records = [json.loads(line) for line in lines[:-1]]
    comments = sorted(r["body"][: len("run 0 comment 1")] for r in records if r["action"] == "post_comment")
    assert comments == sorted(f"run {i} comment {n}" for i in range(PROCESSES) for n in (1, 2, 3))
    labels = sorted(r["label"] for r in records if r["action"] == "add_label")
    assert labels == sorted([*LABELS, SHARED_LABEL])  # the shared label is written once, by whoever came first
    assert len({r["key"] for r in records}) == len(records)
    shown = invoke("tracker", env=env)
    assert shown.code == 0 and "skipped" not in shown.stderr

    calls = logged_calls(env)
    assert len(calls) == PROCESSES * 7
    assert {call["kind"] for call in calls} == {"ok"}, [c for c in calls if c["kind"] != "ok"]
    # The shared label, once there, is not asked about again: those calls are answered unchanged, unasked.
    unasked = [c for c in calls if c["name"] in ("add_label", "post_comment") and c["approved"] is None]
    assert all(c["arguments"]["label"] == SHARED_LABEL for c in unasked)
    assert sum(call["approved"] is True for call in calls) + len(unasked) == PROCESSES * 5
    assert len({call["session"] for call in calls}) == PROCESSES
