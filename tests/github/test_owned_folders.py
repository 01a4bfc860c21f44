"""`atlas data import` and `sync` replace only what Atlas owns in a folder: `issues/`, `docs/` and
`atlas-source.json`; a folder whose state file is a link or not Atlas's is refused; a run that
is killed leaves nothing that the next run does not clean up."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from atlas.cli.root import app
from atlas.dataset.ensure import jsonl_path, read_issues
from atlas.github.client import GitHubClient
from atlas.github.sync import sync_repo
from tests.github.fake_github import REPO, TOKEN, RunningFake
from tests.github.gh_export import gh_issues

runner = CliRunner()


def write_json(path: Path, value: Any) -> Path:
    path.write_text(json.dumps(value), encoding="utf-8")
    return path


def git_repo(folder: Path) -> Path:
    folder.mkdir()
    subprocess.run(["git", "init", "-q", str(folder)], check=True)
    (folder / "notes.md").write_text("my notes", encoding="utf-8")
    return folder


def import_cli(export: Path, folder: Path) -> Any:
    return runner.invoke(app, ["data", "import", str(export), "--to", str(folder)])


def test_a_git_repository_with_a_forged_state_file_is_refused_and_kept(tmp_path: Path) -> None:
    repo = git_repo(tmp_path / "project")
    (repo / "atlas-source.json").write_text('{"source": "import"}', encoding="utf-8")
    result = import_cli(write_json(tmp_path / "issues.json", gh_issues(5)), repo)
    assert result.exit_code == 1
    assert result.output.strip().splitlines()[-1].startswith("atlas: error: ")
    assert "was not written by `atlas data`" in result.output
    assert (repo / ".git" / "HEAD").is_file() and (repo / "notes.md").read_text(encoding="utf-8") == "my notes"
    assert not (repo / "issues").exists()


def test_a_state_file_that_is_a_link_is_refused_even_to_a_real_one(tmp_path: Path) -> None:
    real = tmp_path / "real"
    assert import_cli(write_json(tmp_path / "issues.json", gh_issues(5)), real).exit_code == 0
    repo = git_repo(tmp_path / "project")
    (repo / "atlas-source.json").symlink_to(real / "atlas-source.json")
    result = import_cli(tmp_path / "issues.json", repo)
    assert result.exit_code == 1 and "is a link" in result.output
    assert (repo / ".git" / "HEAD").is_file() and (repo / "notes.md").is_file()


def test_files_a_user_adds_to_a_dataset_folder_survive_import_and_sync(github: RunningFake, tmp_path: Path) -> None:
    folder = tmp_path / "quill"
    with GitHubClient(token=TOKEN, base_url=github.url) as client:
        sync_repo(client, REPO, folder)
    subprocess.run(["git", "init", "-q", str(folder)], check=True)  # the folder kept under git
    (folder / "notes.md").write_text("triage notes", encoding="utf-8")
    (folder / "scripts").mkdir()
    (folder / "scripts" / "report.py").write_text("print('hi')", encoding="utf-8")
    github.fake.touch(7, "2031-01-01T00:00:00Z")
    with GitHubClient(token=TOKEN, base_url=github.url) as client:
        assert sync_repo(client, REPO, folder).updated == 1
    result = import_cli(write_json(tmp_path / "issues.json", gh_issues(20)), folder)
    assert result.exit_code == 0, result.output
    assert len(read_issues(jsonl_path(folder))) == 20
    assert (folder / ".git" / "HEAD").is_file() and (folder / "notes.md").read_text(encoding="utf-8") == "triage notes"
    assert (folder / "scripts" / "report.py").is_file()
    assert sorted(os.listdir(folder)) == [".git", "atlas-source.json", "docs", "issues", "notes.md", "scripts"]


def test_an_issue_number_past_what_sqlite_holds_is_one_skipped_record(tmp_path: Path) -> None:
    issues = gh_issues(5)
    issues[2]["number"] = 2**63
    result = import_cli(write_json(tmp_path / "issues.json", issues), tmp_path / "quill")
    assert result.exit_code == 0, result.output
    assert "Imported 4 issues" in result.output
    assert "record 3 (#9223372036854775808): the issue number is larger than" in result.output
    assert ".atlas-new" not in result.output and "issues.jsonl" not in result.output


def dead_pid() -> int:
    child = subprocess.Popen([sys.executable, "-c", "pass"])
    child.wait()
    return child.pid


def test_staging_left_by_a_killed_run_is_removed_by_the_next(tmp_path: Path) -> None:
    folder = tmp_path / "quill"
    export = write_json(tmp_path / "issues.json", gh_issues(5))
    assert import_cli(export, folder).exit_code == 0
    stale = folder / f".atlas-new-{dead_pid()}-0badc0de"
    (stale / "issues").mkdir(parents=True)
    live = folder / f".atlas-new-{os.getppid()}-0badc0de"  # a live process's: not ours to remove
    live.mkdir()
    assert import_cli(export, folder).exit_code == 0
    assert not stale.exists() and live.exists()


def test_sigterm_while_an_import_builds_leaves_the_old_dataset_and_no_staging(tmp_path: Path) -> None:
    folder = tmp_path / "quill"
    assert import_cli(write_json(tmp_path / "small.json", gh_issues(5)), folder).exit_code == 0
    big = write_json(tmp_path / "big.json", gh_issues(30_000))
    child = subprocess.Popen(
        [sys.executable, "-m", "atlas", "data", "import", str(big), "--to", str(folder)],
        env={**os.environ, "ATLAS_HOME": str(tmp_path / "home")},
        stdout=subprocess.DEVNULL,
        stderr=subprocess.PIPE,
    )
    deadline = time.monotonic() + 60
    while not any(p.name.startswith(".atlas-new-") for p in folder.iterdir()) and time.monotonic() < deadline:
        assert child.poll() is None, "the import ended before it started building"
        time.sleep(0.01)
    child.send_signal(signal.SIGTERM)
    _, stderr = child.communicate(timeout=30)
    assert child.returncode != 0 and b"Traceback" not in stderr
    assert sorted(p.name for p in folder.iterdir()) == ["atlas-source.json", "docs", "issues"]
    assert len(read_issues(jsonl_path(folder))) == 5


@pytest.mark.parametrize("content", ["[]", '{"source": "sync", "repo": "a/b"}', "not json", '{"source": "import"}'])
def test_state_files_atlas_does_not_write_are_refused(tmp_path: Path, content: str) -> None:
    folder = tmp_path / "data"
    folder.mkdir()
    (folder / "atlas-source.json").write_text(content, encoding="utf-8")
    (folder / "mine.txt").write_text("keep", encoding="utf-8")
    result = import_cli(write_json(tmp_path / "issues.json", gh_issues(3)), folder)
    assert result.exit_code == 1 and "refusing to touch the folder" in result.output
    assert sorted(os.listdir(folder)) == ["atlas-source.json", "mine.txt"]
