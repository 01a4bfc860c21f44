"""The shared state on a real PostgreSQL server the run starts itself (`tests/support/postgres.py`):
processes racing on one database, a server killed mid-run and restarted, a wrong password, a missing
database, and a local folder pushed in."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from atlas.foundation.errors import UnavailableToolError
from atlas.state.postgres import database as database_module
from atlas.state.postgres.database import forget_databases
from atlas.tools.registry import WriteLimits
from atlas.tracker.journal import IssueBrief, MockTracker
from tests.state.race import race_writes
from tests.support.pg_server import Server
from tests.support.run import atlas_env, invoke

pytestmark = pytest.mark.postgres


@pytest.mark.parametrize("processes", [2, 8])
def test_processes_racing_on_the_database_keep_max_per_issue(processes: int, tmp_path: Path, database_url: str) -> None:
    writes = [("post_comment", 41, f"key-{n}", f"run-{n}") for n in range(processes)]
    answers = race_writes(tmp_path, writes, {"rule": "thanks", "max_per_issue": 1}, {"ATLAS_STATE_URL": database_url})
    assert sum(1 for a in answers if a.get("posted")) == 1, answers
    assert all("per issue" in a["refused"] for a in answers if not a.get("posted")), answers


def test_one_run_across_processes_keeps_its_max_per_run(
    tmp_path: Path, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    writes = [("add_label", 100 + n, f"key-{n}", "plan-shared") for n in range(8)]
    answers = race_writes(tmp_path, writes, {"rule": "thanks", "max_per_run": 3}, {"ATLAS_STATE_URL": database_url})
    assert sum(1 for a in answers if a.get("changed")) == 3, answers
    monkeypatch.setenv("ATLAS_STATE_URL", database_url)
    assert len(MockTracker(tmp_path).records()) == 3
    assert not (tmp_path / "tracker_actions.jsonl").exists()  # nothing went to a local file


def _comment(tracker: MockTracker, n: int) -> dict[str, object]:
    return tracker.post_comment(IssueBrief(n, "t", []), f"comment {n}", key=f"key-{n}", session="run")


def test_a_server_killed_mid_run_fails_the_rest_as_unavailable_and_loses_nothing(
    own_server: Server, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("ATLAS_STATE_URL", own_server.create_database("team"))
    tracker = MockTracker(tmp_path)
    tracker.limits = WriteLimits(first_comment=True)
    for n in range(3):
        assert _comment(tracker, n)["posted"] is True
    own_server.kill()
    started = time.monotonic()
    for n in range(3, 6):
        with pytest.raises(UnavailableToolError, match=r"unreachable.*nothing was written"):
            _comment(tracker, n)
    assert time.monotonic() - started < 8.0  # the first failure waits for a connection; the rest fail at once
    assert own_server.password not in str(tracker.path)

    own_server.start()  # the restart
    # A process that runs on (a served MCP host) goes on once the lost database has been looked at again.
    monkeypatch.setattr(database_module, "LOST_RECHECK_S", 0.0)
    assert [r["issue_id"] for r in tracker.records()] == [0, 1, 2]  # none lost
    assert _comment(tracker, 3)["posted"] is True
    monkeypatch.setattr(database_module, "LOST_RECHECK_S", 30.0)

    forget_databases()  # a new process of Atlas
    again = MockTracker(tmp_path)
    again.limits = WriteLimits(first_comment=True)
    assert [r["issue_id"] for r in again.records()] == [0, 1, 2, 3]
    for n in range(6):  # the whole run again: what was recorded is not written twice, the rest now is
        assert _comment(again, n)["posted"] is True
    assert sorted(r["issue_id"] for r in again.records()) == [0, 1, 2, 3, 4, 5]
    forget_databases()


def test_a_wrong_password_is_one_line_without_it_and_nothing_is_written(postgres: Server, tmp_path: Path) -> None:
    url = postgres.url("postgres", password="not-the-password")
    run = invoke("tracker", env=atlas_env(tmp_path / "home", ATLAS_STATE_URL=url))
    assert run.code != 0 and run.stdout == "", run
    [line] = run.stderr.splitlines()
    assert "password authentication failed" in line and "nothing was written" in line
    assert "not-the-password" not in run.output and "postgresql://***@127.0.0.1" in line
    assert not (tmp_path / "home").exists()


def test_a_missing_database_says_to_create_it_and_nothing_falls_back_to_files(postgres: Server, tmp_path: Path) -> None:
    home = tmp_path / "home"
    env = atlas_env(home, ATLAS_STATE_URL=postgres.url("no_such_database"))
    run = invoke("triage", "135", "--dry-run", env=env)
    assert run.code != 0, run
    [line] = run.stderr.splitlines()
    assert 'database "no_such_database" does not exist' in line and "createdb" in line
    assert postgres.password not in run.output
    assert not (home / "tracker_actions.jsonl").exists() and not (home / "log.db").exists()


def test_a_server_down_at_start_is_one_line(tmp_path: Path) -> None:
    from tests.support.pg_server import free_port

    url = f"postgresql://atlas:secret-pw@127.0.0.1:{free_port()}/atlas"
    run = invoke("inbox", env=atlas_env(tmp_path / "home", ATLAS_STATE_URL=url))
    assert run.code != 0 and len(run.stderr.splitlines()) == 1 and "secret-pw" not in run.output, run
    assert "cannot be used" in run.stderr and "Connection refused" in run.stderr


def test_a_rule_one_maintainer_grants_applies_to_the_team_and_says_who(
    tmp_path: Path, database_url: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    from atlas.foundation.config import bundled_data_dir
    from atlas.policy import plans
    from atlas.policy.load import load_policy
    from atlas.tools.registry import ToolContext

    ana, bo = tmp_path / "ana", tmp_path / "bo"
    for folder, name in ((ana, "ana"), (bo, "bo")):
        folder.mkdir()
        (folder / "config.toml").write_text(f'[state]\nperson = "{name}"\n', encoding="utf-8")
    monkeypatch.setenv("ATLAS_STATE_URL", database_url)
    monkeypatch.setenv("ATLAS_HOME", str(ana))
    told = plans.write("add_label", {"issue_id": 41, "label": "type:bug"}, ToolContext(bundled_data_dir(), ana))
    assert "shared state (127.0.0.1:" in told and "config.toml" not in told
    assert "granted" not in (ana / "config.toml").read_text()  # the file holds no rule: the database does

    monkeypatch.setenv("ATLAS_HOME", str(bo))
    [rule] = [placed for placed in load_policy(bo).rules if placed.rule.name.startswith("granted-")]
    assert rule.trusted and rule.rule.labels == ["type:bug"] and "shared state" in rule.where
    listed = invoke("policy", "list", env=atlas_env(bo, ATLAS_STATE_URL=database_url))
    assert rule.rule.name in listed.stdout, listed
    import psycopg

    with psycopg.connect(database_url) as conn:
        assert conn.execute("SELECT person FROM atlas_granted_rules").fetchall() == [("ana",)]
    revoked = invoke("policy", "revoke", rule.rule.name, env=atlas_env(bo, ATLAS_STATE_URL=database_url))
    assert revoked.code == 0, revoked
    assert not [placed for placed in load_policy(ana).rules if placed.rule.name.startswith("granted-")]


def test_doctor_says_whether_the_shared_state_is_reachable(postgres: Server, database_url: str, tmp_path: Path) -> None:
    import json

    good = invoke("doctor", "--json", env=atlas_env(tmp_path / "a", ATLAS_STATE_URL=database_url))
    [team] = [check for check in json.loads(good.stdout)["checks"] if check["name"] == "team"]
    assert team["ok"] and "reachable" in team["detail"] and postgres.password not in good.stdout
    bad = invoke("doctor", "--json", env=atlas_env(tmp_path / "b", ATLAS_STATE_URL=postgres.url(password="nope-pw")))
    [team] = [check for check in json.loads(bad.stdout)["checks"] if check["name"] == "team"]
    assert not team["ok"] and "password authentication failed" in team["detail"] and "nope-pw" not in bad.stdout
    assert bad.code == 1
