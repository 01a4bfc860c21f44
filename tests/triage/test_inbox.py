"""`atlas inbox` as a maintainer runs it: what needs them, most severe first, and what is new since last time."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from atlas.dataset.ensure import jsonl_path
from tests.support.dataset_factory import issue, make_dataset
from tests.support.run import assert_no_traceback, atlas_env, invoke


def thread(author: str, *said: tuple[str, str, str]) -> list[dict[str, str]]:
    return [{"author": who, "body": body, "created_at": when} for who, body, when in said]


def backlog() -> list[dict[str, Any]]:
    found = [
        issue(
            n,
            f"Worker bug {n}",
            labels=["comp:worker", "type:bug", "severity:S3"],
            created_at=f"2026-01-0{n}T10:00:00Z",
        )
        for n in range(1, 6)
    ]
    found += [
        issue(6, "Crash on start", labels=["comp:core", "type:bug", "severity:S1"], created_at="2026-02-01T10:00:00Z"),
        issue(7, "How do queues work?", created_at="2026-02-20T10:00:00Z"),
        issue(8, "Lease question", labels=["comp:core", "type:question"], created_at="2026-02-21T10:00:00Z"),
        issue(
            9, "Closed long ago", state="closed", labels=["comp:core", "type:bug"], created_at="2025-01-01T10:00:00Z"
        ),
    ]
    for n in (1, 2, 3, 4, 5):
        found[n - 1]["author"] = "reporter"
        found[n - 1]["comments"] = thread("reporter", ("maintainer", "Fixed, thanks.", "2026-02-27T10:00:00Z"))
    found[5]["author"] = "reporter"  # #6: nobody but its author has spoken
    found[5]["comments"] = thread("reporter", ("reporter", "Any news?", "2026-02-02T10:00:00Z"))
    found[7]["author"] = "reporter"  # #8: a maintainer asked the reporter something, no answer since
    found[7]["comments"] = thread("reporter", ("maintainer", "Which version do you run?", "2026-02-22T10:00:00Z"))
    found.append(issue(10, "Newest", labels=["comp:api", "type:bug", "severity:S4"], created_at="2026-03-01T10:00:00Z"))
    found[-1]["author"] = "reporter"
    found[-1]["comments"] = thread("x", ("maintainer", "Looking.", "2026-03-01T12:00:00Z"))
    return found


def inbox(env: dict[str, str]) -> list[dict[str, Any]]:
    done = invoke("inbox", "--json", env=env)
    assert done.code == 0, done
    assert_no_traceback(done)
    return [json.loads(line) for line in done.stdout.splitlines()]


def test_the_inbox_says_why_each_issue_needs_a_maintainer_most_severe_first(tmp_path: Path) -> None:
    data = make_dataset(tmp_path, backlog())
    (tmp_path / "home").mkdir()
    (tmp_path / "home" / "config.toml").write_text("[triage]\nstale_days = 20\nwaiting_days = 3\n")
    env = atlas_env(tmp_path / "home", ORBIT_DATA=str(data))
    items = {item["id"]: item for item in inbox(env)}
    assert "untriaged: no comp:, type:" in items[7]["reasons"] and "unanswered" in items[7]["reasons"]
    assert "unanswered" in items[6]["reasons"]  # the author's own comment is no answer
    assert "waiting on the reporter for 7 days" in items[8]["reasons"]
    assert "stale: no activity for 27 days" in items[6]["reasons"]  # shown, never closed
    assert 9 not in items and 10 not in items and 1 not in items  # closed, or nothing to do
    order = [item["id"] for item in inbox(env)]
    assert order.index(6) < order.index(7)  # severity:S1 before issues without a severity
    waiting = invoke("inbox", "--json", "--only", "waiting", env=env)
    assert [json.loads(line)["id"] for line in waiting.stdout.splitlines()] == [8]
    text = invoke("inbox", env=env)
    assert "#6" in text.stdout and "open issues need a look" in text.stdout


def test_issues_filed_since_the_last_inbox_are_marked_new(tmp_path: Path) -> None:
    data = make_dataset(tmp_path, backlog())
    env = atlas_env(tmp_path / "home", ORBIT_DATA=str(data))
    assert not any(item["new"] for item in inbox(env))  # the first inbox has nothing to compare with
    newer = issue(11, "Filed after the last inbox", created_at="2026-03-02T10:00:00Z")
    with jsonl_path(data).open("a", encoding="utf-8") as out:
        out.write(json.dumps(newer) + "\n")
    marked = {item["id"]: item["new"] for item in inbox(env)}
    assert marked[11] is True and marked[7] is False
    assert not any(item["new"] for item in inbox(env))  # seen now


def test_a_damaged_inbox_memory_is_forgotten_not_trusted(tmp_path: Path) -> None:
    data = make_dataset(tmp_path, backlog())
    home = tmp_path / "home"
    (home / "triage").mkdir(parents=True)
    (home / "triage" / "inbox.json").write_bytes(b"\x00{not json")
    items = inbox(atlas_env(home, ORBIT_DATA=str(data)))
    assert items and not any(item["new"] for item in items)
    assert json.loads((home / "triage" / "inbox.json").read_text())  # rewritten whole


def severity_backlog() -> list[dict[str, Any]]:
    """Closed history that teaches the groups, and open issues of every kind of severity."""
    bug, question = ["comp:worker", "type:bug"], ["comp:core", "type:question"]
    found = [
        issue(n, f"Old bug {n}", state="closed", labels=[*bug, "severity:S3"], created_at=f"2025-01-0{n}T10:00:00Z")
        for n in range(1, 6)
    ]
    found += [
        issue(n, f"Old question {n}", state="closed", labels=question, created_at=f"2025-02-0{n}T10:00:00Z")
        for n in (7, 8)
    ]
    found += [
        issue(11, "Typo in --help", labels=[*bug, "severity:S4"], created_at="2025-06-01T10:00:00Z"),  # stale
        issue(12, "Jobs run twice", labels=[*bug, "severity:S1"], created_at="2026-02-20T10:00:00Z"),
        issue(13, "Pickup is slow", labels=[*bug, "severity:S2"], created_at="2026-02-10T10:00:00Z"),
        issue(14, "Something broke", created_at="2026-03-01T10:00:00Z"),  # no labels at all
        issue(15, "How do leases work?", labels=question, created_at="2026-01-01T10:00:00Z"),
        issue(16, "Worker hangs", labels=bug, created_at="2026-02-25T10:00:00Z"),  # a bug without a severity
    ]
    return found


def test_an_issue_without_a_severity_is_unknown_not_minor(tmp_path: Path) -> None:
    data = make_dataset(tmp_path, severity_backlog())
    env = atlas_env(tmp_path / "home", ORBIT_DATA=str(data))
    items = inbox(env)
    # The known worst first; then the unknown (it could be as bad), oldest first; then the rest of the
    # scale; last the question, which on this project takes no severity.
    assert [item["id"] for item in items] == [12, 16, 14, 13, 11, 15]
    unknown = {item["id"] for item in items if item["severity_unknown"]}
    assert unknown == {14, 16}
    table = invoke("inbox", env=env)
    assert table.code == 0 and "unknown" in table.stdout


def test_severity_words_rank_in_their_meaning_not_alphabetically() -> None:
    from atlas.triage.groups import LabelGroup
    from atlas.triage.severity import scale, severity_of

    words = LabelGroup("severity", ("severity:high", "severity:low", "severity:medium"), always=True)
    assert scale([words]) == ["severity:high", "severity:medium", "severity:low"]
    assert severity_of([words], ["severity:low", "severity:high"]).label == "severity:high"
    numbered = LabelGroup("priority", ("P0", "P10", "P2"), always=True)
    assert scale([numbered]) == ["P0", "P2", "P10"]
