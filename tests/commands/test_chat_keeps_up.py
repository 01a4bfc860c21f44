"""A chat that keeps up: references, /model, /read-only and footers on a real pseudo-terminal; --continue
(decided before the chat reads a line) in-process."""

from __future__ import annotations

import json
import os
import re
from pathlib import Path

import pexpect

from atlas.conversation.chat_memory import FILE_NAME, MAX_TURNS, bounded
from tests.commands.test_chat import PROMPT, spawn_chat
from tests.support.run import invoke


def approve(child: pexpect.spawn) -> None:
    child.expect(r"\[y/N\]")
    child.sendline("y")


def tracker_records() -> list[dict[str, object]]:
    path = Path(os.environ["ATLAS_HOME"]) / "tracker_actions.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def test_read_only_wording_offline_footer_comment_on_it_and_on_the_first_one_then_a_model_switch(
    tmp_path: Path,
) -> None:
    """One person's chat: read-only at first, then references to what was shown, then another model."""
    script = tmp_path / "replay.json"
    script.write_text(json.dumps({"turns": [{"text": "From the replay."}]}), encoding="utf-8")
    child = spawn_chat("-m", "offline", "--read-only")
    child.expect_exact("atlas (read-only)›")
    child.sendline("label #41 comp:core")
    child.expect(r"/read-only off`? turns it off")  # the chat's own switch, before the flag
    child.expect(r"1 round · 0 calls · \d+\.\d\d s(\x1b\[0m)?\r?\n")  # no "0 → 0 tokens · $0.0000" offline
    child.expect_exact("atlas (read-only)›")
    child.sendline("/read-only off")
    child.expect_exact("read-only off")
    child.expect_exact(PROMPT)

    child.sendline("show issue #41")
    child.expect_exact("Nightly rebuild runs twice")
    child.expect_exact(PROMPT)
    child.sendline("comment on it: Looking into it.")
    approve(child)
    child.expect_exact("Done: posted your comment on #41")
    child.expect_exact(PROMPT)
    child.sendline("find open issues about lease expiry")
    child.expect(r"\d+ issues matched|The first \d+ matches")
    child.expect_exact(PROMPT)
    child.sendline("comment on the first one: Same here.")
    approve(child)
    child.expect_exact("Done: posted your comment on #50")
    child.expect_exact(PROMPT)

    child.sendline("/model offlne")
    child.expect_exact("unknown model 'offlne': did you mean --model offline?")
    child.sendline(f"/model replay:{script}")
    child.expect_exact(f"replay:{script}")  # the new header names the model
    child.sendline("anything")
    child.expect_exact("From the replay.")
    child.expect_exact(PROMPT)
    child.sendeof()
    child.expect(pexpect.EOF)
    assert [(r["issue_id"], r["body"]) for r in tracker_records()] == [(41, "Looking into it."), (50, "Same here.")]


def test_continue_takes_up_the_last_conversation() -> None:
    # Not about the terminal: the kept conversation is read before the chat reads a line.
    first = invoke("chat", "-m", "offline", env=os.environ, stdin="show issue #41\n")
    assert first.returncode == 0, first.stderr
    later = invoke("chat", "--continue", env=os.environ, stdin="label it comp:docs\n")
    assert later.returncode == 0, later
    assert re.search(r"continuing session \d{4}-\d{6}-[0-9a-f]{4}: 1 earlier turn", later.stdout), later
    # "it" is #41, named in the kept conversation.
    assert re.search(r"add_label\(issue_id=41, label='comp:docs'\)", later.output), later


def test_continue_without_a_kept_chat_and_with_a_planted_link(tmp_path: Path) -> None:
    # Not about the terminal: what `--continue` finds is decided before the chat reads a line.
    fresh = invoke("chat", "-m", "offline", "--continue", env=os.environ, stdin="")
    assert fresh.returncode == 0, fresh
    assert "No earlier conversation to continue: starting afresh." in fresh.stdout, fresh
    home = Path(os.environ["ATLAS_HOME"])
    target = tmp_path / "elsewhere.json"
    target.write_text("{}", encoding="utf-8")
    (home / FILE_NAME).symlink_to(target)
    planted = invoke("chat", "-m", "offline", "--continue", env=os.environ, stdin="show issue #41\n")
    assert planted.returncode == 0, planted
    # The warning wraps at the console's width: any run of whitespace may be a line break.
    words = (
        "atlas:",
        "warning:",
        "the",
        "last",
        "chat",
        "in",
        ".*",
        "cannot",
        "be",
        "read:",
        ".*symbolic",
        "link.*starting",
        "afresh",
    )
    assert re.search("(?s)" + r"\s+".join(words), planted.stderr), planted
    assert "Nightly rebuild runs twice" in planted.stdout, planted  # and the chat went on
    assert target.read_text(encoding="utf-8") == "{}"  # never written through the link


def test_the_kept_chat_is_bounded_by_whole_turns() -> None:
    turns = [
        [{"role": "user", "content": f"q{n}"}, {"type": "function_call", "call_id": f"c{n}"}, {"role": "assistant"}]
        for n in range(MAX_TURNS + 5)
    ]
    kept = bounded([item for turn in turns for item in turn])
    assert len(kept) == 3 * MAX_TURNS and kept[0] == {"role": "user", "content": "q5"}


def test_one_comment_is_singular() -> None:
    done = invoke("ask", "-m", "offline", "show issue #16", env=os.environ)
    assert "· 1 comment\n" in done.stdout and "1 comments" not in done.stdout
