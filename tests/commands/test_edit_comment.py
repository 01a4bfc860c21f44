"""`e` at a comment's prompt: the body opens in $VISUAL/$EDITOR, the edit is shown again, and only it is approved."""

from __future__ import annotations

import io
import re
import sys
from pathlib import Path
from typing import Any

from tests.support.run import atlas_env, finish, logged_calls, spawn_atlas, tracker_records, write_script

PROMPT = re.compile(rb"e: edit the text in \$VISUAL/\$EDITOR first[^\n]*\r?\n[^\n]*\? \[y/N\] ")
DRAFT: dict[str, Any] = {"name": "post_comment", "arguments": {"issue_id": 41, "body": "Draft: looks like a dup"}}


def editor(tmp_path: Path, new_text: str, *, exit_code: int = 0) -> str:
    """An editor that writes `new_text` into the file it is given (and notes what it was given)."""
    return editor_of(tmp_path, [(new_text, exit_code)])


def editor_of(tmp_path: Path, edits: list[tuple[str, int]]) -> str:
    """An editor whose n-th run writes the n-th text into the file it is given and exits with the
    n-th code (and notes what it was given in `was-N.txt`, N counted from 0)."""
    script = tmp_path / "editor.py"
    script.write_text(
        "import sys, pathlib\n"
        f"runs = pathlib.Path({str(tmp_path / 'runs.txt')!r})\n"
        "n = len(runs.read_text()) if runs.exists() else 0\n"
        "runs.write_text('x' * (n + 1))\n"
        f"text, code = {edits!r}[min(n, {len(edits) - 1})]\n"
        "path = pathlib.Path(sys.argv[1])\n"
        f"pathlib.Path({str(tmp_path)!r}, f'was-{{n}}.txt').write_text(path.read_text())\n"
        "path.write_text(text)\n"
        "sys.exit(code)\n",
        encoding="utf-8",
    )
    return f"{sys.executable} {script}"


def run(
    tmp_path: Path, editor_command: str, answers: list[bytes], drafts: tuple[dict[str, Any], ...] = (DRAFT,)
) -> tuple[dict[str, str], list[str]]:
    """One `ask` whose model drafts each comment of `drafts` in a round of its own, answered with `answers`."""
    env = atlas_env(tmp_path / "home", VISUAL=editor_command, EDITOR="false")
    model = write_script(tmp_path, [*({"calls": [draft]} for draft in drafts), {"text": "Done."}])
    child = spawn_atlas("ask", "-m", model, "comment on #41 that it looks like a dup", env=env)
    screen = io.BytesIO()
    child.logfile_read = screen
    shown: list[str] = []
    for answer in answers:
        child.expect(PROMPT)
        shown.append((child.before or b"").decode("utf-8", errors="replace"))
        child.send(answer)
    child.expect("Done.")
    code, _ = finish(child)
    assert code == 0
    return env, shown


def test_the_edited_body_is_shown_again_and_is_what_gets_posted_and_an_edit_then_denied_posts_nothing(
    tmp_path: Path,
) -> None:
    # One person, two drafts in one run: the first edited and approved, the second edited and denied.
    second: dict[str, Any] = {"name": "post_comment", "arguments": {"issue_id": 87, "body": "Draft: needs a repro"}}
    edits = [("Duplicate of #7, closing.\n", 0), ("Something else", 0)]
    env, shown = run(tmp_path, editor_of(tmp_path, edits), [b"e\r", b"y\r", b"e\r", b"n\r"], (DRAFT, second))
    assert (tmp_path / "was-0.txt").read_text() == "Draft: looks like a dup\n"
    assert (tmp_path / "was-1.txt").read_text() == "Draft: needs a repro\n"
    assert "Draft: looks like a dup" in shown[0]
    assert "Duplicate of #7, closing." in shown[1].split("editing…")[-1]
    assert "Something else" in shown[3].split("editing…")[-1]
    assert [r["body"] for r in tracker_records(env)] == ["Duplicate of #7, closing."]  # nothing on #87
    (logged,) = [c for c in logged_calls(env) if c["name"] == "post_comment" and c["approved"]]
    assert logged["arguments"]["body"] == "Duplicate of #7, closing."


def test_an_empty_edit_or_a_failed_editor_keeps_the_text_shown(tmp_path: Path) -> None:
    # One person at one prompt: an edit left empty, then an editor that fails (having written), then yes.
    edits = [("   \n", 0), ("never used", 1)]
    env, shown = run(tmp_path, editor_of(tmp_path, edits), [b"e\r", b"e\r", b"y\r"])
    assert "cannot be used (the text is empty); it is unchanged" in shown[1]
    assert "The editor did not finish; the text is unchanged." in shown[2]
    assert (tmp_path / "runs.txt").read_text() == "xx" and "never used" not in shown[2]
    assert [r["body"] for r in tracker_records(env)] == ["Draft: looks like a dup"]


def test_the_row_and_the_answer_show_the_edited_text_that_was_posted(tmp_path: Path) -> None:
    """The offline planner's own comment, edited at the prompt: what is confirmed is what was posted."""
    env = atlas_env(tmp_path / "home", VISUAL=editor(tmp_path, "Duplicate of #7, closing.\n"), EDITOR="false")
    child = spawn_atlas("ask", "-m", "offline", "comment on #41: Draft looks like a dup", env=env)
    child.expect(PROMPT)
    child.send(b"e\r")
    child.expect(PROMPT)
    child.send(b"y\r")
    code, after = finish(child)
    assert code == 0
    screen = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", after.decode("utf-8", errors="replace"))
    assert [r["body"] for r in tracker_records(env)] == ["Duplicate of #7, closing."]
    rows = [line for line in screen.splitlines() if "post_comment(" in line]
    assert rows and all("Duplicate of #7" in row and "Draft" not in row for row in rows), rows
    answer = screen.split("Done: posted your comment on #41", 1)[1]
    assert "Duplicate of #7, closing." in answer and "Draft looks like a dup" not in answer, screen
