"""Each `atlas data sync` that brings a new version of the data readies triage for it: the label tools never
fall back to failing after a sync."""

from __future__ import annotations

from pathlib import Path

import pytest
from typer.testing import CliRunner

from atlas.cli.root import app
from tests.github.fake_github import REPO, RunningFake
from tests.github.gh_export import gh_issues, rest_issue
from tests.support.tool_calls import run_calls
from tests.support.triage_kept import kept_files, large  # noqa: F401 (a fixture)

NEW = 140


def sync(folder: Path) -> str:
    result = CliRunner().invoke(app, ["data", "sync", REPO, "--to", str(folder)])
    assert result.exit_code == 0, result.output
    return result.output


@pytest.mark.usefixtures("large")
def test_a_sync_that_adds_an_issue_readies_the_new_version_and_one_that_adds_nothing_builds_nothing(
    github: RunningFake, tmp_path: Path, atlas_home: Path
) -> None:
    folder = tmp_path / "quill"
    assert "triage: the label model, the replay that checks it" in sync(folder)
    first = kept_files(atlas_home)
    issue = gh_issues(NEW)[-1]
    issue["labels"] = []  # reported since the last sync, not triaged yet
    github.fake.add_issue(rest_issue(issue, updated_at="2030-01-01T00:00:00Z"))
    assert "triage: the label model, the replay that checks it" in sync(folder)
    second = kept_files(atlas_home)
    built = {name for name in set(second) - set(first) if not name.startswith("labels-")}
    assert {name.split("-")[0] for name in built} == {"model", "verdicts", "index"}  # this version's own
    (suggested,) = run_calls(atlas_home, [{"name": "suggest_labels", "arguments": {"issue_id": NEW}}], data=folder)
    assert suggested["ok"], suggested
    assert {proposal["group"] for proposal in suggested["data"]["proposals"]} >= {"area"}  # type: ignore[index]
    unchanged = sync(folder)
    assert "Readying triage" not in unchanged and "triage:" not in unchanged
    assert kept_files(atlas_home) == second
