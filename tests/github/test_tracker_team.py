"""A team's processes writing to GitHub at once through one shared database: a rule's `max_per_run`
holds across issues and processes, and an issue gets one drafted comment however many race for it."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.github.fake_github import REPO, RunningFake
from tests.state.race import race_writes

pytestmark = pytest.mark.postgres

LABEL = "good first issue"
"""A label the repository uses that none of issues 1-8 has yet."""


def _env(github: RunningFake, data: Path, database_url: str) -> dict[str, str]:
    return {"ATLAS_STATE_URL": database_url, "ATLAS_TRACKER": f"github:{REPO}", "ORBIT_DATA": str(data),
            "ATLAS_GITHUB_TIMEOUT": "3"}  # fmt: skip


def test_eight_processes_on_eight_issues_keep_one_runs_max_per_run_on_github(
    github: RunningFake, quill_data: Path, tmp_path: Path, database_url: str
) -> None:
    for issue in range(1, 9):  # each write's answer comes late: every process is inside its check at once
        github.fake.inject("POST", rf"/repos/{REPO}/issues/{issue}/labels", "slow", seconds=0.2)
    writes = [("add_label", issue, f"key-{issue}", "plan-shared") for issue in range(1, 9)]
    limits = {"rule": "thanks", "max_per_run": 3}  # the writers approve by rule:thanks
    answers = race_writes(tmp_path, writes, limits, _env(github, quill_data, database_url), label=LABEL)
    assert sum(1 for a in answers if a.get("changed")) == 3, answers
    assert all("3 per run" in a["refused"] for a in answers if not a.get("changed")), answers
    sent = github.fake.requests("POST", "/labels")
    assert len(sent) == 3, sent
    labelled = [n for n in range(1, 9) if LABEL in [x["name"] for x in github.fake.issues[n]["labels"]]]
    assert len(labelled) == 3


def test_two_maintainers_drafting_a_comment_on_one_issue_post_it_once_on_github(
    github: RunningFake, quill_data: Path, tmp_path: Path, database_url: str
) -> None:
    before = len(github.fake.comments[41])
    writes = [("post_comment", 41, f"key-{n}", f"plan-{n}") for n in range(2)]
    answers = race_writes(tmp_path, writes, {"first_comment": True}, _env(github, quill_data, database_url))
    assert sorted(bool(a.get("posted")) for a in answers) == [False, True], answers
    assert len(github.fake.comments[41]) == before + 1
