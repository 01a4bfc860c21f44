"""The GitHub tracker from a real terminal: `y` sends the write once, `n` sends nothing."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.github.fake_github import REPO, TOKEN, RunningFake
from tests.support.run import atlas_env, finish, spawn_atlas, tracker_records


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


@pytest.mark.parametrize("answer", [b"y", b"n"])
def test_a_label_and_a_comment_go_to_github_only_when_approved(
    github: RunningFake, env: dict[str, str], answer: bytes
) -> None:
    child = spawn_atlas("ask", "-m", "offline", "label #41 area:cli and comment on #41: On it.", env=env)
    for _ in range(2):  # both previews say where the write goes; one question asks for both
        child.expect(rb"on GitHub: quill-org/quill")
    child.expect(rb"Approve all 2 actions\? \[y/N, or their numbers, e\.g\. 1,3\] ")
    child.send(answer + b"\r")
    code, _ = finish(child)
    assert code == 0
    posts = github.fake.requests("POST")
    if answer == b"n":
        assert posts == [] and tracker_records(env) == []
        return
    assert sorted(path for _, path, _ in posts) == [
        f"/repos/{REPO}/issues/41/comments",
        f"/repos/{REPO}/issues/41/labels",
    ]
    assert "area:cli" in [label["name"] for label in github.fake.issues[41]["labels"]]
    assert github.fake.comments[41][-1]["body"].startswith("On it.\n\n<!-- atlas:")
    records = {record["action"]: record for record in tracker_records(env)}
    assert records["post_comment"]["github"]["url"] == github.fake.comments[41][-1]["html_url"]
    assert "area:cli" in records["add_label"]["github"]["labels"]
