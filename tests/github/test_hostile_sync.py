"""`atlas data sync` against a GitHub that misbehaves: endless or looping links, odd rate-limit
headers, a 304 nobody asked for, credentials in the API's URL and a token echoed back."""

from __future__ import annotations

import json
import math
from pathlib import Path

import pytest
from typer.testing import CliRunner

from atlas.cli.root import app
from atlas.dataset.ensure import jsonl_path, read_issues
from atlas.github.client import GitHubClient
from atlas.github.errors import GitHubError, GitHubRateLimitedError
from atlas.github.sync import sync_repo
from atlas.orbit.db import issue_brief
from atlas.tools.registry import ToolContext
from atlas.tracker.github import open_github_tracker
from tests.github.conftest import ISSUE_COUNT
from tests.github.fake_github import REPO, TOKEN, RunningFake

runner = CliRunner()


def client_for(github: RunningFake, **options: object) -> GitHubClient:
    return GitHubClient(token=TOKEN, base_url=github.url, **options)  # type: ignore[arg-type]


def one_error_line(output: str) -> str:
    lines = [line for line in output.splitlines() if line.strip()]
    assert "Traceback" not in output and "unexpected" not in output, output
    assert lines[-1].startswith("atlas: error: "), output
    return lines[-1]


def test_a_page_linking_to_itself_stops_at_once_with_one_line(github: RunningFake, tmp_path: Path) -> None:
    page_two = f"{github.url}/repos/{REPO}/issues?state=all&per_page=100&page=2"
    github.fake.extra_headers["Link"] = f'<{page_two}>; rel="next"'
    folder = tmp_path / "quill"
    result = runner.invoke(app, ["data", "sync", REPO, "--to", str(folder)])
    assert result.exit_code == 1
    assert "links back to a page already read" in one_error_line(result.output)
    assert len(github.fake.requests("GET", "/issues")) == 2 and not folder.exists()


def test_a_server_that_never_stops_listing_is_stopped_at_the_page_cap(github: RunningFake, tmp_path: Path) -> None:
    github.fake.endless = True
    with client_for(github, max_pages=40) as client, pytest.raises(GitHubError, match="runs past 40 pages"):
        sync_repo(client, REPO, tmp_path / "quill")
    assert len(github.fake.requests("GET", "/issues")) == 40 and not (tmp_path / "quill").exists()


@pytest.mark.parametrize("fault", ["inf_reset", "nan_retry"])
def test_rate_limit_headers_that_are_no_time_are_read_as_absent(
    github: RunningFake, tmp_path: Path, fault: str
) -> None:
    github.fake.inject("GET", f"/repos/{REPO}/issues", fault)
    with client_for(github, max_wait_s=1) as client, pytest.raises(GitHubRateLimitedError) as failure:
        sync_repo(client, REPO, tmp_path / "quill")
    assert "rate limit was reached; it resets at" in str(failure.value)
    assert math.isfinite(failure.value.reset_at)


def test_an_infinite_reset_on_a_spent_quota_is_a_rate_limit_not_a_crash(github: RunningFake, tmp_path: Path) -> None:
    github.fake.extra_headers.update({"x-ratelimit-remaining": "0", "x-ratelimit-reset": "inf"})
    with client_for(github, max_wait_s=1) as client, pytest.raises(GitHubRateLimitedError, match=r"resets at \d\d:"):
        sync_repo(client, REPO, tmp_path / "quill")
    assert len(github.fake.requests("GET")) == 1  # the spent quota was believed: no request after it


def test_a_304_to_a_first_sync_is_not_nothing_changed(github: RunningFake, tmp_path: Path) -> None:
    github.fake.inject("GET", f"/repos/{REPO}/issues", "not_modified")
    folder = tmp_path / "quill"
    result = runner.invoke(app, ["data", "sync", REPO, "--to", str(folder)])
    assert result.exit_code == 1 and "nothing changed" not in result.output
    assert "304 Not Modified" in one_error_line(result.output)


def test_a_folder_whose_issues_are_gone_is_fetched_again_not_answered_304(github: RunningFake, tmp_path: Path) -> None:
    folder = tmp_path / "quill"
    with client_for(github) as client:
        sync_repo(client, REPO, folder)
    jsonl_path(folder).write_text("", encoding="utf-8")  # the local data is gone; the state still has its ETag
    with client_for(github) as client:
        report = sync_repo(client, REPO, folder)
    assert not report.not_modified and len(read_issues(jsonl_path(folder))) == ISSUE_COUNT


def test_credentials_in_the_api_url_are_used_but_never_written_or_shown(
    github: RunningFake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("GITHUB_TOKEN")
    monkeypatch.setenv("PATH", str(tmp_path))  # no `gh` either: the URL's credentials are all there is
    secret_url = github.url.replace("http://", f"http://x-access-token:{TOKEN}@")
    monkeypatch.setenv("GITHUB_API_URL", secret_url)
    folder = tmp_path / "quill"
    result = runner.invoke(app, ["data", "sync", REPO, "--to", str(folder)])
    assert result.exit_code == 0, result.output
    state = (folder / "atlas-source.json").read_text(encoding="utf-8")
    assert TOKEN not in state and TOKEN not in result.output
    assert json.loads(state)["api"] == github.url.replace("http://", "http://***@")
    github.fake.inject("GET", f"/repos/{REPO}/issues", "echo")
    failed = runner.invoke(app, ["data", "sync", REPO, "--to", str(folder), "--full"])
    assert failed.exit_code == 1 and TOKEN not in failed.output
    assert "Validation Failed for Basic" in one_error_line(failed.output)


def test_a_token_echoed_back_to_the_tracker_never_reaches_the_model(
    github: RunningFake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch, atlas_home: Path
) -> None:
    folder = tmp_path / "quill"
    with client_for(github) as client:
        sync_repo(client, REPO, folder)
    github.fake.inject("POST", f"/repos/{REPO}/issues/41/labels", "echo")
    context = ToolContext(data=folder, home=atlas_home, session="s1", idempotency_key="k1")
    tracker = open_github_tracker(f"github:{REPO}", context)
    with pytest.raises(Exception) as failure:
        tracker.add_label(issue_brief(folder, atlas_home, 41), "enhancement", key="k1", session="s1")
    assert "Validation Failed for Bearer ***" in str(failure.value) and TOKEN not in str(failure.value)
