"""`atlas eval`: the real CLI over real suites, with the offline planner, a replay script and OpenAI (llmock)."""

from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Any

import pytest
from llmock.scenarios import Reply
from llmock.scenarios import ToolCall as MockCall

from atlas.commands.eval import EvalOptions, run_eval
from tests.support.run import Run, invoke

CASES = [
    {"id": "read", "question": "#41", "tags": ["refs"], "rounds": [[{"tool": "get_issue", "args": {"issue_id": 41}}]]},
    {
        "id": "label",
        "question": "label #41 comp:api",  # a label #41 does not have: a real change, so it is asked (and denied)
        "tags": ["actions"],
        "rounds": [[{"tool": "add_label", "args": {"issue_id": 41, "label": "comp:api"}}]],
    },
    {"id": "refuse", "question": "delete issue 41", "tags": ["refuse"], "rounds": [], "answer": ["cannot delete"]},
    {
        "id": "wrong",
        "question": "compare #41 and #87",
        "tags": ["refs"],
        "rounds": [[{"tool": "get_issue", "args": {"issue_id": 41}}, {"tool": "get_issue", "args": {"issue_id": 92}}]],
    },
]


def write_suite(path: Path, cases: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(case) + "\n" for case in cases), encoding="utf-8")
    return path


def atlas(*args: str) -> Run:
    return invoke("eval", *args, env=os.environ)


def test_the_table_gives_pass_rates_by_tag_and_each_miss_with_what_was_planned(tmp_path: Path) -> None:
    run = atlas(str(write_suite(tmp_path / "suite.jsonl", CASES)))
    assert run.returncode == 0, run.stderr
    rows = {line.split()[0]: line.split()[1:] for line in run.stdout.splitlines() if line.strip()}
    assert rows["refs"][:3] == ["│", "2", "│"] and rows["refs"][-1] == "50%"
    assert rows["actions"][-1] == "100%" and rows["refuse"][-1] == "100%" and rows["all"][-1] == "75%"
    assert "round 1: expected get_issue(issue_id=92)" in run.stdout
    assert "1: get_issue(issue_id=87)" in run.stdout
    assert run.stdout.rstrip().endswith("offline: 3/4 passed (75.0%)")
    assert run.stderr == ""  # no progress bar on a pipe


def test_json_and_the_min_rate_set_the_exit_code(tmp_path: Path) -> None:
    suite = write_suite(tmp_path / "suite.jsonl", CASES)
    run = atlas(str(suite), "--json", "--min", "0.8")
    assert run.returncode == 1
    report = json.loads(run.stdout)
    assert (report["cases"], report["passed"], report["model"]) == (4, 3, "offline")
    assert report["tags"]["refs"] == {"cases": 2, "passed": 1, "rate": 0.5}
    label = next(result for result in report["results"] if result["id"] == "label")
    assert label["planned"] == [
        {
            "round": 1,
            "tool": "add_label",
            "args": {"issue_id": 41, "label": "comp:api"},
            "kind": "denied",
            "side_effect": True,
        }
    ]
    assert atlas(str(suite), "--json", "--min", "0.75").returncode == 0


def test_side_effects_are_denied_and_nothing_is_written_to_the_state_folder(tmp_path: Path) -> None:
    home = Path(os.environ["ATLAS_HOME"])
    run = atlas(str(write_suite(tmp_path / "suite.jsonl", CASES[1:2])), "--json")
    assert json.loads(run.stdout)["results"][0]["planned"][0]["kind"] == "denied"
    assert not home.exists()  # no tracker file, no call log


@pytest.mark.parametrize(
    ("content", "says"),
    [("{nope\n", "suite.jsonl:1: not a valid case"), ("", "holds no cases")],
)
def test_a_bad_suite_is_one_line_and_exit_2(tmp_path: Path, content: str, says: str) -> None:
    (tmp_path / "suite.jsonl").write_text(content, encoding="utf-8")
    run = atlas(str(tmp_path / "suite.jsonl"))
    assert run.returncode == 2 and run.stdout == ""
    assert run.stderr.startswith("atlas: error: ") and says in run.stderr and run.stderr.count("\n") == 1


def test_a_replay_script_is_scored_like_any_model(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    script = {
        "turns": [
            {"calls": [{"name": "get_issue", "arguments": {"issue_id": 41}}]},
            {"calls": [{"name": "post_comment", "arguments": {"issue_id": 41, "body": "Fixed."}}]},
            {"text": "Done."},
        ]
    }
    (tmp_path / "run.json").write_text(json.dumps(script), encoding="utf-8")
    suite = write_suite(tmp_path / "suite.jsonl", CASES[:1])
    code = run_eval(EvalOptions(suite=suite, model=f"replay:{tmp_path / 'run.json'}", as_json=True))
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["passed"] == 0
    assert report["results"][0]["misses"] == [
        "round 2: a side effect not asked for: post_comment(issue_id=41, body='Fixed.')"
    ]


def test_an_openai_model_is_scored_through_the_real_sdk(
    llmock: Any, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    llmock.add(Reply(tool_calls=(MockCall("get_issue", {"issue_id": 41}),)))
    llmock.reply("Issue #41 is about a job that runs twice.")
    suite = write_suite(tmp_path / "suite.jsonl", CASES[:1])
    code = run_eval(EvalOptions(suite=suite, model="gpt-6-luna", as_json=True, min_rate=1.0))
    report = json.loads(capsys.readouterr().out)
    assert code == 0 and report["model"] == "gpt-6-luna" and report["passed"] == 1


def test_a_progress_bar_is_shown_on_a_terminal_only(tmp_path: Path) -> None:
    import pexpect

    suite = write_suite(tmp_path / "suite.jsonl", CASES)
    child = pexpect.spawn(
        sys.executable, ["-m", "atlas", "eval", str(suite)], env=os.environ.copy(), dimensions=(30, 120), timeout=60
    )
    child.expect(pexpect.EOF)
    shown = child.before.decode("utf-8", "replace")
    assert "━" in shown and "4/4" in shown  # the bar: "eval ━━━━━━ 4/4 0:00:01"
    assert "offline: 3/4 passed (75.0%)" in shown
