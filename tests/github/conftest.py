"""A running fake GitHub holding Quill's issues, and the environment that points Atlas at it."""

from __future__ import annotations

import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest

from atlas.github.client import GitHubClient
from atlas.github.sync import sync_repo
from tests.github.fake_github import REPO, TOKEN, FakeGitHub, RunningFake
from tests.github.gh_export import gh_issues, pull_request, rest_comment, rest_issue
from tests.support.once import made_once

ISSUE_COUNT = 130
"""Two pages of 100: pagination is exercised on every sync."""


def quill_fake(count: int = ISSUE_COUNT) -> FakeGitHub:
    fake = FakeGitHub()
    for gh in gh_issues(count):
        comments = [rest_comment(c, gh["number"] * 10 + n) for n, c in enumerate(gh["comments"])]
        fake.add_issue(rest_issue(gh), comments)
    for number in (count + 1, count + 2):
        fake.issues[number] = pull_request(number)
        fake.comments[number] = []
    return fake


@pytest.fixture
def github(monkeypatch: pytest.MonkeyPatch) -> Iterator[RunningFake]:
    with RunningFake(quill_fake()) as running:
        monkeypatch.setenv("GITHUB_API_URL", running.url)
        monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
        yield running


@pytest.fixture(scope="session")
def synced_quill(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """Quill's issues synced once per run, for every worker (a sync of 130 issues costs a second): read it,
    never write to it (`quill_data` is a test's own copy)."""
    return made_once(tmp_path_factory, "quill-synced", sync_quill) / "quill"


def sync_quill(folder: Path) -> None:
    with RunningFake(quill_fake()) as running, GitHubClient(token=TOKEN, base_url=running.url) as client:
        sync_repo(client, REPO, folder / "quill")


@pytest.fixture
def quill_data(synced_quill: Path, tmp_path: Path) -> Path:
    """A test's own copy of the synced dataset (a test may rebuild or change its files)."""
    return Path(shutil.copytree(synced_quill, tmp_path / "quill"))


@pytest.fixture
def data(
    github: RunningFake, quill_data: Path, monkeypatch: pytest.MonkeyPatch, request: pytest.FixtureRequest
) -> Path:
    """Quill's synced data with the fake GitHub as its tracker; a request waits the test module's
    `GITHUB_TIMEOUT` seconds at most (2 unless it says)."""
    monkeypatch.setenv("ATLAS_TRACKER", f"github:{REPO}")
    monkeypatch.setenv("ATLAS_GITHUB_TIMEOUT", getattr(request.module, "GITHUB_TIMEOUT", "2"))
    return quill_data
