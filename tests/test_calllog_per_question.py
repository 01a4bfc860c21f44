"""`atlas log --stats`: calls per question (p50, p95, max), overall and per source, kept up to date incrementally."""

from __future__ import annotations

import json
import os
from pathlib import Path

from atlas.calllog import CallLog
from tests.support.run import invoke
from tests.test_calllog import record


def log_question(log: CallLog, session: str, turn: int, names: list[str], *, answered: bool = True) -> None:
    log.record_calls(
        [record(f"{session}-{turn}-{i}", name) for i, name in enumerate(names)], session=session, turn=turn
    )
    if answered:
        log.record_turn(session=session, turn=turn, question="q", answer="a", model="offline", rounds=1)


def stats_json(home: Path, *args: str) -> dict[str, object]:
    run = invoke("log", "--stats", "--json", *args, env={**os.environ, "ATLAS_HOME": str(home)})
    assert run.returncode == 0, run.stderr
    last = json.loads(run.stdout.splitlines()[-1])
    return last["calls_per_question"]  # type: ignore[no-any-return]


def test_calls_per_question_overall_and_per_source(tmp_path: Path) -> None:
    log = CallLog.at_home(tmp_path)
    for turn in range(1, 19):
        log_question(log, "s1", turn, ["get_issue"])  # 18 questions of one call
    log_question(log, "s1", 19, ["get_issue"] * 3 + ["git__git_log"] * 2)
    log_question(log, "s2", 1, ["search_issues"] * 9 + ["git__git_log"])
    log_question(log, "s2", 2, [])  # answered without a call
    got = stats_json(tmp_path)
    assert {key: got[key] for key in ("questions", "p50", "p95", "max")} == {
        "questions": 21,
        "p50": 1,
        "p95": 5,
        "max": 10,
    }
    assert got["sources"] == {
        "atlas": {"questions": 20, "p50": 1, "p95": 3, "max": 9},
        "mcp:git": {"questions": 2, "p50": 1, "p95": 2, "max": 2},
    }
    # One session only: read from its calls, not from the summary.
    assert stats_json(tmp_path, "--session", "s2")["max"] == 10


def test_the_summary_follows_new_calls_also_of_a_question_already_counted(tmp_path: Path) -> None:
    log = CallLog.at_home(tmp_path)
    log_question(log, "s", 1, ["get_issue"] * 2, answered=False)
    assert stats_json(tmp_path)["max"] == 2
    log_question(log, "s", 1, ["get_issue"] * 4)  # the same question's next round, then its answer
    log_question(log, "s", 2, ["get_issue"])
    got = stats_json(tmp_path)
    assert (got["questions"], got["max"], got["p50"]) == (2, 6, 1)


def test_the_table_shows_calls_per_question(tmp_path: Path) -> None:
    log = CallLog.at_home(tmp_path)
    log_question(log, "s", 1, ["get_issue", "git__git_log"])
    run = invoke("log", "--stats", env={**os.environ, "ATLAS_HOME": str(tmp_path)})
    assert "calls per question" in run.stdout and "mcp:git" in run.stdout
