"""`atlas apply FILE` on a real terminal: each item re-checked against its issue now, reviewed, applied once."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from atlas.dataset.ensure import jsonl_path
from tests.support.dataset_factory import issue, make_dataset
from tests.support.run import REPO, atlas_env, finish, invoke, tracker_records
from tests.triage.test_review import QUESTION, TWO_TERMINAL_RUNS, review, written


def plan_file(env: dict[str, str], tmp_path: Path, *issues: str) -> tuple[Path, list[dict[str, object]]]:
    path = tmp_path / "plan.json"
    done = invoke("triage", *issues, "--plan", str(path), env=env)
    assert done.code == 0, done
    return path, json.loads(path.read_text())["items"]


def test_a_saved_plan_is_applied_after_review_and_never_twice(home: Path, tmp_path: Path) -> None:
    env = atlas_env(home)
    path, items = plan_file(env, tmp_path, "132", "135")
    child, shown = review(env, "apply", str(path))
    assert len(shown) == len(items)
    child.send(b"y\r")
    code, _ = finish(child)
    assert code == 0
    first = tracker_records(env)
    assert len(first) == len(items)
    # Every item applied: the second run stops before any review, so it needs no terminal.
    again = invoke("apply", str(path), env=env)
    assert again.code == 0, again
    assert again.stdout.count("already applied") == len(items) and "Nothing left to apply" in again.stdout
    assert tracker_records(env) == first


def test_an_item_whose_issue_changed_since_the_plan_is_skipped_and_said(tmp_path: Path, atlas_home: Path) -> None:
    lease = "The job ran twice: ORB-1101 LeaseExpired after the lease ran out while the worker was busy."
    redis = "Workers keep failing with ORB-1302 BrokerAuthFailed after the Redis password changed."
    issues = [
        issue(n, f"Lease expired, job ran twice ({n})", labels=["comp:core", "type:bug"], body=lease)
        for n in range(1, 8)
    ]
    issues += [
        issue(n, f"Redis auth fails ({n})", labels=["comp:broker-redis", "type:question"], body=redis)
        for n in range(8, 15)
    ]
    issues += [
        issue(20, "Job ran twice after its lease expired", body=lease, created_at="2026-03-05T10:00:00Z"),
        issue(21, "Redis password change breaks the workers", body=redis, created_at="2026-03-06T10:00:00Z"),
    ]
    data = make_dataset(tmp_path, issues)
    env = atlas_env(atlas_home, ORBIT_DATA=str(data))
    path, items = plan_file(env, tmp_path, "20", "21")
    assert {item["issue_id"] for item in items} == {20, 21}
    issues[-1]["comments"] = [{"author": "someone", "body": "Same here.", "created_at": "2026-03-07T10:00:00Z"}]
    jsonl_path(data).write_text("".join(json.dumps(i) + "\n" for i in issues), encoding="utf-8")
    child, shown = review(env, "apply", str(path))
    assert shown and all(what.startswith("#20 ") for what in shown.values())
    assert b"skipped, the issue changed since the plan was made" in (child.before or b"")
    child.send(b"y\r")
    code, _ = finish(child)
    assert code == 0
    assert written(env) and all(line.startswith("#20 ") for line in written(env))


def test_without_a_terminal_apply_writes_nothing_and_never_loads_the_text_model(home: Path, tmp_path: Path) -> None:
    """A `y` piped in approves nothing. The run re-checks each item against its issue and never reads
    the model: numpy, scipy and scikit-learn stay unloaded, so `atlas apply` starts as `atlas ask` does."""
    env = atlas_env(home)
    path, items = plan_file(env, tmp_path, "132")
    probe = (
        "import sys\nfrom atlas.cli.root import app\n"
        f"code = app(['apply', {str(path)!r}], standalone_mode=False)\n"
        "print(code, sorted(m for m in ('sklearn', 'numpy', 'scipy') if m in sys.modules))"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe], input="y\n", capture_output=True, text=True, cwd=REPO, env=env, timeout=120,
        start_new_session=True,  # no controlling terminal
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    assert "No terminal to review the plan on: nothing was applied" in done.stdout and items
    assert "— no terminal to ask" in done.stdout
    assert tracker_records(env) == []
    assert done.stdout.splitlines()[-1] == "0 []"
    assert QUESTION  # the same question as `atlas triage` asks


@TWO_TERMINAL_RUNS
def test_items_are_named_by_the_numbers_shown_when_earlier_ones_were_applied(home: Path, tmp_path: Path) -> None:
    env = atlas_env(home)
    path, _ = plan_file(env, tmp_path, "132", "135")
    child, shown = review(env, "apply", str(path))
    child.send(b"1\r")
    assert finish(child)[0] == 0
    child, shown = review(env, "apply", str(path))  # item 1 applied (and #132 changed): later numbers
    assert shown and min(shown) > 1 and max(shown) > len(shown)  # numbers, not positions
    last = max(shown)
    child.send(f"{last}\r".encode())
    code, rest = finish(child)
    assert code == 0 and f"approved {last}".encode() in rest
    assert len(written(env)) == 2 and written(env)[-1] == shown[last]
