"""The guard "never re-add a label a person removed", for a GitHub project: learnt from the issue's
events on the fake GitHub (paged, failing, hostile), not only from Atlas's own records."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from atlas.github.label_history import removed_by_others
from atlas.policy.gate import PolicyGate
from atlas.policy.load import load_policy
from atlas.runtime.toolset import load_registry
from atlas.tools.registry import ToolContext
from tests.github.fake_github import REPO, TOKEN, RunningFake
from tests.support.run import atlas_env, invoke, jsonl_events, tracker_records

RULES = """
[[policy.rules]]
name = "areas"
decision = "allow"
tool = "add_label"
labels = ["area:*"]
after_untrusted = true
"""


@pytest.fixture
def ruled(data: Path, atlas_home: Path) -> Path:
    """Quill's synced data on the fake GitHub (`tests/github/conftest.py`), under a state folder whose
    config holds RULES."""
    atlas_home.mkdir(parents=True, exist_ok=True)
    (atlas_home / "config.toml").write_text(RULES, encoding="utf-8")
    return data


def an_area_issue(github: RunningFake) -> tuple[int, str]:
    """An open issue with an `area:` label."""
    for number, issue in sorted(github.fake.issues.items()):
        areas = [label["name"] for label in issue.get("labels", []) if label["name"].startswith("area:")]
        if issue["state"] == "open" and areas and "pull_request" not in issue:
            return number, areas[0]
    raise AssertionError("no open issue with an area label")


def decide(data: Path, home: Path, issue: int, label: str) -> tuple[str, str]:
    gate = PolicyGate(load_policy(home), home)
    verdict = gate.decide(
        load_registry().declared("add_label"),
        {"issue_id": issue, "label": label},
        [],
        ToolContext(data=data, home=home),
    )
    return verdict.decision, verdict.note


def test_a_label_someone_removed_on_github_is_not_put_back_by_a_rule(
    github: RunningFake, ruled: Path, atlas_home: Path
) -> None:
    number, area = an_area_issue(github)
    github.fake.unlabel(number, area, "maintainer")
    decision, note = decide(ruled, atlas_home, number, area)
    assert decision == "ask" and f"someone removed {area} from #{number}" in note
    assert github.fake.requests("GET", f"/issues/{number}/events")
    # Put back on the web since: the rule applies again.
    github.fake.label_event(number, "labeled", area, "maintainer")
    assert decide(ruled, atlas_home, number, area)[0] == "allow"


def test_the_tokens_own_removals_are_left_to_atlas_records(github: RunningFake, ruled: Path, atlas_home: Path) -> None:
    number, area = an_area_issue(github)
    github.fake.unlabel(number, area, github.fake.login.upper())  # GitHub's logins are case-insensitive
    assert decide(ruled, atlas_home, number, area)[0] == "allow"


def test_a_removal_on_the_second_page_of_events_counts(github: RunningFake, ruled: Path, atlas_home: Path) -> None:
    number, area = an_area_issue(github)
    for _ in range(75):  # 150 events of someone toggling another label: two pages of 100
        github.fake.label_event(number, "labeled", "good first issue", "maintainer")
        github.fake.label_event(number, "unlabeled", "good first issue", "maintainer")
    github.fake.unlabel(number, area, "maintainer")
    assert decide(ruled, atlas_home, number, area)[0] == "ask"
    assert any("page=2" in path for _, path, _ in github.fake.requests("GET", f"/issues/{number}/events"))


@pytest.mark.parametrize("fault", ["server_error", "gone", "scope", "drop"])
def test_when_github_cannot_say_the_guard_holds(github: RunningFake, ruled: Path, atlas_home: Path, fault: str) -> None:
    number, area = an_area_issue(github)
    github.fake.inject("GET", rf"/repos/{REPO}/issues/{number}/events", fault)
    decision, note = decide(ruled, atlas_home, number, area)
    assert decision == "ask" and "label history could not be read" in note


def test_a_listing_that_never_ends_fails_closed(github: RunningFake, ruled: Path, atlas_home: Path) -> None:
    number, area = an_area_issue(github)
    github.fake.endless = True
    decision, note = decide(ruled, atlas_home, number, area)
    assert decision == "ask" and "could not be read" in note
    assert len(github.fake.requests("GET", f"/issues/{number}/events")) == 10


def test_a_token_that_cannot_say_whose_it_is_counts_every_removal(
    github: RunningFake, ruled: Path, atlas_home: Path
) -> None:
    number, area = an_area_issue(github)
    github.fake.unlabel(number, area, github.fake.login)
    github.fake.inject("GET", "/user", "scope")  # an app's installation token: 403 on GET /user
    assert decide(ruled, atlas_home, number, area)[0] == "ask"


def test_hostile_events_are_skipped() -> None:
    events: list[Any] = [
        "not an event",
        {"event": "unlabeled", "label": "area:cli", "actor": {"login": "x"}},  # label is not an object
        {"event": "unlabeled", "label": {"name": 3}, "actor": {"login": "x"}},
        {"event": "unlabeled", "label": {"name": "Area:CLI"}, "actor": None},  # a deleted account
        {"event": "closed", "label": {"name": "area:docs"}, "actor": {"login": "x"}},
        {"event": "unlabeled", "label": {"name": "area:api"}, "actor": {"login": ["atlas"]}},
    ]
    assert removed_by_others(events, "atlas") == {"area:cli", "area:api"}


def test_headless_ask_is_denied_and_nothing_reaches_github(
    github: RunningFake, quill_data: Path, tmp_path: Path
) -> None:
    home = tmp_path / "home"
    home.mkdir()
    (home / "config.toml").write_text(RULES, encoding="utf-8")
    env = atlas_env(
        home, GITHUB_TOKEN=TOKEN, GITHUB_API_URL=github.url, ORBIT_DATA=str(quill_data), ATLAS_TRACKER=f"github:{REPO}"
    )
    number, area = an_area_issue(github)
    github.fake.unlabel(number, area, "maintainer")
    synced = invoke("data", "sync", REPO, "--to", str(quill_data), env=env)  # the data knows it is gone
    assert synced.code == 0, synced
    run = invoke("ask", "--jsonl", "-m", "offline", f"label #{number} {area}", env=env)
    assert run.code == 3, run
    stream = jsonl_events(run)
    [asked] = [e for e in stream if e["event"] == "approval_asked"]
    assert f"someone removed {area} from #{number}" in asked["note"]
    [denied] = [e for e in stream if e["event"] == "action_denied"]
    assert denied["decided_by"] == "no-terminal"
    assert github.fake.requests("POST") == [] and tracker_records(env) == []
