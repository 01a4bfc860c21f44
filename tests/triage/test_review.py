"""The numbered review of a triage plan on a real terminal: `y`, `1,3`, `e 2` with the person's editor, `n`.

Every approved item goes through the executor: the tracker gets exactly those writes, the call log
records them, and a second run neither repeats a label nor drafts a second comment.
"""

from __future__ import annotations

import re
import sys
from pathlib import Path

import pexpect
import pytest

from tests.support.run import atlas_env, finish, invoke, logged_calls, spawn_atlas, tracker_records

QUESTION = re.escape(b"Apply? [y = all, 1,3 = those, e 2 = edit item 2, n = none] ")
ITEM = re.compile(r"^(\d+)\. (#\d+ (?:add label \S+|comment))", re.M)
ESCAPES = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")
# Two triage runs on a terminal, each a process that starts Atlas and loads the model: on a loaded
# machine together they can outlast the suite's 120 s guard against a hang.
TWO_TERMINAL_RUNS = pytest.mark.timeout(300)


def review(env: dict[str, str], *args: str) -> tuple[pexpect.spawn, dict[int, str]]:
    child = spawn_atlas(*args, env=env, timeout=180)
    child.expect(QUESTION)
    shown = ESCAPES.sub("", (child.before or b"").decode("utf-8", errors="replace")).replace("\r", "")
    listed = shown.rsplit("skipped", 1)[-1]  # the review's list follows the lines about skipped items
    return child, {int(n): what for n, what in ITEM.findall(listed)}


def written(env: dict[str, str]) -> list[str]:
    return [
        f"#{r['issue_id']} add label {r['label']}" if r["action"] == "add_label" else f"#{r['issue_id']} comment"
        for r in tracker_records(env)
    ]


def test_y_applies_the_whole_plan_through_the_executor_once(home: Path) -> None:
    env = atlas_env(home)
    child, items = review(env, "triage", "132", "135")
    assert len(items) >= 3 and any("comment" in what for what in items.values())
    child.send(b"y\r")
    code, rest = finish(child)
    assert code == 0, rest
    assert sorted(written(env)) == sorted(items.values())
    calls = logged_calls(env)
    expected = sorted("post_comment" if "comment" in w else "add_label" for w in items.values())
    assert sorted(c["name"] for c in calls) == expected
    assert all(c["kind"] == "ok" for c in calls)
    # Labelled and answered now: the second run's plan is empty (what a terminal would show it is
    # made before any review, so this run needs none).
    again = invoke("triage", "132", "135", env=env)
    assert again.code == 0 and "Nothing to apply." in again.stdout, again
    assert sorted(written(env)) == sorted(items.values())


def test_numbers_approve_only_those_items(home: Path) -> None:
    env = atlas_env(home)
    child, items = review(env, "triage", "132", "135")
    child.send(b"1,3\r")
    code, _ = finish(child)
    assert code == 0
    assert sorted(written(env)) == sorted([items[1], items[3]])


def test_n_applies_nothing(home: Path) -> None:
    env = atlas_env(home)
    child, _ = review(env, "triage", "132", "135")
    child.send(b"n\r")
    code, rest = finish(child)
    assert code == 0 and b"none approved" in rest
    assert tracker_records(env) == []
    # Each item is recorded as the person's no, as a "n" at `atlas ask`'s prompt is.
    calls = logged_calls(env)
    assert calls and {(c["kind"], c["decided_by"]) for c in calls} == {("denied", "person")}


def editor(tmp_path: Path, *texts: str) -> str:
    """An editor whose n-th run writes the n-th of `texts` into the file it is given."""
    script = tmp_path / "editor.py"
    runs = tmp_path / "editor-runs"
    script.write_text(
        "import pathlib, sys\n"
        f"runs = pathlib.Path({str(runs)!r})\n"
        "n = len(runs.read_text()) if runs.exists() else 0\n"
        "runs.write_text('x' * (n + 1))\n"
        f"open(sys.argv[1], 'w').write({list(texts)!r}[min(n, {len(texts) - 1})] + '\\n')\n"
    )
    return f"{sys.executable} {script}"


def comment_edited_to(text: str, home: Path, tmp_path: Path) -> tuple[pexpect.spawn, int, dict[str, str]]:
    """A review of #135 whose comment item was edited to `text` in the editor, asked again: the
    review, the comment item's number and the run's environment."""
    env = atlas_env(home, EDITOR=editor(tmp_path, text), VISUAL="")
    child, items = review(env, "triage", "135")
    number = next(n for n, what in items.items() if "comment" in what)
    child.send(f"e {number}\r".encode())
    child.expect(QUESTION)
    return child, number, env


def test_e_edits_a_comment_and_a_label_and_a_label_only_within_its_group(home: Path, tmp_path: Path) -> None:
    """One person's review of #150: the comment edited, the type label edited to another type, then
    another label edited to one of no group (refused, the item kept as it was); what is approved is
    what was shown."""
    mine = "Which Orbit version, please? And the scheduler log of that night."
    env = atlas_env(home, EDITOR=editor(tmp_path, mine, "type:question", "wontfix"), VISUAL="")
    child, items = review(env, "triage", "150")
    comment = next(n for n, what in items.items() if "comment" in what)
    typed = next(n for n, what in items.items() if "add label type:" in what)
    other, kept = next((n, what) for n, what in items.items() if "add label" in what and n != typed)
    child.send(f"e {comment}\r".encode())
    child.expect(QUESTION)
    assert mine.encode() in (child.before or b"")
    child.send(f"e {typed}\r".encode())
    child.expect(QUESTION)
    assert f"{typed}. #150 add label type:question".encode() in (child.before or b"")
    child.send(f"e {other}\r".encode())
    child.expect(QUESTION)
    assert b"is not a label of this group" in (child.before or b"")
    assert (tmp_path / "editor-runs").read_text() == "xxx"
    child.send(f"{comment},{typed},{other}\r".encode())
    code, _ = finish(child)
    assert code == 0
    assert [r["body"] for r in tracker_records(env) if r["action"] == "post_comment"] == [mine]
    assert sorted(w for w in written(env) if "add label" in w) == sorted(["#150 add label type:question", kept])
