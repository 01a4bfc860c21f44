"""The GitHub tracker from a real terminal: `n` sends nothing, `y` sends each write once."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.github.fake_github import REPO, TOKEN, RunningFake
from tests.support.run import atlas_env, finish, spawn_atlas, tracker_records, write_script


@pytest.fixture
def env(github: RunningFake, quill_data: Path, tmp_path: Path) -> dict[str, str]:
    folder = quill_data
    return atlas_env(
        tmp_path / "home",
        ORBIT_DATA=str(folder),
        ATLAS_TRACKER=f"github:{REPO}",
        GITHUB_API_URL=github.url,
        GITHUB_TOKEN=TOKEN,
    )


WRITES = [
    {"name": "add_label", "arguments": {"issue_id": 41, "label": "area:cli"}},
    {"name": "post_comment", "arguments": {"issue_id": 41, "body": "On it."}},
]
BATCH = rb"Approve all 2 actions\? \[y/N, or their numbers, e\.g\. 1,3\] "


def test_a_label_and_a_comment_go_to_github_only_when_approved(
    github: RunningFake, env: dict[str, str], tmp_path: Path
) -> None:
    """One run asks twice for the same two writes: `n` sends nothing, then `y` sends each once."""
    model = write_script(tmp_path, [{"calls": WRITES}, {"calls": WRITES}, {"text": "Done."}])
    child = spawn_atlas("ask", "-m", model, "label #41 area:cli and comment on #41: On it.", env=env)
    for answer in (b"n", b"y"):
        for _ in range(2):  # both previews say where the write goes; one question asks for both
            child.expect(rb"on GitHub: quill-org/quill")
        child.expect(BATCH)
        if answer == b"y":  # the `n` round has ended: it sent nothing
            assert github.fake.requests("POST") == [] and tracker_records(env) == []
        child.send(answer + b"\r")
    code, _ = finish(child)
    assert code == 0
    posts = github.fake.requests("POST")
    assert sorted(path for _, path, _ in posts) == [
        f"/repos/{REPO}/issues/41/comments",
        f"/repos/{REPO}/issues/41/labels",
    ]
    assert "area:cli" in [label["name"] for label in github.fake.issues[41]["labels"]]
    assert github.fake.comments[41][-1]["body"].startswith("On it.\n\n<!-- atlas:")
    written = tracker_records(env)
    records = {record["action"]: record for record in written}
    assert len(written) == 2
    assert records["post_comment"]["github"]["url"] == github.fake.comments[41][-1]["html_url"]
    assert "area:cli" in records["add_label"]["github"]["labels"]
