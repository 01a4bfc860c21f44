"""A rule's `pattern` cannot freeze Atlas: a model's comment against a catastrophic pattern is decided
in bounded time (a person decides), and `--deadline` and SIGTERM keep working meanwhile.

Real `atlas ask` processes, as a headless run meets them: the model is a replay script that posts
comments crafted against the pattern (`(a+)+$` froze Python's `re` for hours on 37 `a`s and a `!`).
"""

from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import time
from pathlib import Path
from typing import Any

import pytest

from tests.support.run import atlas_env, start_atlas, tracker_records, write_script

CRAFTED = "a" * 37 + "!"
ISSUES = (41, 45, 62, 80, 87, 92, 132, 135, 139, 150)


def env_with_rules(tmp_path: Path, patterns: list[str]) -> dict[str, str]:
    home = tmp_path / "home"
    home.mkdir()
    rules = [
        f'[[policy.rules]]\nname = "template-{n}"\ndecision = "allow"\ntool = "post_comment"\npattern = \'{p}\'\n'
        for n, p in enumerate(patterns)
    ]
    (home / "config.toml").write_text("\n".join(rules), encoding="utf-8")
    return atlas_env(home)


def comments_on_every_issue(tmp_path: Path, rounds: int = 1) -> str:
    calls = [{"name": "post_comment", "arguments": {"issue_id": issue, "body": CRAFTED}} for issue in ISSUES]
    return write_script(tmp_path, [{"calls": calls}] * rounds + [{"text": "Thanked everyone."}])


def stream(process: subprocess.Popen[bytes], until: float) -> list[dict[str, Any]]:
    """The `--jsonl` events the process writes before it exits, or `until` (then it is killed: frozen)."""
    assert process.stdout is not None
    out = b""
    while time.monotonic() < until:
        ready, _, _ = select.select([process.stdout], [], [], 0.1)
        chunk = os.read(process.stdout.fileno(), 65536) if ready else b""
        if ready and not chunk:
            break
        out += chunk
    else:
        os.killpg(process.pid, signal.SIGKILL)
        process.wait()
        pytest.fail(f"atlas was still running after the time it had: {out[-300:]!r}")
    process.wait(timeout=5)
    return [json.loads(line) for line in out.splitlines()]


@pytest.mark.parametrize("pattern", ["(a+)+$", "^(a|aa)+$"])
def test_a_catastrophic_pattern_leaves_the_comment_to_a_person_within_the_deadline(
    tmp_path: Path, pattern: str
) -> None:
    env = env_with_rules(tmp_path, [pattern])
    model = comments_on_every_issue(tmp_path)
    started = time.monotonic()
    process = start_atlas("ask", "--jsonl", "--deadline", "3", "-m", model, "thank everyone", env=env)
    events = stream(process, started + 30)  # `re` took hours; a run that ends was not frozen
    assert process.returncode == 3, events[-3:]
    decided = [e for e in events if e["event"] == "action_denied"]
    assert sorted(e["arguments"]["issue_id"] for e in decided) == sorted(ISSUES)
    assert {e["decided_by"] for e in decided} == {"no-terminal"}  # nobody at a terminal: nothing posted
    if pattern.startswith("^"):  # too slow even for the bounded matcher: the question says why
        notes = {e.get("note") for e in events if e["event"] == "approval_asked"}
        assert any("template-0's pattern" in str(note) and "took too long" in str(note) for note in notes), notes
    assert tracker_records(env) == []


def test_sigterm_ends_a_run_whose_rules_are_all_catastrophic(tmp_path: Path) -> None:
    env = env_with_rules(tmp_path, ["^(a|aa)+$", "(a|aa)+", r"(\w|\w\w)+$", "^(a|aa)+$ ", "(a|aa)+ "] * 2)
    process = start_atlas("ask", "--jsonl", "-m", comments_on_every_issue(tmp_path, rounds=5), "thank", env=env)
    assert process.stdout is not None
    seen = b""
    deadline = time.monotonic() + 30
    while b'"model_response"' not in seen:  # the comments are being decided now
        assert time.monotonic() < deadline, seen[-300:]
        ready, _, _ = select.select([process.stdout], [], [], 0.1)
        seen += os.read(process.stdout.fileno(), 65536) if ready else b""
    time.sleep(0.3)
    process.send_signal(signal.SIGTERM)
    stopped = time.monotonic()
    stream(process, stopped + 5)
    assert process.returncode != 0
    assert time.monotonic() - stopped < 5
    assert tracker_records(env) == []


def test_policy_check_names_a_rule_whose_example_its_pattern_cannot_decide(tmp_path: Path) -> None:
    env = env_with_rules(tmp_path, ["^(a|aa)+$"])
    config = Path(env["ATLAS_HOME"]) / "config.toml"
    example = f'must_not_match = [{{ tool = "post_comment", args = {{ issue_id = 41, body = "{CRAFTED}" }} }}]\n'
    config.write_text(config.read_text(encoding="utf-8") + example, encoding="utf-8")
    started = time.monotonic()
    process = start_atlas("policy", "check", env=env)
    try:
        out, _ = process.communicate(timeout=30)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        pytest.fail("atlas policy check was still matching after 30 s")
    assert time.monotonic() - started < 30 and process.returncode == 1, out
    assert "✗ template-0" in out.decode() and "its pattern took too long to match" in out.decode()
