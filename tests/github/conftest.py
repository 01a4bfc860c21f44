"""A running fake GitHub holding Quill's issues, and the environment that points Atlas at it."""

from __future__ import annotations

from collections.abc import Iterator

import pytest

from tests.github.fake_github import TOKEN, FakeGitHub, RunningFake
from tests.github.gh_export import gh_issues, pull_request, rest_comment, rest_issue

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
