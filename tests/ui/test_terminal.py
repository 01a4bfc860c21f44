"""`atlas ask` on a real pseudo-terminal: approvals, live rows, Ctrl-C, and nothing unsafe on screen."""

from __future__ import annotations

import json
import os
import re
import sys
import time
from pathlib import Path
from typing import Any

import pexpect
import pytest
from llmock.scenarios import Delay

from atlas.tracker.journal import MockTracker
from tests.support.run import invoke

HERE = Path(__file__).resolve().parent
LABEL_41 = "label #41 severity:S1"
GAP = r"(?:\s|\x1b\[[0-9;]*m)+"
"""Spaces between cells, and the bold/dim codes that Rich still writes under NO_COLOR."""


@pytest.fixture
def home(atlas_home: Path) -> Path:
    return atlas_home


def terminal_env(**extra: str) -> dict[str, str]:
    env = dict(os.environ)
    env.update(
        NO_COLOR="1",
        COLUMNS="120",
        LINES="40",
        TERM="xterm-256color",
        PYTHONPATH=os.pathsep.join(filter(None, [str(HERE), env.get("PYTHONPATH", "")])),
        ATLAS_TOOL_MODULES="atlas_slow_tools",
    )
    env.update(extra)
    return env


def spawn(*args: str, timeout: float = 20) -> pexpect.spawn:
    return pexpect.spawn(
        sys.executable,
        ["-m", "atlas", *args],
        env=terminal_env(),
        encoding="utf-8",
        timeout=timeout,
        dimensions=(40, 120),
    )


def replay(tmp_path: Path, turns: list[Any]) -> str:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    return f"replay:{path}"


def finish(child: pexpect.spawn) -> str:
    child.expect(pexpect.EOF)
    child.close()
    return str(child.before)


def test_anything_but_yes_denies_and_yes_approves_and_writes_exactly_one_record(tmp_path: Path, home: Path) -> None:
    """One run asks five times; Ctrl-D, Ctrl-C, n and Enter each deny their own action, and the
    run goes on to ask the next one; then `y` approves the first action asked again, and only it is
    written (Ctrl-C at a run's first question: `tests/adversarial/test_injection.py`)."""
    keys = {41: "\x04", 87: "\x03", 50: "n\r", 16: "\r"}
    turns: list[Any] = [
        {"calls": [{"name": "add_label", "arguments": {"issue_id": issue, "label": "severity:S1"}}]}
        for issue in [*keys, 41]
    ]
    child = spawn("ask", "-m", replay(tmp_path, [*turns, {"text": "one of them was done"}]), "label them S1")
    for issue, key in keys.items():
        child.expect_exact(f"Approve add_label(issue_id={issue}, label='severity:S1')? [y/N] ")
        child.send(key)
        child.expect(rf"add_label\(issue_id={issue}, label='severity:S1'\){GAP}denied")
    child.expect_exact("Approve add_label(issue_id=41, label='severity:S1')? [y/N] ")
    asked = " ".join(str(child.before).split())  # the preview as words, however the terminal folded it
    assert "#41 (“" in asked and "labels: [comp:core, type:bug] → [comp:core, type:bug, severity:S1]" in asked
    child.send("y\r")
    child.expect_exact("approved")
    rest = finish(child)
    assert child.exitstatus == 0  # a denied side effect is not a failure
    assert "Traceback" not in rest
    for issue in keys:
        assert f"add_label(issue_id={issue}, label='severity:S1') — denied at the terminal" in rest
    records = MockTracker(home).records()
    assert [(r["action"], r["issue_id"], r["label"]) for r in records] == [("add_label", 41, "severity:S1")]


def test_piped_yes_on_a_terminal_still_denies(home: Path) -> None:
    """Even with a controlling terminal present, an answer on stdin is never read as approval."""
    command = f"printf 'y\\n' | {sys.executable} -m atlas ask -m offline '{LABEL_41}'"
    child = pexpect.spawn("sh", ["-c", command], env=terminal_env(), encoding="utf-8", timeout=20)
    out = finish(child)
    assert "(no terminal, denied)" in out
    assert MockTracker(home).records() == []


def test_piped_yes_without_a_terminal_denies(home: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # Standard input a pipe holding "y": no terminal is asked, so the run needs no process of its own.
    monkeypatch.syspath_prepend(str(HERE))  # what the environment's PYTHONPATH gives a process
    done = invoke("ask", "-m", "offline", LABEL_41, env=terminal_env(), stdin="y\n")
    assert "could not be imported" not in done.stderr, done
    assert done.returncode == 0 and "(no terminal, denied)" in done.stderr
    assert MockTracker(home).records() == []


def test_fast_row_settles_while_slow_sibling_runs(tmp_path: Path) -> None:
    turns = [
        {"calls": [{"name": "nap", "arguments": {"seconds": 0.05}}, {"name": "nap", "arguments": {"seconds": 2.5}}]},
        {"text": "both napped"},
    ]
    child = spawn("ask", "-m", replay(tmp_path, turns), "nap twice")
    child.expect(rf"✓ nap\(seconds=0\.05\){GAP}ok{GAP}\d+ ms")
    settled_at = time.monotonic()
    # The same frame still shows the slow sibling running, with its elapsed time ticking.
    child.expect(rf"nap\(seconds=2\.5\){GAP}running{GAP}\d+\.\d s")
    child.expect(rf"✓ nap\(seconds=2\.5\){GAP}ok{GAP}2,\d\d\d ms")
    assert time.monotonic() - settled_at > 1.5
    child.expect(r"round 1: 2\.\d\d s wall, 2\.\d\d s of calls")
    out = finish(child)
    assert "both napped" in out
    assert child.exitstatus == 0


def test_ctrl_c_cancels_the_question_promptly(tmp_path: Path) -> None:
    turns = [{"calls": [{"name": "nap", "arguments": {"seconds": 30}}]}, {"text": "never"}]
    child = spawn("ask", "-m", replay(tmp_path, turns), "nap long", timeout=45)
    child.expect(rf"nap\(seconds=30(\.0)?\){GAP}running")
    started = time.monotonic()
    child.sendintr()
    child.expect_exact("cancelled")
    out = finish(child)
    # Well under the 30 s nap, with room for a slow exit on a loaded machine.
    assert time.monotonic() - started < 15  # the stuck tool thread does not hold the process
    assert child.exitstatus == 130
    assert "Traceback" not in out and "never" not in out


def test_the_wait_counts_then_the_answer_streams_then_renders_with_visible_links(llmock: Any) -> None:
    """One question to a slow model, as a person watches it: a live line counts the seconds of the
    wait, the answer shows as it arrives, then is replaced by its rendering, links spelled out."""
    words = " ".join(f"word{n}" for n in range(40))
    llmock.tool_mode("off")
    llmock.pace(40)
    llmock.add(Delay(3.0))
    llmock.reply(f"**Lease** expiry: {words}. See [the lease docs](https://orbit.example/leases).")
    child = spawn("ask", "-m", "gpt-6-luna", "What is a lease?")
    child.expect_exact("asking gpt-6-luna 1 s")
    child.expect_exact("asking gpt-6-luna 2 s")
    child.expect_exact("word3 ")
    first_words = time.monotonic()
    child.expect_exact("the lease docs (https://orbit.example/leases)")
    child.expect(r"1 round · 0 calls · \d+ → \d+ tokens · \$0\.\d{4}")
    assert time.monotonic() - first_words > 0.5  # text was on screen while the rest still arrived
    out = finish(child)
    assert child.exitstatus == 0
    assert "\x1b]8;" not in out
    assert [record.status for record in llmock.requests] == [200]  # one request, waited out


def colour_codes(out: str) -> list[str]:
    """SGR parameters that set a foreground or background colour."""
    found = []
    for params in re.findall(r"\x1b\[([0-9;]*)m", out):
        found += [p for p in params.split(";") if p and (30 <= int(p) <= 49 or 90 <= int(p) <= 107)]
    return found


def test_escape_fixtures_on_a_terminal_emit_only_our_own_styling_and_no_colour() -> None:
    """The issues whose text carries escapes, shown under NO_COLOR: none of the data's codes reach
    the terminal, and Rich's own are styling without colour; the same run in colour shows colour."""
    question = ("ask", "-m", "offline", "show issues #66, #111 and #124")
    child = spawn(*question)
    out = finish(child)
    assert child.exitstatus == 0
    assert "✓ get_issue(issue_id=66)" in re.sub(r"\x1b\[[0-9;]*m", "", out)
    assert "\x1b]" not in out  # no OSC at all: no hyperlink, no clipboard write, no title change
    assert "\x9b" not in out and "\x07" not in out and "\u202e" not in out
    assert "\x1b[2J" not in out and "\x1b[31m" not in out  # the data's own screen clear and colours
    assert "\\x1b]8;;https://evil.example" in out and "[link=https://evil.example]approve[/link]" in out
    # What remains are Rich's own codes: SGR styling and cursor/erase for the live rows.
    leftovers = re.sub(r"\x1b\[[0-9;]*[mAKG]|\x1b\[\?25[lh]", "", out)
    assert "\x1b" not in leftovers
    assert colour_codes(out) == []
    env = terminal_env()
    del env["NO_COLOR"]
    coloured = pexpect.spawn(
        sys.executable, ["-m", "atlas", *question], env=env, encoding="utf-8", timeout=20, dimensions=(40, 120)
    )
    assert colour_codes(finish(coloured)) != []  # the same run in colour: the check above can fail
