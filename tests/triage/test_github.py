"""Triage on a project synced from GitHub, applied to GitHub (the loopback fake) through the same executor."""

from __future__ import annotations

import json
from pathlib import Path

from atlas.github.client import GitHubClient
from atlas.github.sync import sync_repo
from tests.github.conftest import quill_fake
from tests.github.fake_github import REPO, TOKEN, RunningFake
from tests.support.run import atlas_env, finish, invoke, tracker_records
from tests.triage.test_review import review

NEW = 200


def untriaged_issue() -> dict[str, object]:
    return {
        "id": 1_000_000 + NEW,
        "number": NEW,
        "html_url": f"https://github.com/{REPO}/issues/{NEW}",
        "url": f"https://api.github.com/repos/{REPO}/issues/{NEW}",
        "title": "quill serve still ignores --port when quill.toml sets a port",
        "body": "quill serve ignores --port when a config file sets one: the port from quill.toml wins.",
        "state": "open",
        "user": {"login": "newcomer", "id": 9, "type": "User"},
        "labels": [],
        "comments": 0,
        "created_at": "2030-01-01T10:00:00Z",
        "updated_at": "2030-01-01T10:00:00Z",
        "closed_at": None,
        "author_association": "NONE",
    }


def test_a_plan_for_a_synced_project_is_applied_to_github_once(tmp_path: Path) -> None:
    fake = quill_fake()
    fake.add_issue(untriaged_issue())
    with RunningFake(fake) as github:
        folder = tmp_path / "quill"
        with GitHubClient(token=TOKEN, base_url=github.url) as client:
            sync_repo(client, REPO, folder)
        home = tmp_path / "home"
        home.mkdir()
        (home / "config.toml").write_text('[triage.groups]\nkind = ["bug", "enhancement"]\n')
        env = atlas_env(
            home, ORBIT_DATA=str(folder), ATLAS_TRACKER=f"github:{REPO}", GITHUB_API_URL=github.url, GITHUB_TOKEN=TOKEN
        )
        plan = tmp_path / "plan.json"
        done = invoke("triage", "--untriaged", "--plan", str(plan), env=env)
        assert done.code == 0, done
        saved = json.loads(plan.read_text())
        assert saved["dataset"] == f"github:{REPO}"
        labels = [item["arguments"]["label"] for item in saved["items"] if item["tool"] == "add_label"]
        assert "area:cli" in labels and all(item["issue_id"] == NEW for item in saved["items"])
        github.fake.log.clear()
        child, shown = review(env, "apply", str(plan))
        child.send(b"y\r")
        code, _ = finish(child)
        assert code == 0
        posted = [path for method, path, _ in github.fake.requests("POST")]
        assert posted.count(f"/repos/{REPO}/issues/{NEW}/labels") == len(labels)
        assert {label["name"] for label in github.fake.issues[NEW]["labels"]} == set(labels)
        assert len(tracker_records(env)) == len(shown)
        again = invoke("apply", str(plan), env=env)
        assert again.code == 0 and "Nothing left to apply" in again.stdout
        assert [path for method, path, _ in github.fake.requests("POST")] == posted
