"""Exactly once across processes: runs racing on one state folder post each comment once and keep a
rule's counts, because the check and the record happen under the journal's one lock.

Every run here is a real `atlas` process started at the same moment as the others; nothing is mocked.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
from collections import Counter
from pathlib import Path

import pytest

from atlas.triage.drafts import ASKED, LOG_WANTED, VERSION_WANTED
from tests.support.run import atlas_env, invoke, tracker_records

COMMENT = f"{ASKED}\n\n- {VERSION_WANTED}\n- {LOG_WANTED}"
RULES = f"""
[[policy.rules]]
name = "ask-for-details"
decision = "allow"
tool = "post_comment"
text = [{json.dumps(COMMENT)}]
after_untrusted = true
max_per_issue = 1

[[policy.rules]]
name = "types"
decision = "allow"
tool = "add_label"
labels = ["type:*"]
after_untrusted = true
"""


def race(
    commands: list[list[str]], env: dict[str, str] | list[dict[str, str]]
) -> list[subprocess.CompletedProcess[str]]:
    """Start the commands together (no terminal, so the rules alone decide), each with its environment
    (or all with one), and wait for all."""
    started = [
        subprocess.Popen(
            [sys.executable, "-m", "atlas", *command],
            env=env[n] if isinstance(env, list) else env,
            stdin=subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
            text=True,
        )
        for n, command in enumerate(commands)
    ]
    done = []
    for process in started:
        out, err = process.communicate(timeout=90)
        done.append(subprocess.CompletedProcess(process.args, process.returncode, out, err))
    return done


def written(env: dict[str, str]) -> Counter[tuple[int, str, str]]:
    records = tracker_records(env)
    return Counter((r["issue_id"], r["action"], str(r.get("label", ""))) for r in records)


def test_two_plans_for_the_same_issues_applied_at_once_post_each_comment_once(home: Path, tmp_path: Path) -> None:
    (home / "config.toml").write_text(RULES, encoding="utf-8")
    env = atlas_env(home)
    plans = {"135 150": tmp_path / "a.json", "150 135": tmp_path / "b.json"}
    for issues, path in plans.items():  # in another order, another plan: other keys, the same comments
        # Only the applying races: the plans are written one after the other, in this process.
        made = invoke("triage", *issues.split(), "--plan", str(path), env=env)
        assert made.code == 0, made
    a, b = (json.loads(path.read_text()) for path in plans.values())
    assert a["checksum"] != b["checksum"] and len(a["items"]) == len(b["items"])

    runs = race([["apply", str(path)] for path in [*plans.values(), *plans.values()]], env)  # each by two at once
    assert all(run.returncode in (0, 1) and "Traceback" not in run.stderr for run in runs), runs
    counts = written(env)
    assert counts[(135, "post_comment", "")] == 1 and counts[(150, "post_comment", "")] == 1, counts
    assert counts[(135, "add_label", "type:bug")] == 1 and counts[(150, "add_label", "type:bug")] == 1, counts
    assert not any("✗" in run.stdout for run in runs), runs  # a comment another run posted is no failure


def test_four_triage_runs_at_once_post_one_comment_per_issue(home: Path) -> None:
    (home / "config.toml").write_text(RULES, encoding="utf-8")
    env = atlas_env(home)
    # In another order or with another issue, the plan is another plan (other keys), drafting the same comments.
    orders = [["135", "150"], ["150", "135"], ["135", "150", "131"], ["150", "135", "131"]]
    runs = race([["triage", *issues] for issues in orders], env)
    assert all("Traceback" not in run.stderr for run in runs), runs
    counts = written(env)
    comments = {issue: counts[(issue, "post_comment", "")] for issue in (135, 150)}
    assert comments == {135: 1, 150: 1}, counts
    assert all(n == 1 for n in counts.values()), counts


def _maintainer(fitted: Path, root: Path, name: str, url: str) -> dict[str, str]:
    """A maintainer's own state folder (rules, a name) on the team's shared database."""
    home = root / name
    shutil.copytree(fitted / "triage", home / "triage")
    (home / "config.toml").write_text(f'[state]\nperson = "{name}"\n{RULES}', encoding="utf-8")
    return atlas_env(home, ATLAS_STATE_URL=url)


@pytest.mark.postgres
@pytest.mark.parametrize("processes", [2, 8])
def test_maintainers_applying_overlapping_plans_on_one_database_do_each_action_once(
    processes: int, home: Path, tmp_path: Path, database_url: str
) -> None:
    teams = [_maintainer(home, tmp_path, f"maintainer-{n}", database_url) for n in range(processes)]
    plans = {"135 150": tmp_path / "a.json", "150 135": tmp_path / "b.json"}
    for issues, path in plans.items():
        made = invoke("triage", *issues.split(), "--plan", str(path), env=teams[0])
        assert made.code == 0, made
    runs = race([["apply", str(list(plans.values())[n % 2])] for n in range(processes)], teams)
    assert all(run.returncode in (0, 1) and "Traceback" not in run.stderr for run in runs), runs

    records = tracker_records(teams[0])
    counts = Counter((r["issue_id"], r["action"], str(r.get("label", ""))) for r in records)
    assert counts == {(135, "post_comment", ""): 1, (150, "post_comment", ""): 1,
                      (135, "add_label", "type:bug"): 1, (150, "add_label", "type:bug"): 1}, counts  # fmt: skip
    names = {f"maintainer-{n}" for n in range(processes)}
    assert all(r["person"] in names and r["machine"] for r in records), records
    someone = records[0]["person"]
    mine = tracker_records(teams[int(someone.rsplit("-", 1)[1])], "--mine")
    assert mine and all(r["person"] == someone for r in mine)
    assert not any((Path(env["ATLAS_HOME"]) / "tracker_actions.jsonl").exists() for env in teams)
