"""`kill -9` in the middle of tracker writes and call-log writes: nothing before the crash is lost.

A writer process prints each record's number once the record is on disk; it is killed with
SIGKILL at a random moment. Every acknowledged record must then be there, whole, in order, and
at most the one in flight may be missing. A line torn by a crash is skipped with a warning, and
the next run writes and reads normally.
"""

from __future__ import annotations

import io
import os
import random
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.support.run import (
    FIXTURES,
    assert_no_traceback,
    atlas_env,
    finish,
    invoke,
    logged_calls,
    spawn_atlas,
    start_atlas,
    tracker_records,
    write_script,
)


def kill_writer_midway(script: str, home: Path, rng: random.Random) -> int:
    """Start a writer, SIGKILL it at a random moment once it is going; the last number it acknowledged."""
    writer = subprocess.Popen(
        [sys.executable, str(FIXTURES / script), str(home)],
        stdout=subprocess.PIPE,
        env=atlas_env(home),
        start_new_session=True,
    )
    assert writer.stdout is not None
    first = writer.stdout.readline()  # the writer is running and has written once
    assert first.strip() == b"0", first
    time.sleep(rng.uniform(0.05, 0.4))
    os.kill(writer.pid, signal.SIGKILL)
    rest, _ = writer.communicate(timeout=10)
    assert writer.returncode == -signal.SIGKILL
    acknowledged = [int(line) for line in (first + rest).split() if line.strip().isdigit()]
    # The very last line printed may itself be torn by the kill; numbers before it are whole.
    return acknowledged[-1]


@pytest.mark.parametrize("seed", [1, 2])
def test_tracker_writes_survive_sigkill(tmp_path: Path, seed: int) -> None:
    home = tmp_path / "home"
    last = kill_writer_midway("tracker_writer.py", home, random.Random(seed))
    env = atlas_env(home)

    records = tracker_records(env)
    numbers = [int(record["body"].split()[1]) for record in records]
    assert numbers == list(range(len(numbers))), "records out of order or with a gap"
    assert last + 1 <= len(numbers) <= last + 2, (last, len(numbers))  # at most the one in flight is lost
    assert all(record["action"] == "post_comment" and record["issue_id"] == 41 for record in records)
    assert all(len(record["body"]) == len(f"record {n} ") + 6000 for n, record in zip(numbers, records, strict=True))


def test_calllog_writes_survive_sigkill(tmp_path: Path) -> None:
    home = tmp_path / "home"
    last = kill_writer_midway("calllog_writer.py", home, random.Random(3))
    env = atlas_env(home)

    calls = logged_calls(env)
    numbers = sorted(int(call["call_id"][1:]) for call in calls)
    assert numbers == list(range(len(numbers)))
    assert last + 1 <= len(numbers) <= last + 2, (last, len(numbers))
    assert all(call["arguments"]["padding"] == "x" * 2000 for call in calls)
    # The next run logs on top of what the crash left.
    asked = invoke("ask", "-m", "offline", "show issue #41", env=env)
    assert asked.code == 0, asked
    assert "warning" not in asked.stderr
    assert len(logged_calls(env)) == len(calls) + 1


def test_a_torn_tracker_line_is_skipped_with_a_warning_and_the_next_run_writes(tmp_path: Path) -> None:
    home = tmp_path / "home"
    last = kill_writer_midway("tracker_writer.py", home, random.Random(4))
    actions = home / "tracker_actions.jsonl"
    whole = actions.read_bytes()
    # What a crash in the middle of a write leaves behind: half a record, no newline.
    with actions.open("ab") as file:
        file.write(b'{"ts":"2026-11-30T12:00:00.000Z","key":"torn","action":"post_comment","issue_id":41,"bo')
    env = atlas_env(home)

    shown = invoke("tracker", env=env)
    assert shown.code == 0, shown
    assert_no_traceback(shown)
    assert f"skipped 1 torn or corrupt line(s) in {actions}" in shown.stderr
    assert shown.stdout.count("post_comment") >= last + 1

    # The next run approves a comment: it lands on a line of its own, after the torn one.
    model = write_script(
        tmp_path,
        [
            {"calls": [{"name": "post_comment", "arguments": {"issue_id": 87, "body": "after the crash"}}]},
            {"text": "Posted."},
        ],
    )
    child = spawn_atlas("ask", "-m", model, "Comment on #87", env=env)
    child.expect(rb"\[y/N\] ")
    child.send(b"y\r")
    child.expect(b"approved")
    code, _ = finish(child)
    assert code == 0
    records = tracker_records(env)
    assert records[-1]["issue_id"] == 87 and records[-1]["body"] == "after the crash"
    assert len(records) == whole.count(b"\n") + 1
    assert actions.read_bytes().startswith(whole)  # nothing before the crash was rewritten


def test_a_real_ask_killed_mid_run_leaves_a_readable_log_and_the_next_run_works(tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = atlas_env(home, ATLAS_TOOL_MODULES="adversarial_tools")
    rounds = [
        {
            "calls": [
                {"name": "get_issue", "arguments": {"issue_id": 41}},
                {"name": "pause", "arguments": {"seconds": 0.05}},
            ]
        }
    ] * 40
    model = write_script(tmp_path, [*rounds, {"text": "never reached"}])
    process = start_atlas("ask", "-m", model, "--max-rounds", "50", "Read #41 forever", env=env)
    deadline = time.monotonic() + 30
    while len(logged_calls(env)) < 6:
        assert process.poll() is None and time.monotonic() < deadline, "the run ended before it was killed"
        time.sleep(0.05)
    os.kill(process.pid, signal.SIGKILL)
    process.communicate(timeout=10)

    calls = logged_calls(env)
    assert len(calls) >= 6
    assert {call["name"] for call in calls} == {"get_issue", "pause"}
    # A repeated read of #41 within its TTL is answered from the conversation's cache (0 attempts).
    assert all(call["kind"] == "ok" and (call["attempts"] == 1 or call["message"] == "cached") for call in calls)
    table = invoke("log", "-n", "100", env=env)
    assert table.code == 0 and "get_issue" in table.stdout

    again = invoke("ask", "-m", "offline", "show issue #87", env=env)
    assert again.code == 0, again
    assert_no_traceback(again)
    assert "#87" in again.stdout
    assert len(logged_calls(env)) == len(calls) + 1


@pytest.mark.parametrize("delay", [0.0, 0.02])
def test_an_ask_killed_right_after_a_yes_leaves_the_record_whole_or_absent(tmp_path: Path, delay: float) -> None:
    env = atlas_env(tmp_path / "home")
    model = write_script(
        tmp_path,
        [
            {"calls": [{"name": "post_comment", "arguments": {"issue_id": 41, "body": "y" * 3000}}]},
            {"text": "Posted."},
        ],
    )
    child = spawn_atlas("ask", "-m", model, "Comment on #41", env=env)
    screen = io.BytesIO()
    child.logfile_read = screen
    child.expect(rb"\[y/N\] ")
    child.send(b"y\r")
    time.sleep(delay)
    child.kill(signal.SIGKILL)
    child.close(force=True)

    records = tracker_records(env)
    assert len(records) <= 1
    if records:
        assert records[0]["body"] == "y" * 3000 and records[0]["issue_id"] == 41
    shown = invoke("tracker", env=env)
    assert shown.code == 0 and "skipped" not in shown.stderr


def test_corrupt_tracker_lines_of_every_kind_are_skipped_and_counted(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    good = b'{"ts":"2026-11-30T12:00:00.000Z","key":"k1","action":"add_label","issue_id":41,"label":"type:bug"}'
    corrupt = [
        b"not json at all",
        b"[" * 50_000 + b"]" * 50_000,  # valid JSON nested deeper than a parser follows
        b'{"action": "add_label", "issue_id": "41"}',
        b'["add_label", 41]',
        b"\xff\xfe\x00garbage",
        b'{"action": "close_issue", "issue_id": 41}',
    ]
    (home / "tracker_actions.jsonl").write_bytes(b"\n".join([good, *corrupt, good.replace(b"k1", b"k2")]) + b"\n")
    env = atlas_env(home)

    shown = invoke("tracker", env=env)
    assert shown.code == 0, shown
    assert_no_traceback(shown)
    assert f"skipped {len(corrupt)} torn or corrupt line(s)" in shown.stderr
    assert shown.stdout.count("add_label") == 2
    # The tools that read the tracker keep working too.
    asked = invoke("ask", "-m", "offline", "show issue #41", env=env)
    assert asked.code == 0, asked
    assert_no_traceback(asked)
    assert "Nightly rebuild runs twice" in " ".join(asked.stdout.split())
