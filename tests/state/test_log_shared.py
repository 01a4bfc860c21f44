"""`atlas log` on a team's shared state reads the team's call log for every view: the table, `--json`,
`--stats`, `--script` and `--follow` show everyone's calls (with who made each), `--mine` one's own."""

from __future__ import annotations

import json
import signal
import subprocess
import sys
from pathlib import Path

import pytest

from atlas.calllog import CallLog
from atlas.foundation.errors import ErrorKind
from atlas.protocol.events import CallRecord
from tests.support.run import REPO, atlas_env, invoke

pytestmark = pytest.mark.postgres


def _person(tmp_path: Path, name: str) -> Path:
    home = tmp_path / name
    home.mkdir()
    (home / "config.toml").write_text(f'[state]\nperson = "{name}"\n', encoding="utf-8")
    return home


def _call(name: str, ms: float, *, round_: int = 0, position: int = 0, attempts: int = 1) -> CallRecord:
    return CallRecord(round_, f"{name}-{round_}-{position}", name, {"issue_id": 41}, ErrorKind.OK, ms, attempts,
                      position=position)  # fmt: skip


def _log_as(home: Path, monkeypatch: pytest.MonkeyPatch, calls: list[CallRecord], *, session: str) -> None:
    """What a person's Atlas logs for one answered question: its calls, then the answer."""
    monkeypatch.setenv("ATLAS_HOME", str(home))
    log = CallLog.at_home(home)
    log.record_calls(calls, session=session, turn=1)
    log.record_turn(session=session, turn=1, question=f"what about #41 ({session})?", answer="It is a bug.",
                    model="offline", rounds=2)  # fmt: skip
    log.close()


@pytest.fixture
def team(tmp_path: Path, database_url: str, monkeypatch: pytest.MonkeyPatch) -> dict[str, dict[str, str]]:
    """Ana's and Bo's Atlas on one database, each having logged one question."""
    monkeypatch.setenv("ATLAS_STATE_URL", database_url)
    ana, bo = _person(tmp_path, "ana"), _person(tmp_path, "bo")
    ana_calls = [_call("search_issues", 30.0, position=1), _call("get_issue", 10.0), _call("get_issue", 12.0, round_=1)]
    _log_as(ana, monkeypatch, ana_calls, session="s-ana")
    _log_as(bo, monkeypatch, [_call("get_issue", 50.0, attempts=2)], session="s-bo")
    return {name: atlas_env(home, ATLAS_STATE_URL=database_url) for name, home in (("ana", ana), ("bo", bo))}


def _lines(run_output: str) -> list[dict[str, object]]:
    return [json.loads(line) for line in run_output.splitlines() if line.strip()]


def test_stats_count_the_teams_calls_and_mine_counts_ones_own(team: dict[str, dict[str, str]]) -> None:
    shown = invoke("log", "--stats", "--json", env=team["bo"])
    assert shown.code == 0, shown
    *tools, per_question = _lines(shown.stdout)
    by_name = {entry["name"]: entry for entry in tools}
    assert by_name["get_issue"]["calls"] == 3 and by_name["get_issue"]["max_ms"] == 50.0
    assert by_name["get_issue"]["p50_ms"] == 12.0 and by_name["get_issue"]["retries"] == 1
    assert by_name["search_issues"]["calls"] == 1
    assert per_question == {"calls_per_question": {"questions": 2, "p50": 1, "p95": 3, "max": 3,
                                                   "sources": {"atlas": {"questions": 2, "p50": 1, "p95": 3,
                                                                         "max": 3}}}}  # fmt: skip
    mine = _lines(invoke("log", "--stats", "--json", "--mine", env=team["bo"]).stdout)
    assert [(entry.get("name"), entry.get("calls")) for entry in mine[:-1]] == [("get_issue", 1)]
    table = invoke("log", "--stats", env=team["ana"])
    assert "search_issues" in table.stdout and "get_issue" in table.stdout, table


def test_a_script_replays_a_session_another_maintainer_logged(team: dict[str, dict[str, str]]) -> None:
    shown = invoke("log", "--script", "s-ana", env=team["bo"])  # Bo's own log.db never saw it
    assert shown.code == 0, shown
    assert json.loads(shown.stdout) == {"turns": [
        {"calls": [{"name": "get_issue", "arguments": {"issue_id": 41}},
                   {"name": "search_issues", "arguments": {"issue_id": 41}}]},
        {"calls": [{"name": "get_issue", "arguments": {"issue_id": 41}}]},
        {"text": "It is a bug."},
    ]}  # fmt: skip
    missing = invoke("log", "--script", "s-nobody", env=team["bo"])
    assert missing.code != 0 and len(missing.stderr.splitlines()) == 1 and "s-nobody" in missing.stderr


def test_the_json_and_the_table_say_who_and_mine_filters(team: dict[str, dict[str, str]]) -> None:
    calls = _lines(invoke("log", "--json", env=team["ana"]).stdout)
    assert sorted({str(call["person"]) for call in calls}) == ["ana", "bo"]
    assert [call["question"] for call in calls if call["person"] == "bo"] == ["what about #41 (s-bo)?"]
    mine = _lines(invoke("log", "--json", "--mine", env=team["ana"]).stdout)
    assert len(mine) == 3 and {call["person"] for call in mine} == {"ana"}
    table = invoke("log", env=team["bo"]).stdout
    assert "ana@" in table and "bo@" in table


@pytest.mark.timeout(60)
def test_follow_shows_a_call_another_maintainer_makes(
    team: dict[str, dict[str, str]], tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    follower = subprocess.Popen(
        [sys.executable, "-m", "atlas", "log", "-f", "--json", "-n", "1"],
        stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=team["bo"], cwd=REPO,
    )  # fmt: skip
    try:
        assert follower.stdout is not None
        assert json.loads(follower.stdout.readline())["session"] == "s-bo"  # the latest call, then the follow
        _log_as(tmp_path / "ana", monkeypatch, [_call("list_labels", 5.0)], session="s-ana-2")
        seen = json.loads(follower.stdout.readline())
        assert (seen["name"], seen["person"], seen["session"]) == ("list_labels", "ana", "s-ana-2")
    finally:
        follower.send_signal(signal.SIGINT)
        _, err = follower.communicate(timeout=10)
    assert follower.returncode == 0 and err == "", err
