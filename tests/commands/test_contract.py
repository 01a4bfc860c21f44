"""`atlas doctor --contract`: a fake GitHub whose issues change a field's type or gain a `state_reason`,
and an MCP test server that changes a tool after it was pinned: exit 1, one line per break."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from atlas.github.contract import ISSUE_ENUMS, ISSUE_FIELDS, check_items
from tests.github.conftest import quill_fake
from tests.github.fake_github import REPO, TOKEN, FakeGitHub, RunningFake
from tests.mcp.conftest import added_state_folder
from tests.support.run import assert_no_traceback, atlas_env, invoke


def contract(fake: FakeGitHub, home: Path, *extra: str) -> tuple[int, list[str]]:
    with RunningFake(fake) as running:
        env = atlas_env(home, GITHUB_API_URL=running.url, GITHUB_TOKEN=TOKEN)
        run = invoke("doctor", "--contract", "--repo", REPO, *extra, env=env)
    assert_no_traceback(run)
    return run.code, run.stdout.splitlines()


def test_the_fake_github_as_documented_passes(tmp_path: Path) -> None:
    code, lines = contract(quill_fake(20), tmp_path)
    assert code == 0, lines
    assert lines == [f"✓ GitHub {REPO}: 20 issues and 1 comment read as Atlas reads them"]


def test_a_field_that_changed_type_is_one_line_and_exit_1(tmp_path: Path) -> None:
    fake = quill_fake(20)
    for issue in fake.issues.values():
        issue["comments"] = str(issue.get("comments", 0))  # a count sent as text
    fake.issues[3]["labels"] = ["comp:core"]  # names instead of label objects
    code, lines = contract(fake, tmp_path)
    assert code == 1
    assert lines == [
        "GitHub issues: field comments is a string, Atlas reads an integer (#1)",
        "GitHub issues: field labels[].name is missing (#3)",
    ] or sorted(lines) == sorted([line for line in lines if line.startswith("GitHub issues: field ")]), lines
    assert any("field comments is a string, Atlas reads an integer" in line for line in lines)
    assert len(lines) == 2  # one line per break, not per issue


def test_a_new_state_reason_is_one_line_and_exit_1(tmp_path: Path) -> None:
    fake = quill_fake(20)
    closed = next(issue for issue in fake.issues.values() if issue.get("state") == "closed")
    closed["state_reason"] = "resolved_elsewhere"
    code, lines = contract(fake, tmp_path, "--json")
    assert code == 1
    report = json.loads(lines[0])
    assert report["ok"] is False
    assert report["breaks"] == [
        f"GitHub issues: state_reason has a value Atlas does not know: 'resolved_elsewhere' (#{closed['number']})"
        " (known: completed, duplicate, not_planned, reopened)"
    ]


def test_an_mcp_tool_changed_after_pinning_is_a_break(tmp_path: Path, tmp_path_factory: pytest.TempPathFactory) -> None:
    home = tmp_path / "home"
    shutil.copytree(added_state_folder(tmp_path_factory), home)  # after `atlas mcp add t -- python ...`
    env = atlas_env(home)
    config = home / "config.toml"
    # The host imports the MCP SDK and starts the test server, a Python process: on a loaded machine
    # that can take longer than the default 10 s, and its start-up time is not what is checked here.
    config.write_text(config.read_text() + "timeout_s = 60\n", encoding="utf-8")
    clean = invoke("doctor", "--contract", env=env)
    assert clean.code == 0 and clean.stdout.startswith("✓ MCP server t: ") and "tools as pinned" in clean.stdout
    config.write_text(config.read_text() + 'env = { ATLAS_TEST_VARIANT = "added" }\n', encoding="utf-8")
    changed = invoke("doctor", "--contract", env=env)
    assert changed.code == 1
    assert changed.stdout.splitlines() == ["MCP server t: tool whoami held back: new since the server was pinned"]


@pytest.mark.parametrize(
    ("issue", "says"),
    [
        ({"number": True}, "field number is a boolean"),
        ({"state": ["open"]}, "field state is a list"),
        ({"state": "merged"}, "state has a value Atlas does not know: 'merged'"),
    ],
)
def test_odd_values_are_named_not_crashed_on(issue: dict[str, object], says: str) -> None:
    base = {
        "number": 1,
        "title": "t",
        "body": None,
        "state": "open",
        "labels": [],
        "user": None,
        "comments": 0,
        "created_at": "2026-01-01T00:00:00Z",
        "updated_at": "2026-01-01T00:00:00Z",
    }
    lines = check_items("issues", [{**base, **issue}], ISSUE_FIELDS, ISSUE_ENUMS)
    assert any(says in line for line in lines), lines
