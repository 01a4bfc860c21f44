"""`atlas issue N` and "show me #87": the whole issue, read as a person reads it, in a pager when it is long."""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Mapping
from pathlib import Path

import pexpect
import pytest

from atlas.offline.answer.issue_view import closed_fences, issue_markdown
from atlas.orbit.comments import PostCommentArgs, post_comment
from atlas.orbit.labels import AddLabelArgs, add_label
from atlas.tools.registry import ToolContext
from tests.support.run import Run, invoke
from tests.ui.test_terminal import HERE, terminal_env


@pytest.fixture(autouse=True)
def _terminal_tools_importable(monkeypatch: pytest.MonkeyPatch) -> None:
    """terminal_env names a tool module of tests/ui on PYTHONPATH, which an in-process run never reads."""
    monkeypatch.syspath_prepend(str(HERE))


def atlas(*args: str, env: Mapping[str, str] | None = None) -> Run:
    """`atlas ARGS` in this process, in this test's environment unless given another."""
    return invoke(*args, env=os.environ if env is None else env)


def recording_pager(tmp_path: Path) -> tuple[str, Path]:
    """A pager that keeps what it was given and says so: the test sees whether, and what, was paged."""
    seen = tmp_path / "paged.txt"
    script = tmp_path / "pager.py"
    script.write_text(
        f"import sys\ntext = sys.stdin.read()\nopen({str(seen)!r}, 'w').write(text)\n"
        "print('PAGER GOT', text.count(chr(10)), 'LINES')\n",
        encoding="utf-8",
    )
    return f"{sys.executable} {script}", seen


def test_the_whole_thread_in_json_with_what_atlas_added(atlas_home: Path) -> None:
    ctx = ToolContext(home=atlas_home, session="s1", idempotency_key="k1")
    add_label(AddLabelArgs(issue_id=87, label="severity:S1"), ctx)
    post_comment(
        PostCommentArgs(issue_id=87, body="Escalated: on-call owns it."),
        ToolContext(session="s1", idempotency_key="k2"),
    )
    done = atlas("issue", "87", "--json")
    assert done.returncode == 0, done.stderr
    data = json.loads(done.stdout)
    assert data["id"] == 87 and data["comment_count"] == 6 == len(data["comments"])
    assert "severity:S1" in data["labels"] and "severity:S2" not in data["labels"]
    assert data["labels_added_via_atlas"] == ["severity:S1"] and data["labels_removed_via_atlas"] == ["severity:S2"]
    assert data["comments"][-1]["body"] == "Escalated: on-call owns it." and data["comments"][-1]["via_atlas"] is True
    assert [c["n"] for c in data["comments"]] == [1, 2, 3, 4, 5, 6]


def test_piped_output_is_all_of_it_and_comments_only_when_asked(tmp_path: Path) -> None:
    pager, seen = recording_pager(tmp_path)
    env = terminal_env(PAGER=pager)
    bare = atlas("issue", "87", env=env)
    assert bare.returncode == 0, bare.stderr
    assert "#87 — Postgres broker" in bare.stdout
    assert "5 comments: `atlas issue 87 --comments` shows them" in bare.stdout
    full = atlas("issue", "87", "--comments", env=env)
    assert full.stdout.count("\n") > bare.stdout.count("\n") + 20 and "Comments (5 of 5)" in full.stdout
    assert not seen.exists()  # a pipe is never paged
    missing = atlas("issue", "4242", env=env)
    assert (missing.returncode, missing.stdout) == (1, "")
    assert missing.stderr == "atlas: error: there is no issue #4242 in Orbit\n"


def test_a_tall_issue_goes_to_the_pager_and_a_short_one_does_not(tmp_path: Path) -> None:
    pager, seen = recording_pager(tmp_path)
    child = pexpect.spawn(
        sys.executable,
        ["-m", "atlas", "issue", "87", "--comments"],
        env=terminal_env(PAGER=pager),
        encoding="utf-8",
        timeout=30,
        dimensions=(40, 120),
    )
    child.expect(r"PAGER GOT (\d+) LINES")
    assert int(child.match.group(1)) > 40
    child.expect(pexpect.EOF)
    paged = seen.read_text(encoding="utf-8")
    assert "#87 — Postgres broker" in paged and "Comments (5 of 5)" in paged
    seen.unlink()

    tall = pexpect.spawn(
        sys.executable,
        ["-m", "atlas", "issue", "87", "--comments", "--no-pager"],
        env=terminal_env(PAGER=pager),
        encoding="utf-8",
        timeout=30,
        dimensions=(40, 120),
    )
    tall.expect_exact("Comments (5 of 5)")
    tall.expect(pexpect.EOF)
    assert "PAGER GOT" not in (tall.before or "") and not seen.exists()

    short = pexpect.spawn(
        sys.executable,
        ["-m", "atlas", "issue", "41"],
        env=terminal_env(PAGER=pager, LINES="300"),
        encoding="utf-8",
        timeout=30,
        dimensions=(300, 120),
    )
    short.expect_exact("#41")
    short.expect(pexpect.EOF)
    assert not seen.exists()


def test_show_me_an_issue_offline_shows_the_body_and_every_comment() -> None:
    done = atlas("ask", "read issue 87 in full, with its comments", env=terminal_env())
    assert done.returncode == 0, done.stderr
    assert "Comments (1-5 of 5)" in done.stdout
    short = atlas("ask", "what is #87 about?", env=terminal_env())
    assert "Comments (" not in short.stdout


def test_an_excerpt_or_a_view_never_leaves_a_code_block_open() -> None:
    assert closed_fences("see:\n```toml\n[broker]\nurl = 1") == "see:\n```toml\n[broker]\nurl = 1\n```"
    assert closed_fences("```\na\n```\nafter") == "```\na\n```\nafter"
    view = issue_markdown({"id": 5, "title": "t", "body": "log:\n~~~~\nline", "comments": []})
    assert view.endswith("> line\n> ~~~~")


def test_json_escapes_c1_controls_and_bidi_overrides_like_every_other_json() -> None:
    import re

    done = atlas("issue", "66", "--json", "--comments")
    assert done.returncode == 0, done.stderr
    # Issue #66 holds C1 controls and bidi overrides: none may reach the terminal raw.
    assert not re.search("[\x00-\x09\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]", done.stdout)
    assert done.stdout.isascii()
    lines = Path("datasets/orbit/issues/issues.jsonl").read_text(encoding="utf-8").splitlines()
    raw = next(json.loads(line) for line in lines if line.startswith('{"id": 66,'))
    assert json.loads(done.stdout)["body"] == raw["body"]  # escaped, not altered


def test_a_hash_number_is_an_issue_and_a_pipe_gets_markdown(tmp_path: Path) -> None:
    done = atlas("issue", "#41", env=terminal_env())
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == "### #41 — Nightly rebuild runs twice when the job outlives its 900 s lease"
    assert "Labels: `comp:core`, `type:bug`" in lines
    assert any(line.startswith("> Our `nightly-rebuild`") for line in lines)
    assert "*5 comments: `atlas issue 41 --comments` shows them.*" in lines
    refused = atlas("issue", "#x41", env=terminal_env())
    assert refused.returncode == 2 and "written 41 or #41" in refused.stderr and "Traceback" not in refused.stderr
