"""`atlas triage --dry-run` and `--plan` through a pipe, and `atlas apply` refusing a plan it cannot trust.

No terminal anywhere here: nothing may be written to the tracker or the call log.
"""

from __future__ import annotations

import json
import re
import shutil
from pathlib import Path

import pytest

from tests.support.dataset_factory import issue, make_dataset
from tests.support.run import assert_no_traceback, atlas_env, invoke, logged_calls, tracker_records

ISSUES = ["132", "135", "150"]


def test_a_dry_run_prints_the_exact_actions_and_writes_nothing(home: Path) -> None:
    env = atlas_env(home)
    done = invoke("triage", *ISSUES, "--dry-run", env=env)
    assert done.code == 0, done
    assert_no_traceback(done)
    assert re.search(r"^\d+\. add_label\(issue_id=132, label='type:bug'\)$", done.stdout, re.M)
    assert "#150 comment" in done.stdout and "the version you run" in done.stdout
    assert "needs a human (best guess" in done.stdout
    as_json = json.loads(invoke("triage", *ISSUES, "--dry-run", "--json", env=env).stdout)
    printed = [line for line in done.stdout.splitlines() if line[:1].isdigit()]
    assert len(printed) == len(as_json["actions"])
    assert all(action["tool"] in ("add_label", "post_comment") for action in as_json["actions"])
    assert tracker_records(env) == [] and logged_calls(env) == []


def test_without_a_terminal_the_plan_is_shown_and_nothing_is_applied(home: Path) -> None:
    env = atlas_env(home)
    done = invoke("triage", *ISSUES, env=env, stdin=b"y\n")  # a piped "y" approves nothing
    assert done.code == 0, done
    assert "No terminal to review the plan on: nothing was applied" in done.stdout
    assert "1. add_label(issue_id=" in done.stdout  # the plan, shown
    assert "— no terminal to ask" in done.stdout  # and each item, listed as not done
    assert tracker_records(env) == []
    assert {(c["kind"], c["decided_by"]) for c in logged_calls(env)} == {("denied", "no-terminal")}


def saved_plan(home: Path, tmp_path: Path, *issues: str) -> Path:
    path = tmp_path / "plan.json"
    done = invoke("triage", *issues, "--plan", str(path), env=atlas_env(home))
    assert done.code == 0, done
    assert f"apply with: atlas apply {path}" in done.stdout
    return path


@pytest.fixture(scope="module")
def shared_plan(fitted_home: Path, tmp_path_factory: pytest.TempPathFactory) -> str:
    """The text of one saved plan of ISSUES, made once: the tests that only damage or move it copy it."""
    folder = tmp_path_factory.mktemp("shared-plan")
    home = folder / "home"
    shutil.copytree(fitted_home / "triage", home / "triage")
    return saved_plan(home, folder, *ISSUES).read_text()


def copied_plan(text: str, tmp_path: Path) -> Path:
    path = tmp_path / "plan.json"
    path.write_text(text)
    return path


def test_a_saved_plan_names_its_dataset_each_issues_state_and_a_checksum(home: Path, tmp_path: Path) -> None:
    plan = json.loads(saved_plan(home, tmp_path, *ISSUES).read_text())
    assert (
        plan["format"] == "atlas-triage-plan" and plan["dataset"].startswith("folder:") and len(plan["checksum"]) == 64
    )
    assert set(plan["fingerprints"]) == set(ISSUES)
    assert [item["n"] for item in plan["items"]] == list(range(1, len(plan["items"]) + 1))
    assert tracker_records(atlas_env(home)) == []


def edited(text: str) -> str:
    plan = json.loads(text)
    plan["items"][0]["arguments"]["label"] = "comp:docs"
    return json.dumps(plan)


@pytest.mark.parametrize(
    ("damage", "message"),
    [
        (edited, "was changed after it was saved"),
        (lambda text: text[: len(text) // 2], "is not a whole plan"),
        (lambda text: json.dumps({"items": []}), "is not an Atlas triage plan"),
        (lambda text: "", "is not a whole plan"),
    ],
    ids=["edited", "truncated", "not-a-plan", "empty"],
)
def test_a_plan_that_was_edited_or_cut_short_is_refused_whole(  # type: ignore[no-untyped-def]
    home: Path, tmp_path: Path, shared_plan: str, damage, message
) -> None:
    path = copied_plan(shared_plan, tmp_path)
    path.write_text(damage(path.read_text()))
    env = atlas_env(home)
    done = invoke("apply", str(path), env=env)
    assert done.code == 1, done
    assert_no_traceback(done)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and lines[0].startswith("atlas: error: ") and message in lines[0], done
    assert "nothing was applied" in lines[0]
    assert tracker_records(env) == [] and logged_calls(env) == []


def test_a_plan_for_another_project_is_refused(home: Path, tmp_path: Path, shared_plan: str) -> None:
    path = copied_plan(shared_plan, tmp_path)
    other = make_dataset(tmp_path / "other", [issue(132, "Another project's #132", labels=["comp:core", "type:bug"])])
    env = atlas_env(home, ORBIT_DATA=str(other))
    done = invoke("apply", str(path), env=env)
    assert done.code == 1 and "was made for another dataset than this one; nothing was applied" in done.stderr, done
    assert tracker_records(env) == []


def test_an_unknown_issue_is_one_line_and_no_plan(home: Path, tmp_path: Path) -> None:
    path = tmp_path / "plan.json"
    done = invoke("triage", "132", "99999", "--plan", str(path), env=atlas_env(home))
    assert done.code == 1, done
    assert done.stderr.strip() == "atlas: error: there is no issue #99999 in this dataset (160 issues)"
    assert not path.exists()
    missing = invoke("apply", str(tmp_path / "nowhere.json"), env=atlas_env(home))
    assert (
        missing.code == 1
        and missing.stderr.strip() == f"atlas: error: there is no plan file {tmp_path / 'nowhere.json'}"
    )


def test_a_file_that_is_not_a_plan_is_never_overwritten(home: Path, tmp_path: Path) -> None:
    notes = tmp_path / "notes.json"
    notes.write_text('{"mine": true}')
    done = invoke("triage", "132", "--plan", str(notes), env=atlas_env(home))
    assert done.code == 1 and "exists and is not an Atlas plan" in done.stderr
    assert notes.read_text() == '{"mine": true}'
