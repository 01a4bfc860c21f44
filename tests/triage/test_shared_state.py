"""A team moving onto a shared database: a local folder's history pushed in once, and each person's
inbox keeping its own "new since you last looked"."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from tests.support.run import atlas_env, invoke, tracker_records
from tests.triage.test_exactly_once import RULES

pytestmark = pytest.mark.postgres


def test_a_local_folder_is_pushed_once_with_its_history(home: Path, database_url: str) -> None:
    (home / "config.toml").write_text(RULES, encoding="utf-8")
    local = atlas_env(home)
    assert invoke("triage", "135", "150", env=local).code == 0
    before = tracker_records(local)
    assert len(before) == 4

    shared = atlas_env(home, ATLAS_STATE_URL=database_url)
    first = invoke("state", "push", env=shared)
    assert first.code == 0, first
    assert "tracker actions: 4 found, 4 copied, 0 already there" in first.stdout
    assert "***@127.0.0.1" in first.stdout and "atlas:" not in first.stdout.split("to ", 1)[1].split("@")[0]
    again = invoke("state", "push", env=shared)
    assert "tracker actions: 4 found, 0 copied, 4 already there" in again.stdout, again
    assert "calls: " in again.stdout and ", 0 copied," in again.stdout.split("calls: ")[1]
    after = tracker_records(shared)
    assert [(r["key"], r["action"]) for r in after] == [(r["key"], r["action"]) for r in before]
    # The history is the team's now: a plan drafts no second comment on an issue commented on before.
    plan = invoke("triage", "135", "150", "--dry-run", env=shared)
    assert plan.code == 0 and "comment" not in plan.stdout, plan


def test_each_person_keeps_their_own_inbox_mark(home: Path, tmp_path: Path, database_url: str) -> None:
    envs = {}
    for name in ("ana", "bo"):
        folder = tmp_path / name
        shutil.copytree(home / "triage", folder / "triage")
        (folder / "config.toml").write_text(f'[state]\nperson = "{name}"\n', encoding="utf-8")
        envs[name] = atlas_env(folder, ATLAS_STATE_URL=database_url)
    assert "first inbox" in invoke("inbox", "--limit", "1", env=envs["ana"]).stdout
    assert "first inbox" not in invoke("inbox", "--limit", "1", env=envs["ana"]).stdout
    assert "first inbox" in invoke("inbox", "--limit", "1", env=envs["bo"]).stdout
    assert not (tmp_path / "ana" / "triage" / "inbox.json").exists()

    import psycopg

    with psycopg.connect(database_url, autocommit=True) as conn:
        marks = dict(conn.execute("SELECT person, newest FROM atlas_inbox_seen").fetchall())
        assert sorted(marks) == ["ana", "bo"] and marks["ana"] == marks["bo"]
        # Ana last looked long ago (issues came in since); Bo has just looked.
        conn.execute("UPDATE atlas_inbox_seen SET newest = '2000-01-01T00:00:00Z' WHERE person = 'ana'")

    def new_ones(name: str) -> int:
        shown = invoke("inbox", "--json", env=envs[name])
        assert shown.code == 0, shown
        return sum("new" in json.loads(line)["reasons"] for line in shown.stdout.splitlines() if line.strip())

    assert new_ones("bo") == 0 and new_ones("ana") > 0
    assert new_ones("ana") == 0  # looking marks them seen for her, and for no one else
