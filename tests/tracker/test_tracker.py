"""The mock tracker: set semantics, idempotency keys, and a file that survives crashes and concurrency."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

import filelock
import pytest

from atlas.foundation.errors import ErrorKind, PermanentToolError, TransientToolError, classify
from atlas.orbit.comments import PostCommentArgs, post_comment, preview_post_comment
from atlas.orbit.db import IssueBrief
from atlas.orbit.labels import AddLabelArgs, add_label, preview_add_label
from atlas.tools.registry import ToolContext
from atlas.tracker import file_journal
from atlas.tracker.journal import MockTracker
from tests.support.dataset_factory import context


def lines_of(home: Path) -> list[str]:
    return (home / "tracker_actions.jsonl").read_text(encoding="utf-8").splitlines()


def test_add_label_has_set_semantics(data: Path, atlas_home: Path) -> None:
    ctx = context(data, atlas_home, key="call-1")
    first = add_label(AddLabelArgs(issue_id=41, label="severity:S1"), ctx)
    assert first == {
        "issue_id": 41,
        "label": "severity:S1",
        "changed": True,
        "labels": ["comp:core", "type:bug", "severity:S1"],
    }
    again = add_label(AddLabelArgs(issue_id=41, label="Severity:s1"), context(data, atlas_home, key="call-2"))
    assert again["changed"] is False and again["labels"] == first["labels"]
    from_dataset = add_label(AddLabelArgs(issue_id=41, label="comp:core"), context(data, atlas_home, key="c3"))
    assert from_dataset["changed"] is False
    assert len(lines_of(atlas_home)) == 1
    record = json.loads(lines_of(atlas_home)[0])
    assert {k: record[k] for k in ("key", "action", "issue_id", "label", "session")} == {
        "key": "call-1",
        "action": "add_label",
        "issue_id": 41,
        "label": "severity:S1",
        "session": "test-session",
    }
    assert record["ts"].endswith("+00:00")


def test_unknown_labels_are_refused_with_the_known_list(data: Path, atlas_home: Path) -> None:
    refused = "orbit-data has no label 'wontfix'; its labels: comp:broker-postgres"
    with pytest.raises(PermanentToolError, match=refused) as caught:
        add_label(AddLabelArgs(issue_id=41, label="wontfix"), context(data, atlas_home))
    assert str(caught.value).endswith("severity:S1, severity:S2, type:bug, type:question")  # its issues' labels
    assert not (atlas_home / "tracker_actions.jsonl").exists()


@pytest.mark.parametrize("call", ["label", "comment"])
def test_unknown_issues_are_refused_and_nothing_is_written(data: Path, atlas_home: Path, call: str) -> None:
    ctx = context(data, atlas_home, key="k")
    with pytest.raises(LookupError, match="no issue #4242") as caught:
        if call == "label":
            add_label(AddLabelArgs(issue_id=4242, label="type:bug"), ctx)
        else:
            post_comment(PostCommentArgs(issue_id=4242, body="hello"), ctx)
    assert classify(caught.value) is ErrorKind.PERMANENT
    assert not (atlas_home / "tracker_actions.jsonl").exists()


def test_post_comment_idempotency_key_rules(data: Path, atlas_home: Path) -> None:
    args = PostCommentArgs(issue_id=87, body="Could you share `poll_interval`?")
    first = post_comment(args, context(data, atlas_home, key="s1:call-7"))
    assert first["posted"] is True and first["issue_id"] == 87
    replay = post_comment(args, context(data, atlas_home, key="s1:call-7"))
    assert replay == first
    assert len(lines_of(atlas_home)) == 1
    with pytest.raises(PermanentToolError, match="already used"):
        post_comment(PostCommentArgs(issue_id=87, body="other text"), context(data, atlas_home, key="s1:call-7"))
    with pytest.raises(PermanentToolError, match="already used"):
        post_comment(PostCommentArgs(issue_id=41, body=args.body), context(data, atlas_home, key="s1:call-7"))
    with pytest.raises(PermanentToolError, match="idempotency key"):
        post_comment(args, context(data, atlas_home, key=None))
    post_comment(args, context(data, atlas_home, key="s1:call-8"))
    assert [json.loads(line)["key"] for line in lines_of(atlas_home)] == ["s1:call-7", "s1:call-8"]


def test_previews_show_the_change_and_the_whole_comment(data: Path, atlas_home: Path) -> None:
    ctx = context(data, atlas_home, key="k1")
    label = AddLabelArgs(issue_id=41, label="severity:S1")
    assert preview_add_label(label, ctx) == (
        "#41 (“Nightly rebuild runs twice”) labels: [comp:core, type:bug] → [comp:core, type:bug, severity:S1]"
    )
    add_label(label, ctx)
    assert "nothing changes" in preview_add_label(label, ctx)
    comment = PostCommentArgs(issue_id=87, body="line one\nline two")
    assert preview_post_comment(comment, ctx) == (
        "comment on #87 (“Postgres broker pickup delay under load”):\nline one\nline two"
    )
    assert "refused" in preview_post_comment(PostCommentArgs(issue_id=5, body="x"), ctx)


def test_torn_last_line_is_skipped_and_the_next_append_is_whole(
    atlas_home: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    store = MockTracker(atlas_home)
    issue = IssueBrief(41, "t", [])
    store.post_comment(issue, "whole", key="a", session="s")
    whole = lines_of(atlas_home)[0]
    with (atlas_home / "tracker_actions.jsonl").open("a", encoding="utf-8") as handle:
        handle.write(whole[: len(whole) // 2])  # a crash mid-write
    assert [r["key"] for r in store.records()] == ["a"] and store.skipped == 1
    assert "skipped 1 torn or corrupt line" in capsys.readouterr().err
    store.post_comment(issue, "after the crash", key="b", session="s")
    assert [r["key"] for r in store.records()] == ["a", "b"] and store.skipped == 1
    raw = (atlas_home / "tracker_actions.jsonl").read_text(encoding="utf-8")
    assert raw.endswith("\n") and json.loads(raw.splitlines()[-1])["body"] == "after the crash"
    assert capsys.readouterr().err == ""  # warned once, not on every read


def test_corrupt_lines_are_counted_never_fatal(atlas_home: Path) -> None:
    atlas_home.mkdir(parents=True)
    good = json.dumps({"ts": "t", "key": "k", "action": "add_label", "issue_id": 41, "label": "type:bug"})
    junk = [b"{not json", b"[1, 2]", b'{"action": "delete_repo", "issue_id": 1}', b"\xff\xfe"]
    with (atlas_home / "tracker_actions.jsonl").open("wb") as handle:
        for line in [good.encode(), *junk, good.encode()]:
            handle.write(line + b"\n")
    store = MockTracker(atlas_home)
    assert len(store.records()) == 2 and store.skipped == 4
    assert store.added_labels(41) == ["type:bug"]


def test_four_processes_append_a_thousand_whole_records(tmp_path: Path, atlas_home: Path) -> None:
    script = textwrap.dedent(
        """
        import sys
        from pathlib import Path
        from atlas.foundation.errors import TransientToolError
        from atlas.orbit.db import IssueBrief
        from atlas.tracker.journal import MockTracker
        store, worker = MockTracker(Path(sys.argv[1])), sys.argv[2]
        issue = IssueBrief(41, "t", [])
        for n in range(250):
            # On a loaded machine the lock may stay taken past its timeout: nothing was written
            # then, and a caller tries again, as the executor does with a transient error.
            while True:
                try:
                    store.post_comment(issue, f"{worker}-{n} " + "x" * 300, key=f"{worker}-{n}", session=worker)
                    break
                except TransientToolError:
                    pass
        """
    )
    procs = [
        subprocess.Popen([sys.executable, "-c", script, str(atlas_home), f"w{w}"], cwd=Path(__file__).parents[2])
        for w in range(4)
    ]
    assert [proc.wait(timeout=90) for proc in procs] == [0, 0, 0, 0]
    raw = (atlas_home / "tracker_actions.jsonl").read_bytes()
    lines = raw.decode("utf-8").split("\n")
    assert lines[-1] == "" and len(lines) == 1001  # every record ends its own line
    keys = [json.loads(line)["key"] for line in lines[:-1]]
    assert sorted(keys) == sorted(f"w{w}-{n}" for w in range(4) for n in range(250))
    store = MockTracker(atlas_home)
    assert len(store.records()) == 1000 and store.skipped == 0


def test_a_held_lock_is_transient(monkeypatch: pytest.MonkeyPatch, atlas_home: Path) -> None:
    monkeypatch.setattr(file_journal, "LOCK_TIMEOUT_S", 0.1)
    atlas_home.mkdir(parents=True)
    held = filelock.FileLock(str(atlas_home / "tracker_actions.jsonl.lock"))
    with held, pytest.raises(TransientToolError, match="locked") as caught:
        MockTracker(atlas_home).post_comment(IssueBrief(41, "t", []), "hi", key="k", session="s")
    assert classify(caught.value) is ErrorKind.TRANSIENT


def test_side_effect_tools_are_declared_as_such() -> None:
    from atlas.runtime.toolset import load_registry

    registry = load_registry()
    assert (registry["add_label"].side_effect, registry["add_label"].idempotent) == (True, True)
    assert (registry["post_comment"].side_effect, registry["post_comment"].idempotent) == (True, False)
    assert registry["add_label"].preview is preview_add_label
    assert registry["post_comment"].preview is preview_post_comment


def test_context_defaults_come_from_the_environment(atlas_home: Path) -> None:
    assert ToolContext().home == atlas_home
