"""The CI workflow of the documentation's policy page, end to end, without a terminal: its `run:`
steps as the page writes them, run by bash against the fake GitHub under the page's own policy, and
exactly which writes reach GitHub, and what the event streams say."""

from __future__ import annotations

import copy
import json
import os
import re
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.github.fake_github import REPO, TOKEN, RunningFake
from tests.support.run import REPO as CHECKOUT
from tests.support.run import Run, atlas_env, invoke, tracker_records, write_script

THANKS = "Thanks for the report! A maintainer will follow up."
NEW_ISSUE = 200
ALLOWED = re.compile(r"area:.*|bug|enhancement")


POLICY_PAGE = CHECKOUT / "docs" / "policy.md"


def page_block(first_line: str, language: str) -> str:
    """A file the policy page shows, as it stands there."""
    page = POLICY_PAGE.read_text(encoding="utf-8")
    found = re.search(rf"```{language}\n{re.escape(first_line)}\n(.*?)```", page, re.DOTALL)
    assert found, f"the policy page no longer shows {first_line}"
    return found.group(1)


def page_policy() -> str:
    return page_block("# .github/atlas-policy.toml", "toml")


def workflow_steps() -> list[str]:
    """Each `run:` of the page's workflow: one line, or a `|` block."""
    lines = page_block("# .github/workflows/triage.yml", "yaml").splitlines()
    steps: list[str] = []
    for index, line in enumerate(lines):
        found = re.match(r"^(\s*)(?:- )?run: (.*)$", line)
        if not found:
            continue
        if found.group(2).strip() != "|":
            steps.append(found.group(2))
            continue
        indent = len(found.group(1)) + 2
        block = []
        for following in lines[index + 1 :]:
            if following.strip() and len(following) - len(following.lstrip()) < indent:
                break
            block.append(following[indent:])
        steps.append("\n".join(block))
    return steps


def workflow_env() -> set[str]:
    block = page_block("# .github/workflows/triage.yml", "yaml")
    env = block.split("    env:\n", 1)[1].split("    steps:\n", 1)[0]
    return set(re.findall(r"^\s+([A-Z_]+):", env, re.M))


@pytest.fixture
def checkout(github: RunningFake, tmp_path: Path) -> Path:
    """The repository as actions/checkout leaves it: the page's policy in .github."""
    policy = tmp_path / "checkout" / ".github" / "atlas-policy.toml"
    policy.parent.mkdir(parents=True)
    policy.write_text(page_policy(), encoding="utf-8")
    return policy.parents[1]


@pytest.fixture
def runner_env(github: RunningFake, checkout: Path, tmp_path: Path) -> dict[str, str]:
    """What the workflow's `env:` and the runner give each step (atlas is the checkout's, on PATH)."""
    env = atlas_env(
        tmp_path / "runner" / "atlas",
        GITHUB_TOKEN=TOKEN,
        GITHUB_API_URL=github.url,
        GITHUB_REPOSITORY=REPO,
        ORBIT_DATA=str(tmp_path / "runner" / "issues"),
        ATLAS_TRACKER=f"github:{REPO}",
        ATLAS_POLICY=".github/atlas-policy.toml",
        ISSUE=str(NEW_ISSUE),
        PATH=os.pathsep.join([str(Path(sys.executable).parent), os.environ.get("PATH", "")]),
    )
    given = {"GITHUB_TOKEN", "ATLAS_HOME", "ORBIT_DATA", "ATLAS_TRACKER", "ATLAS_POLICY", "ISSUE"}
    assert workflow_env() == given, "the page's workflow env changed: give the test the same"
    return env


@pytest.fixture
def ci(github: RunningFake, checkout: Path, runner_env: dict[str, str]) -> dict[str, str]:
    """The environment of a step after the page's policy check and sync (for tests with a model)."""
    env = {**runner_env, "ATLAS_POLICY": str(checkout / ".github" / "atlas-policy.toml")}
    checked = invoke("policy", "check", env=env)
    assert checked.code == 0 and "3 rules, 0 failing" in checked.stdout, checked
    synced = invoke("data", "sync", REPO, "--to", env["ORBIT_DATA"], env=env)
    assert synced.code == 0, synced
    github.fake.log.clear()
    return env


def open_issue(github: RunningFake) -> tuple[int, list[str]]:
    number = next(n for n, issue in sorted(github.fake.issues.items()) if issue["state"] == "open" and n > 2)
    return number, [label["name"] for label in github.fake.issues[number]["labels"]]


def opened(github: RunningFake) -> None:
    """A new issue, unlabelled: the text of one the project labelled before, as a reporter would repeat it."""
    earlier = next(
        issue for _, issue in sorted(github.fake.issues.items()) if issue["state"] == "open" and issue["labels"]
    )
    issue = copy.deepcopy(earlier)
    issue.update(number=NEW_ISSUE, id=1_000_000 + NEW_ISSUE, labels=[], comments=0, title=earlier["title"] + " (again)")
    issue.update(created_at="2030-01-01T00:00:00Z", updated_at="2030-01-01T00:00:00Z")
    github.fake.add_issue(issue, [])


def events(stdout: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in stdout.splitlines()]


def run_steps(steps: list[str], checkout: Path, env: dict[str, str]) -> list[subprocess.CompletedProcess[str]]:
    """Each step as GitHub Actions runs it on ubuntu (`bash -e {0}`), with no terminal; stops at a failure."""
    done = []
    for step in steps:
        ran = subprocess.run(
            ["bash", "--noprofile", "--norc", "-eo", "pipefail", "-c", step],
            cwd=checkout, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=300,
            start_new_session=True,
        )  # fmt: skip
        assert ran.returncode == 0, f"step {step!r} failed: {ran.returncode}\n{ran.stdout}\n{ran.stderr}"
        done.append(ran)
    return done


ATLAS_STEP = re.compile(r"atlas (?P<args>.+?) > (?P<file>[\w.]+) \|\| test \$\? -eq 3")
VARIABLE = re.compile(r"\$(\w+)|\$\{(\w+)\}")


def run_in_process(step: str, checkout: Path, env: dict[str, str], monkeypatch: pytest.MonkeyPatch) -> Run:
    """A step of the form `atlas ARGS > FILE || test $? -eq 3`, run in this process as bash would run
    it in `checkout`: the variables of `env` expanded, standard output written to FILE, exit 0 or 3."""
    found = ATLAS_STEP.fullmatch(step.strip())
    assert found, f"the page's step {step!r} is no longer `atlas ... > FILE || test $? -eq 3`"
    args = shlex.split(VARIABLE.sub(lambda m: env[m.group(1) or m.group(2)], found["args"]))
    monkeypatch.chdir(checkout)
    ran = invoke(*args, env=env)
    assert ran.code in (0, 3), f"step {step!r} failed: {ran}"
    (checkout / found["file"]).write_bytes(ran.out)
    return ran


# Each of the workflow's steps is a bash running atlas, a process of its own as on a runner: on a
# loaded machine together they can outlast the suite's 120 s guard against a hang.
@pytest.mark.timeout(300)
def test_the_documented_workflow_labels_a_new_issue_and_thanks_once(
    github: RunningFake, checkout: Path, runner_env: dict[str, str], monkeypatch: pytest.MonkeyPatch
) -> None:
    opened(github)
    steps = [step for step in workflow_steps() if not step.startswith("pip install")]
    assert any("atlas triage" in step and "--jsonl" in step for step in steps)
    ran = run_steps(steps, checkout, runner_env)
    assert not any("Traceback" in step.stderr for step in ran)

    triage = events((checkout / "triage.jsonl").read_text(encoding="utf-8"))
    assert triage[0]["event"] == "triage_started" and triage[-1]["event"] == "finished"
    [plan] = [e for e in triage if e["event"] == "plan"]
    calls = {f"item-{item['n']}": (item["tool"], item["arguments"]) for item in plan["items"]}
    finished = {e["call_id"]: e for e in triage if e["event"] == "tool_finished"}
    assert set(finished) == set(calls)  # every item of the plan was decided, and said so
    labels = [label["name"] for label in github.fake.issues[NEW_ISSUE]["labels"]]
    assert labels and all(ALLOWED.fullmatch(label) for label in labels)
    for call_id, (tool, arguments) in calls.items():
        allowed = tool == "add_label" and ALLOWED.fullmatch(arguments["label"]) is not None
        expected = ("ok", "rule:triage-labels") if allowed else ("denied", "no-terminal")
        assert (finished[call_id]["kind"], finished[call_id]["decided_by"]) == expected, (tool, arguments)
    denied = [e["call_id"] for e in triage if e["event"] == "action_denied"]
    assert triage[-1]["exit_code"] == (3 if denied else 0)

    thanks = events((checkout / "thanks.jsonl").read_text(encoding="utf-8"))
    decided = [(e["tool"], e["decided_by"]) for e in thanks if e["event"] == "approval_decided"]
    assert decided == [("post_comment", "rule:triage-comment")] and thanks[-1]["exit_code"] == 0
    bodies = [c["body"].split("\n\n<!-- atlas:")[0] for c in github.fake.comments[NEW_ISSUE]]
    assert bodies == [THANKS]  # triage's own drafts are not the allowed text: never posted
    assert github.fake.requests("DELETE") == []

    # The workflow re-run on the same issue: nothing is added twice, the comment is not repeated.
    # Its two steps are the ones bash ran above; what they answer the second time is the point, so
    # they run in this process.
    again = [run_in_process(step, checkout, runner_env, monkeypatch) for step in steps[-2:]]
    assert not any("Traceback" in step.stderr for step in again)
    assert [c["body"].split("\n\n<!-- atlas:")[0] for c in github.fake.comments[NEW_ISSUE]] == [THANKS]
    assert [label["name"] for label in github.fake.issues[NEW_ISSUE]["labels"]] == labels
    thanked = events((checkout / "thanks.jsonl").read_text(encoding="utf-8"))
    assert [(e["tool"], e["decided_by"]) for e in thanked if e["event"] == "action_denied"] == [
        ("post_comment", "no-terminal")
    ]
    records = tracker_records(runner_env)
    assert {r["decided_by"] for r in records} == {"rule:triage-labels", "rule:triage-comment"}


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
    run = invoke("ask", "--jsonl", "-m", model, f"Triage issue #{number}", env=ci)
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
