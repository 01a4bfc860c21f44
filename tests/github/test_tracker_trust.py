"""What the GitHub tracker trusts: only its own account's comments, random markers kept in the
journal, the repository the dataset came from, and one write per approved action across processes."""

from __future__ import annotations

import json
import re
import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest

from atlas.foundation.config import data_dir
from atlas.foundation.errors import PermanentToolError, TransientToolError
from atlas.github.importer import import_export
from atlas.orbit.comments import PostCommentArgs, post_comment
from atlas.tools.registry import ToolContext
from atlas.tracker.github import open_github_tracker
from tests.github.fake_github import REPO, RunningFake
from tests.github.gh_export import gh_issues

COMMENTS = f"/repos/{REPO}/issues/41/comments"
MARKER_RE = re.compile(r"<!-- atlas:([A-Za-z0-9_-]+) -->")


def ctx(data: Path, home: Path, key: str = "call-1") -> ToolContext:
    return ToolContext(data=data, home=home, session="s1", idempotency_key=key)


def journal(home: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (home / "tracker_actions.jsonl").read_text(encoding="utf-8").splitlines()]


def test_a_strangers_comment_with_the_right_marker_does_not_stop_the_post(
    github: RunningFake, data: Path, atlas_home: Path
) -> None:
    github.fake.inject("POST", COMMENTS, "drop")  # the first attempt never reaches GitHub
    args = PostCommentArgs(issue_id=41, body="Fixed in 0.9.1, please upgrade.")
    with pytest.raises(TransientToolError, match="may have taken effect"):
        post_comment(args, ctx(data, atlas_home))
    [kept] = [r for r in journal(atlas_home) if r["action"] == "comment_marker"]
    # Even a stranger who learnt the very marker this call carries cannot stand in for it.
    github.fake.new_comment(41, f"lol\n\n<!-- atlas:{kept['marker']} -->", "mallory")
    result = post_comment(args, ctx(data, atlas_home))
    ours = [c for c in github.fake.comments[41] if c["user"]["login"] == "atlas-user"]
    assert len(ours) == 1 and ours[0]["body"].startswith("Fixed in 0.9.1")
    assert result["posted"] is True and result["url"] == ours[0]["html_url"]
    assert MARKER_RE.findall(ours[0]["body"]) == [kept["marker"]]  # the retry reused the journalled marker
    [record] = [r for r in journal(atlas_home) if r["action"] == "post_comment"]
    assert record["github"]["url"] == ours[0]["html_url"]


def test_markers_are_random_and_not_derived_from_the_call(github: RunningFake, data: Path, atlas_home: Path) -> None:
    post_comment(PostCommentArgs(issue_id=41, body="one"), ctx(data, atlas_home, key="mcp-1"))
    post_comment(PostCommentArgs(issue_id=41, body="two"), ctx(data, atlas_home, key="mcp-2"))
    markers = [m for c in github.fake.comments[41] for m in MARKER_RE.findall(c["body"])]
    assert len(markers) == 2 and len(set(markers)) == 2
    assert all(len(m) >= 32 and "mcp" not in m for m in markers)  # 192 random bits, base64url
    assert len(github.fake.requests("GET", "/user")) == 1  # whose token it is, asked once per process


def test_a_retry_finds_its_own_comment_after_a_lost_answer_and_posts_nothing(
    github: RunningFake, data: Path, atlas_home: Path
) -> None:
    github.fake.inject("POST", COMMENTS, "drop_after")  # posted on GitHub, answer lost
    args = PostCommentArgs(issue_id=41, body="Looking into it.")
    with pytest.raises(TransientToolError):
        post_comment(args, ctx(data, atlas_home))
    result = post_comment(args, ctx(data, atlas_home))
    ours = [c for c in github.fake.comments[41] if c["user"]["login"] == "atlas-user"]
    assert len(ours) == 1 and result["url"] == ours[0]["html_url"] and len(github.fake.requests("POST")) == 1


def test_the_tracker_refuses_the_bundled_data_and_an_import_of_another_repo(
    github: RunningFake, tmp_path: Path, atlas_home: Path
) -> None:
    with pytest.raises(PermanentToolError, match=r"names quill-org/quill but the dataset is the bundled Orbit data"):
        open_github_tracker(f"github:{REPO}", ctx(data_dir(), atlas_home))
    other = tmp_path / "other"
    export = tmp_path / "other.json"
    export.write_text(json.dumps(gh_issues(5, repo="octo-org/other")), encoding="utf-8")
    import_export(export, other, docs=None)
    with pytest.raises(PermanentToolError, match=r"the dataset is octo-org/other but ATLAS_TRACKER names"):
        open_github_tracker(f"github:{REPO}", ctx(other, atlas_home))
    nameless = tmp_path / "nameless"
    records = gh_issues(5)
    for record in records:
        del record["url"]
    export.write_text(json.dumps(records), encoding="utf-8")
    import_export(export, nameless, docs=None)
    with pytest.raises(PermanentToolError, match=r"imported from a file that names no GitHub repository"):
        open_github_tracker(f"github:{REPO}", ctx(nameless, atlas_home))
    assert github.fake.log == []


ADD_LABEL = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    from atlas.orbit.labels import AddLabelArgs, add_label
    from atlas.tools.registry import ToolContext
    data, home, session = Path(sys.argv[1]), Path(sys.argv[2]), sys.argv[3]
    context = ToolContext(data=data, home=home, session=session, idempotency_key=session)
    print(add_label(AddLabelArgs(issue_id=41, label="enhancement"), context)["changed"])
    """
)


def test_four_processes_adding_one_label_make_one_post(
    github: RunningFake, data: Path, atlas_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    github.fake.inject("POST", f"/repos/{REPO}/issues/41/labels", "slow", seconds=1.0)  # all four overlap it
    monkeypatch.setenv("ATLAS_GITHUB_TIMEOUT", "4")
    procs = [
        subprocess.Popen(
            [sys.executable, "-c", ADD_LABEL, str(data), str(atlas_home), f"session-{n}"],
            stdout=subprocess.PIPE,
            text=True,
            cwd=Path(__file__).parents[2],
        )
        for n in range(4)
    ]
    answers = sorted(proc.communicate(timeout=60)[0].strip() for proc in procs)
    assert answers == ["False", "False", "False", "True"]
    assert len(github.fake.requests("POST", "/labels")) == 1
    assert [r["action"] for r in journal(atlas_home)] == ["add_label"]
