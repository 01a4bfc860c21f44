"""`atlas data sync` against the fake GitHub: pages, incremental `since`, ETags, rate limits, failures."""

from __future__ import annotations

import json
import os
import threading
import time
from pathlib import Path

import pytest
from typer.testing import CliRunner

from atlas.cli.root import app
from atlas.dataset.ensure import jsonl_path, read_issues
from atlas.foundation.errors import DataError
from atlas.github.client import WAIT_SLICE_S, GitHubClient
from atlas.github.errors import GitHubAuthError, GitHubError, GitHubNotFoundError, GitHubRateLimitedError
from atlas.github.folder import read_state
from atlas.github.sync import sync_repo
from tests.github.conftest import ISSUE_COUNT
from tests.github.fake_github import REPO, TOKEN, RunningFake
from tests.support.run import invoke

runner = CliRunner()


def client_for(github: RunningFake, **options: object) -> GitHubClient:
    return GitHubClient(token=TOKEN, base_url=github.url, **options)  # type: ignore[arg-type]


def issues_in(folder: Path) -> dict[int, dict[str, object]]:
    return {issue["id"]: issue for issue in read_issues(jsonl_path(folder))}


def test_a_first_sync_fetches_every_page_skips_pull_requests_and_reads_comments(
    github: RunningFake, tmp_path: Path
) -> None:
    folder = tmp_path / "quill"
    seen: list[tuple[str, int, int | None]] = []
    with client_for(github) as client:
        report = sync_repo(client, REPO, folder, progress=lambda *step: seen.append(step))
    issues = issues_in(folder)
    assert len(issues) == ISSUE_COUNT and report.pull_requests == 2
    assert github.fake.requests("GET", "page=2")  # the Link header was followed
    with_comments = [n for n, issue in github.fake.issues.items() if issue["comments"]]
    assert report.comment_fetches == len(with_comments)
    assert seen[:2] == [("issue pages", 1, 2), ("issue pages", 2, 2)]
    assert seen[-1] == ("comment lists", len(with_comments), len(with_comments))
    assert len(github.fake.requests("GET", "/comments")) == len(with_comments)  # none for issues without
    on_github = github.fake.comments[7]
    assert issues[7]["comments"] == [
        {"author": c["user"]["login"], "body": c["body"], "created_at": c["created_at"]} for c in on_github
    ]
    state = read_state(folder)
    assert state["repo"] == REPO and state["since"] == max(i["updated_at"] for i in github.fake.issues.values())


def test_a_second_sync_fetches_only_what_changed_and_an_unchanged_repo_costs_a_304(
    github: RunningFake, tmp_path: Path
) -> None:
    folder = tmp_path / "quill"
    fake = github.fake
    with client_for(github) as client:
        sync_repo(client, REPO, folder)
    fake.log.clear()
    fake.touch(14, "2030-01-01T00:00:00Z")  # relabelled: listed again, its comments unchanged (304)
    fake.new_comment(13, "Still happens on 0.9.", "ana-r")
    fake.issues[13]["updated_at"] = "2030-01-01T00:00:01Z"
    fake.issues[13]["title"] = "Footnotes render twice in feeds and in the sitemap"
    with client_for(github) as client:
        report = sync_repo(client, REPO, folder)
    assert (report.new, report.updated) == (0, 2)
    listed = fake.requests("GET", f"/repos/{REPO}/issues?")
    assert len(listed) == 1 and "since=" in listed[0][1]
    comment_requests = {path.split("/")[5]: status for _, path, status in fake.requests("GET", "/comments")}
    assert comment_requests == {"13": 200, "14": 304}
    issues = issues_in(folder)
    assert issues[13]["title"].endswith("sitemap")
    assert issues[13]["comments"][-1]["body"] == "Still happens on 0.9."  # type: ignore[index]
    assert len(issues[14]["comments"]) == len(fake.comments[14]) == 2  # type: ignore[arg-type]

    fake.log.clear()
    with client_for(github) as client:
        again = sync_repo(client, REPO, folder)  # only the newest issue, listed again by the inclusive `since`
    assert (again.new, again.updated, again.comment_fetches) == (0, 0, 0)
    fake.log.clear()
    with client_for(github) as client:
        unchanged = sync_repo(client, REPO, folder)
    assert unchanged.not_modified
    assert [status for *_, status in fake.log] == [304]


def test_a_secondary_rate_limit_is_waited_out_with_a_message(github: RunningFake, tmp_path: Path) -> None:
    github.fake.inject("GET", f"/repos/{REPO}/issues", "secondary", seconds=1)
    waits: list[str] = []
    slept: list[float] = []
    with client_for(github, on_wait=waits.append, sleep=slept.append) as client:
        sync_repo(client, REPO, tmp_path / "quill")
    assert len(waits) == 1 and "rate limit" in waits[0] and "until" in waits[0]
    assert 0 < slept[0] <= 1.5
    assert len(issues_in(tmp_path / "quill")) == ISSUE_COUNT


def test_a_rate_limit_resetting_too_late_stops_with_the_reset_time_and_writes_nothing(
    github: RunningFake, tmp_path: Path
) -> None:
    github.fake.inject("GET", f"/repos/{REPO}/issues/\\d+/comments", "rate_limit", seconds=3600)
    with (
        client_for(github, max_wait_s=60) as client,
        pytest.raises(GitHubRateLimitedError, match=r"resets at \d\d:\d\d"),
    ):
        sync_repo(client, REPO, tmp_path / "quill", workers=1)
    assert not (tmp_path / "quill").exists()


def test_server_errors_and_dropped_connections_are_retried(github: RunningFake, tmp_path: Path) -> None:
    github.fake.inject("GET", f"/repos/{REPO}/issues", "server_error")
    github.fake.inject("GET", f"/repos/{REPO}/issues/7/comments", "drop")
    with client_for(github, sleep=lambda s: None) as client:
        sync_repo(client, REPO, tmp_path / "quill")
    assert len(issues_in(tmp_path / "quill")[7]["comments"]) == len(github.fake.comments[7])  # type: ignore[arg-type]
    assert ("GET", f"/repos/{REPO}/issues/7/comments?per_page=100", 0) in github.fake.log


def test_a_slow_answer_times_out_and_is_retried(github: RunningFake, tmp_path: Path) -> None:
    github.fake.inject("GET", f"/repos/{REPO}/issues", "slow", seconds=1.0)
    with client_for(github, timeout_s=0.3, sleep=lambda s: None) as client:
        sync_repo(client, REPO, tmp_path / "quill")
    assert len(issues_in(tmp_path / "quill")) == ISSUE_COUNT


def test_a_bad_token_and_an_unknown_repo_say_so(github: RunningFake, tmp_path: Path) -> None:
    with GitHubClient(token="wrong", base_url=github.url) as client, pytest.raises(GitHubAuthError, match="401"):
        sync_repo(client, REPO, tmp_path / "a")
    with client_for(github) as client, pytest.raises(GitHubNotFoundError, match="404"):
        sync_repo(client, "quill-org/nope", tmp_path / "b")


def test_a_folder_of_another_repo_is_refused(github: RunningFake, tmp_path: Path) -> None:
    folder = tmp_path / "quill"
    with client_for(github) as client:
        sync_repo(client, REPO, folder)
    with client_for(github) as client, pytest.raises(DataError, match="holds quill-org/quill"):
        sync_repo(client, "other/repo", folder)


def test_the_cli_syncs_then_reports_nothing_changed(github: RunningFake, tmp_path: Path) -> None:
    folder = tmp_path / "quill"
    first = runner.invoke(app, ["data", "sync", REPO, "--to", str(folder)])
    assert first.exit_code == 0, first.output
    assert f"{ISSUE_COUNT} new and 0 changed issues" in first.output and "Skipped 2 pull requests" in first.output
    runner.invoke(app, ["data", "sync", REPO, "--to", str(folder)])
    third = runner.invoke(app, ["data", "sync", REPO, "--to", str(folder)])
    assert "nothing changed since the last sync" in third.output


def test_the_cli_names_a_refused_token_in_one_line(
    github: RunningFake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", "expired")
    result = runner.invoke(app, ["data", "sync", REPO, "--to", str(tmp_path / "q")])
    assert result.exit_code == 1
    assert "nothing was written" in result.output and "GITHUB_TOKEN" in result.output
    assert "Traceback" not in result.output


def test_a_new_comment_on_the_second_page_of_a_long_thread_is_not_lost(github: RunningFake, tmp_path: Path) -> None:
    fake, folder = github.fake, tmp_path / "quill"
    long_thread = [
        {"id": 5000 + n, "user": {"login": "bjorn"}, "body": f"ping {n}", "created_at": "2025-02-01T00:00:00Z"}
        for n in range(100)
    ]
    fake.comments[5] = long_thread
    fake.issues[5]["comments"] = 100
    with client_for(github) as client:
        sync_repo(client, REPO, folder)
    fake.new_comment(5, "the 101st, on page two", "ana-r")
    with client_for(github) as client:
        sync_repo(client, REPO, folder)
    assert issues_in(folder)[5]["comments"][-1]["body"] == "the 101st, on page two"  # type: ignore[index]


def test_one_failing_comment_list_stops_the_others_waits_and_writes_nothing(
    github: RunningFake, tmp_path: Path
) -> None:
    github.fake.inject("GET", f"/repos/{REPO}/issues/1/comments", "rate_limit", seconds=60)
    github.fake.inject("GET", f"/repos/{REPO}/issues/2/comments", "scope")
    started = time.monotonic()
    with client_for(github) as client, pytest.raises(GitHubAuthError, match="needs the scope: repo"):
        sync_repo(client, REPO, tmp_path / "quill", workers=2)
    assert time.monotonic() - started < 20  # not the 60 s the rate limit asked for
    assert not (tmp_path / "quill").exists()


def test_the_wait_message_and_the_result_on_a_terminal(github: RunningFake, tmp_path: Path) -> None:
    from tests.support.run import atlas_env, finish, spawn_atlas

    github.fake.inject("GET", f"/repos/{REPO}/issues", "secondary", seconds=2)
    env = atlas_env(tmp_path / "home", GITHUB_API_URL=github.url, GITHUB_TOKEN=TOKEN)
    child = spawn_atlas("data", "sync", REPO, "--to", str(tmp_path / "quill"), env=env)
    child.expect(rb"GitHub's rate limit was reached: waiting 2 s, until \d\d:\d\d:\d\d UTC")
    child.expect(rb"comment lists .* \d+/98")  # the progress bar, on a terminal only
    child.expect(rb"130 new and 0 changed issues")
    code, _ = finish(child)
    assert code == 0


def test_odd_records_from_the_server_are_skipped_and_never_become_the_watermark(
    github: RunningFake, tmp_path: Path
) -> None:
    fake = github.fake
    fake.issues[900] = {**fake.issues[1], "number": "nine hundred", "updated_at": "2025-01-01T00:00:00Z"}
    fake.issues[901] = {**fake.issues[1], "number": 901, "comments": 0, "updated_at": "zzzz"}
    with client_for(github) as client:
        report = sync_repo(client, REPO, tmp_path / "quill")
    assert report.skipped == ["listed item 1: no issue number"]  # the oldest, listed first
    assert 901 in issues_in(tmp_path / "quill")
    assert read_state(tmp_path / "quill")["since"] == max(
        issue["updated_at"] for issue in fake.issues.values() if issue["updated_at"] != "zzzz"
    )


def test_a_spent_quota_is_waited_out_before_the_next_request_not_after_a_403(
    github: RunningFake, tmp_path: Path
) -> None:
    github.fake.rate_remaining, github.fake.rate_reset_in = 1, 2  # the first answer says 0 left, reset in 2 s
    waits: list[str] = []
    slept: list[float] = []

    def sleep(seconds: float) -> None:
        slept.append(seconds)
        github.fake.rate_remaining = 5000  # the quota came back

    with client_for(github, on_wait=waits.append, sleep=sleep) as client:
        sync_repo(client, REPO, tmp_path / "quill")
    assert len(waits) == 1 and 0 < slept[0] <= 2.5
    assert all(status != 403 for *_, status in github.fake.log)
    assert len(issues_in(tmp_path / "quill")) == ISSUE_COUNT


@pytest.mark.parametrize("waiting", ["issues", "issues/7/comments"])
def test_ctrl_c_during_a_wait_stops_at_once_and_writes_nothing(
    github: RunningFake, tmp_path: Path, waiting: str
) -> None:
    from tests.support.run import atlas_env, finish, spawn_atlas

    github.fake.inject("GET", f"/repos/{REPO}/{waiting}", "secondary", seconds=60)
    env = atlas_env(tmp_path / "home", GITHUB_API_URL=github.url, GITHUB_TOKEN=TOKEN)
    # Generous expect timeouts: on a loaded machine the start and the pages before the wait are slow.
    child = spawn_atlas("data", "sync", REPO, "--to", str(tmp_path / "quill"), env=env, timeout=90)
    child.expect(rb"waiting 60 s")
    started = time.monotonic()
    child.sendintr()
    code, rest = finish(child)
    took = time.monotonic() - started
    # A sync that sat the wait out, then stopped, takes 60 s at least.
    assert code == 130 and b"cancelled" in rest and took < 10, (code, took, rest[-2000:])
    assert not (tmp_path / "quill").exists()


def test_a_wait_is_made_of_short_waits_and_ends_when_the_client_stops(github: RunningFake) -> None:
    # The main thread runs a signal's Python handler only between waits: a Ctrl-C that lands just
    # before one long wait began would be seen only when that wait ended (60 s, once, under load).
    waits: list[float] = []
    with client_for(github) as client:
        stopped = client._stopped
        real_wait = stopped.wait

        def recorded(timeout: float | None = None) -> bool:
            waits.append(-1.0 if timeout is None else timeout)
            return real_wait(timeout)

        stopped.wait = recorded  # type: ignore[method-assign]
        started = time.monotonic()
        client._pause(1.0)
        assert time.monotonic() - started >= 1.0
        assert len(waits) >= 5 and 0 < max(waits) <= WAIT_SLICE_S
        threading.Timer(0.3, client.stop).start()
        with pytest.raises(GitHubError, match="stopped while waiting"):
            client._pause(60)
    assert time.monotonic() - started < 20


def test_without_github_token_the_token_of_gh_auth_is_used(
    github: RunningFake, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    gh = bin_dir / "gh"
    # The API is not github.com's: the token asked for is that host's.
    gh.write_text(f'#!/bin/sh\n[ "$*" = "auth token --hostname 127.0.0.1" ] && echo {TOKEN}\n', encoding="utf-8")
    gh.chmod(0o755)
    monkeypatch.delenv("GITHUB_TOKEN")
    monkeypatch.delenv("GH_TOKEN", raising=False)
    monkeypatch.setenv("PATH", f"{bin_dir}:{os.environ['PATH']}")
    result = runner.invoke(app, ["data", "sync", REPO, "--to", str(tmp_path / "quill")])
    assert result.exit_code == 0, result.output
    assert f"{ISSUE_COUNT} new" in result.output


def test_an_api_that_is_not_there_is_one_line_and_nothing_written(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import socket

    with socket.socket() as probe:  # a port that was free a moment ago: nobody listens there
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    monkeypatch.setenv("GITHUB_API_URL", f"http://127.0.0.1:{port}")
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    result = runner.invoke(app, ["data", "sync", REPO, "--to", str(tmp_path / "quill")])
    assert result.exit_code == 1
    assert result.output.strip() == (
        f"atlas: error: sync of {REPO} stopped, nothing was written: cannot connect to http://127.0.0.1:{port}: "
        "ConnectError"
    )
    assert not (tmp_path / "quill").exists()


def test_a_sync_after_an_import_without_comments_makes_them_known(github: RunningFake, tmp_path: Path) -> None:
    from atlas.dataset.read import comments_known, connect
    from atlas.github.importer import import_export

    export = tmp_path / "rest.json"
    rest = [issue for issue in github.fake.issues.values() if "pull_request" not in issue]
    export.write_text(json.dumps(rest), encoding="utf-8")  # REST issue JSON: comments are only counted
    folder, home = tmp_path / "quill", tmp_path / "home"
    import_export(export, folder, docs=None)
    with connect(folder, home) as conn:
        assert not comments_known(conn, folder)
    with client_for(github) as client:
        sync_repo(client, REPO, folder)
    with connect(folder, home) as conn:
        assert comments_known(conn, folder)
        assert conn.execute("SELECT count(*) FROM comments").fetchone()[0] > 0
    commented = next(i for i in rest if i.get("comments"))
    env = {**os.environ, "ORBIT_DATA": str(folder), "ATLAS_HOME": str(home)}
    shown = json.loads(invoke("issue", str(commented["number"]), "--json", env=env).stdout)
    assert shown["comment_count"] == commented["comments"] and "comments_note" not in shown
