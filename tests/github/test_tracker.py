"""`ATLAS_TRACKER=github:OWNER/REPO`: approved writes reach the fake GitHub exactly once, and are recorded."""

from __future__ import annotations

import asyncio
import json
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from atlas.cli.root import app
from atlas.executor.approvals import idempotency_key
from atlas.executor.executor import ToolExecutor
from atlas.foundation.errors import ErrorKind, PermanentToolError, TransientToolError, classify
from atlas.orbit.comments import PostCommentArgs, post_comment
from atlas.orbit.db import issue_brief
from atlas.orbit.labels import AddLabelArgs, add_label
from atlas.runtime.toolset import load_registry
from atlas.tools.registry import ToolContext
from atlas.tracker.github import marker, open_github_tracker
from tests.github.fake_github import REPO, RunningFake
from tests.support.executor_fakes import call, envelope, kind_of

COMMENTS = f"/repos/{REPO}/issues/41/comments"


GITHUB_TIMEOUT = "0.5"
"""Seconds the `data` fixture lets a request to the fake wait: its slow answers time out quickly here."""


def ctx(data: Path, home: Path, key: str | None = "call-1") -> ToolContext:
    return ToolContext(data=data, home=home, session="s1", idempotency_key=key)


def journal(home: Path) -> list[dict[str, Any]]:
    path = home / "tracker_actions.jsonl"
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()] if path.exists() else []


def audit(home: Path) -> list[dict[str, Any]]:
    """The actions the journal confirms (the markers it keeps are bookkeeping)."""
    return [record for record in journal(home) if record["action"] != "comment_marker"]


def marker_of(home: Path, key: str) -> str:
    """The random marker journalled for a call's comment."""
    [record] = [r for r in journal(home) if r["action"] == "comment_marker" and r["key"] == key]
    return marker(record["marker"])


def marked(github: RunningFake, home: Path, key: str = "call-1") -> list[dict[str, Any]]:
    found = [r for r in journal(home) if r["action"] == "comment_marker" and r["key"] == key]
    return [c for c in github.fake.comments[41] if found and marker_of(home, key) in c["body"]]


def test_an_approved_label_reaches_github_and_the_audit_keeps_its_answer(
    github: RunningFake, data: Path, atlas_home: Path
) -> None:
    result = add_label(AddLabelArgs(issue_id=41, label="Good First Issue"), ctx(data, atlas_home))
    assert result == {
        "issue_id": 41,
        "label": "good first issue",
        "changed": True,
        "labels": ["area:markdown", "bug", "good first issue"],
    }
    assert [label["name"] for label in github.fake.issues[41]["labels"]][-1] == "good first issue"
    [record] = audit(atlas_home)
    assert record["action"] == "add_label" and record["github"]["labels"][-1] == "good first issue"
    assert github.fake.requests("POST") == [("POST", f"/repos/{REPO}/issues/41/labels", 200)]


def test_a_label_the_repo_does_not_use_is_refused_before_anything_is_sent(
    github: RunningFake, data: Path, atlas_home: Path
) -> None:
    with pytest.raises(PermanentToolError, match=r"quill-org/quill has no label 'severity:S1'; its labels: area:cli"):
        add_label(AddLabelArgs(issue_id=41, label="severity:S1"), ctx(data, atlas_home))
    assert github.fake.log == [] and audit(atlas_home) == []


def test_a_comment_carries_its_key_and_a_replay_of_the_call_posts_nothing(
    github: RunningFake, data: Path, atlas_home: Path
) -> None:
    args = PostCommentArgs(issue_id=41, body="Fixed in 0.9.1.")
    first = post_comment(args, ctx(data, atlas_home))
    [posted] = marked(github, atlas_home)
    assert posted["body"] == f"Fixed in 0.9.1.\n\n{marker_of(atlas_home, 'call-1')}"
    assert first["url"] == posted["html_url"]
    github.fake.log.clear()
    assert post_comment(args, ctx(data, atlas_home)) == first
    assert github.fake.log == []  # the audit file answered
    [record] = audit(atlas_home)
    assert record["body"] == "Fixed in 0.9.1." and record["github"]["url"] == posted["html_url"]


def test_a_dropped_answer_may_have_taken_effect_and_a_retry_finds_the_comment(
    github: RunningFake, data: Path, atlas_home: Path
) -> None:
    github.fake.inject("POST", COMMENTS, "drop_after")
    args = PostCommentArgs(issue_id=41, body="Looking into it.")
    with pytest.raises(TransientToolError, match="may have taken effect") as failure:
        post_comment(args, ctx(data, atlas_home))
    assert len(marked(github, atlas_home)) == 1 and audit(atlas_home) == []  # only what GitHub confirmed
    retried = post_comment(args, ctx(data, atlas_home))
    assert len(marked(github, atlas_home)) == 1 and len(github.fake.requests("POST")) == 1
    assert retried["url"] == marked(github, atlas_home)[0]["html_url"]
    assert audit(atlas_home)[0]["github"]["url"] == retried["url"]
    assert classify(failure.value) is ErrorKind.TRANSIENT


def test_a_timed_out_comment_is_a_timeout_never_retried_and_posted_once(
    github: RunningFake, data: Path, atlas_home: Path
) -> None:
    github.fake.inject("POST", COMMENTS, "slow", seconds=1.0)
    registry = load_registry()
    executor = ToolExecutor(registry, approve=lambda request: True, context=ctx(data, atlas_home, key=None))
    output = asyncio.run(executor.run_one(call("post_comment", "c1", issue_id=41, body="On it.")))
    error = envelope(output)["error"]
    assert error["kind"] == "timeout" and "may have taken effect" in error["message"]
    assert executor.log[0].attempts == 1
    deadline = time.monotonic() + 5
    while not any("On it." in c["body"] for c in github.fake.comments[41]) and time.monotonic() < deadline:
        time.sleep(0.05)
    # The same call again (a replayed session): the marker is found, nothing is posted twice.
    key = idempotency_key(executor.session, "c1")
    replay = post_comment(PostCommentArgs(issue_id=41, body="On it."), ctx(data, atlas_home, key=key))
    assert [c["body"] for c in github.fake.comments[41]].count(f"On it.\n\n{marker_of(atlas_home, key)}") == 1
    assert len(github.fake.requests("POST")) == 1 and replay["posted"] is True


def test_a_label_after_a_server_error_is_retried_and_applied_once(
    github: RunningFake, data: Path, atlas_home: Path
) -> None:
    github.fake.inject("POST", f"/repos/{REPO}/issues/41/labels", "server_error")
    executor = ToolExecutor(load_registry(), approve=lambda request: True, context=ctx(data, atlas_home, None))
    output = asyncio.run(executor.run_one(call("add_label", "c1", issue_id=41, label="enhancement")))
    assert kind_of(output) == "ok" and executor.log[0].attempts == 2
    assert [status for *_, status in github.fake.requests("POST")] == [502, 200]
    assert [label["name"] for label in github.fake.issues[41]["labels"]].count("enhancement") == 1
    assert len(audit(atlas_home)) == 1


def test_a_denied_approval_sends_nothing(github: RunningFake, data: Path, atlas_home: Path) -> None:
    executor = ToolExecutor(load_registry(), approve=lambda request: False, context=ctx(data, atlas_home, None))
    outputs = asyncio.run(
        executor.run_all(
            [
                call("add_label", "c1", issue_id=41, label="enhancement"),
                call("post_comment", "c2", issue_id=41, body="x"),
            ]
        )
    )
    assert [kind_of(output) for output in outputs] == ["denied", "denied"]
    assert github.fake.log == [] and audit(atlas_home) == []


def test_read_only_mode_sends_nothing(github: RunningFake, data: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("ORBIT_DATA", str(data))
    result = CliRunner().invoke(app, ["ask", "--read-only", "label #41 enhancement and comment on #41: done"])
    assert result.exit_code == 0, result.output
    assert github.fake.log == []


def test_the_preview_says_the_write_goes_to_github(github: RunningFake, data: Path, atlas_home: Path) -> None:
    registry = load_registry()
    spec = registry["post_comment"]
    assert spec.preview is not None
    text = spec.preview(PostCommentArgs(issue_id=41, body="Hi"), ctx(data, atlas_home))
    assert "(on GitHub: quill-org/quill)" in text and github.fake.log == []


@pytest.mark.parametrize(
    ("fault", "kind", "message"),
    [
        (
            "invalid",
            ErrorKind.PERMANENT,
            "GitHub rejected the comment on #41 of quill-org/quill (422): Validation Failed; body is too long",
        ),
        ("scope", ErrorKind.PERMANENT, "(this needs the scope: repo)"),
        ("gone", ErrorKind.PERMANENT, "410 for the comment on #41 of quill-org/quill: issues are switched off"),
        ("rate_limit", ErrorKind.TRANSIENT, "rate limit was reached; it resets at "),
    ],
)
def test_github_failures_keep_their_meaning(
    github: RunningFake, data: Path, atlas_home: Path, fault: str, kind: ErrorKind, message: str
) -> None:
    github.fake.inject("POST", COMMENTS, fault, seconds=120)
    with pytest.raises(Exception) as failure:
        post_comment(PostCommentArgs(issue_id=41, body="Thanks!"), ctx(data, atlas_home))
    assert classify(failure.value) is kind and message in str(failure.value)
    assert marked(github, atlas_home) == [] and audit(atlas_home) == []


def test_an_issue_gone_from_github_is_a_404_that_names_it(github: RunningFake, data: Path, atlas_home: Path) -> None:
    del github.fake.issues[41]
    with pytest.raises(
        PermanentToolError,
        match=r"GitHub answered 404 for adding 'enhancement' to #41 of quill-org/quill: no such repository or issue",
    ):
        add_label(AddLabelArgs(issue_id=41, label="enhancement"), ctx(data, atlas_home))


def test_remove_label_removes_once_and_an_absent_label_changes_nothing(
    github: RunningFake, data: Path, atlas_home: Path
) -> None:
    context = ctx(data, atlas_home)
    tracker = open_github_tracker(f"github:{REPO}", context)
    issue = issue_brief(data, atlas_home, 41)
    removed = tracker.remove_label(issue, "bug", key="k1", session="s1")
    assert removed == {"issue_id": 41, "label": "bug", "changed": True, "labels": ["area:markdown"]}
    again = tracker.remove_label(issue, "bug", key="k2", session="s1")
    assert again == {"issue_id": 41, "label": "bug", "changed": False, "labels": ["area:markdown"]}
    assert [record["action"] for record in audit(atlas_home)] == ["remove_label"]
    del github.fake.issues[41]
    with pytest.raises(PermanentToolError, match="404"):
        tracker.remove_label(issue, "area:markdown", key="k3", session="s1")


def test_repeated_server_errors_open_the_breaker(github: RunningFake, data: Path, atlas_home: Path) -> None:
    for _ in range(4):
        github.fake.inject("POST", COMMENTS, "server_error")
    executor = ToolExecutor(
        load_registry(), approve=lambda r: True, context=ctx(data, atlas_home, None), breaker_threshold=2
    )

    async def three() -> list[str]:
        return [
            kind_of(await executor.run_one(call("post_comment", f"c{n}", issue_id=41, body=f"try {n}")))
            for n in range(3)
        ]

    assert asyncio.run(three()) == ["transient", "transient", "unavailable"]
    assert len(github.fake.requests("POST")) == 2


def test_a_tracker_for_another_repo_or_without_a_token_sends_nothing(
    github: RunningFake, data: Path, atlas_home: Path, monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    with pytest.raises(PermanentToolError, match="the dataset is quill-org/quill but ATLAS_TRACKER names other/repo"):
        open_github_tracker("github:other/repo", ctx(data, atlas_home))
    monkeypatch.delenv("GITHUB_TOKEN")
    monkeypatch.setenv("PATH", str(tmp_path))  # no `gh` to ask either
    with pytest.raises(PermanentToolError, match="needs a token"):
        add_label(AddLabelArgs(issue_id=41, label="bug"), ctx(data, atlas_home))
    assert github.fake.log == []


def test_a_rate_limited_lookup_fails_at_once_with_the_reset_time(
    github: RunningFake, data: Path, atlas_home: Path
) -> None:
    github.fake.inject("GET", COMMENTS, "rate_limit", seconds=600)
    started = time.monotonic()
    with pytest.raises(TransientToolError, match=r"try again after \d\d:\d\d:\d\d UTC"):
        post_comment(PostCommentArgs(issue_id=41, body="Thanks!"), ctx(data, atlas_home))
    assert time.monotonic() - started < 2 and github.fake.requests("POST") == []
