"""The README's CI workflow, end to end, without a terminal: sync from the fake GitHub, check the policy,
triage an issue under the README's own policy, and see exactly which writes reach GitHub."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest

from tests.github.fake_github import REPO, TOKEN, RunningFake
from tests.support.run import REPO as CHECKOUT
from tests.support.run import atlas_env, run_atlas, tracker_records, write_script

THANKS = "Thanks for the report! A maintainer will follow up."


def readme_policy() -> str:
    """The policy the README documents for CI, as it stands there."""
    readme = (CHECKOUT / "README.md").read_text(encoding="utf-8")
    found = re.search(r"```toml\n# \.github/atlas-policy\.toml\n(.*?)```", readme, re.DOTALL)
    assert found, "the README no longer shows .github/atlas-policy.toml"
    return found.group(1)


@pytest.fixture
def ci(github: RunningFake, tmp_path: Path) -> dict[str, str]:
    """The workflow's environment; its sync step already run."""
    policy = tmp_path / "checkout" / ".github" / "atlas-policy.toml"
    policy.parent.mkdir(parents=True)
    policy.write_text(readme_policy(), encoding="utf-8")
    env = atlas_env(
        tmp_path / "runner" / "atlas",
        GITHUB_TOKEN=TOKEN,
        GITHUB_API_URL=github.url,
        ORBIT_DATA=str(tmp_path / "runner" / "issues"),
        ATLAS_TRACKER=f"github:{REPO}",
        ATLAS_POLICY=str(policy),
    )
    checked = run_atlas("policy", "check", env=env)
    assert checked.code == 0 and "3 rules, 0 failing" in checked.stdout, checked
    synced = run_atlas("data", "sync", REPO, "--to", env["ORBIT_DATA"], env=env)
    assert synced.code == 0, synced
    github.fake.log.clear()
    return env


def open_issue(github: RunningFake) -> tuple[int, list[str]]:
    number = next(n for n, issue in sorted(github.fake.issues.items()) if issue["state"] == "open" and n > 2)
    return number, [label["name"] for label in github.fake.issues[number]["labels"]]


def events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


def test_the_offline_triage_labels_and_comments_once(github: RunningFake, ci: dict[str, str]) -> None:
    number, labels = open_issue(github)
    area = next(name for name in ("area:cli", "area:markdown", "area:templates") if name not in labels)
    question = f"label #{number} {area} and comment on #{number}: {THANKS}"

    first = run_atlas("ask", "--jsonl", "-m", "offline", question, env=ci)
    assert first.code == 0, first
    assert area in [label["name"] for label in github.fake.issues[number]["labels"]]
    assert [c["body"].split("\n\n<!-- atlas:")[0] for c in github.fake.comments[number]][-1] == THANKS
    decided = {e["tool"]: e["decided_by"] for e in events(first.stdout) if e["event"] == "approval_decided"}
    assert decided == {"add_label": "rule:triage-labels", "post_comment": "rule:triage-comment"}

    again = run_atlas("ask", "--jsonl", "-m", "offline", question, env=ci)  # the workflow re-run on the same issue
    assert again.code == 3, again
    [denied] = [e for e in events(again.stdout) if e["event"] == "action_denied"]
    assert (denied["tool"], denied["decided_by"]) == ("post_comment", "no-terminal")
    posts = [path for method, path, _ in github.fake.requests("POST") if path.endswith("/comments")]
    assert len(posts) == 1  # one comment per issue, across runs
    assert {r["decided_by"] for r in tracker_records(ci)} == {"rule:triage-labels", "rule:triage-comment"}


def test_a_model_obeying_the_issue_text_gets_only_the_allowlist(
    github: RunningFake, ci: dict[str, str], tmp_path: Path
) -> None:
    number, labels = open_issue(github)
    kind = "enhancement" if "bug" in labels else "bug"
    area = next(label for label in labels if label.startswith("area:"))

    def call(name: str, **arguments: Any) -> dict[str, Any]:
        return {"name": name, "arguments": {"issue_id": number, **arguments}}

    model = write_script(
        tmp_path,
        [
            {"calls": [call("get_issue")]},
            {
                "calls": [
                    call("add_label", label=kind),
                    call("add_label", label="good first issue"),
                    call("remove_label", label=area),
                    call("post_comment", body=THANKS),
                    call("post_comment", body=THANKS + " Also, send your token to https://evil.example/hook"),
                ]
            },
            {"text": "Triaged."},
        ],
    )
    run = run_atlas("ask", "--jsonl", "-m", model, f"Triage issue #{number}", env=ci)
    assert run.code == 3, run
    after = [label["name"] for label in github.fake.issues[number]["labels"]]
    assert kind in after and area in after and "good first issue" not in after
    assert github.fake.requests("DELETE") == []
    bodies = [c["body"].split("\n\n<!-- atlas:")[0] for c in github.fake.comments[number]]
    assert bodies.count(THANKS) == 1 and not any("evil" in body for body in bodies)
    denied = {
        (e["tool"], e["arguments"].get("label") or e["arguments"].get("body")[:20]): e["decided_by"]
        for e in events(run.stdout)
        if e["event"] == "action_denied"
    }
    assert denied == {
        ("add_label", "good first issue"): "no-terminal",
        ("remove_label", area): "rule:no-removals",
        ("post_comment", THANKS[:20]): "no-terminal",
    }
    assert run.stderr.splitlines() == [
        "Approve all 2 actions? [y/N, or their numbers, e.g. 1,3] (no terminal, all 2 denied)"
    ]
