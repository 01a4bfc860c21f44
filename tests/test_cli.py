"""The non-interactive command line through Typer's runner: contracts, errors, exit codes, safety."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from collections.abc import Iterator
from importlib.metadata import entry_points
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from atlas import __version__
from atlas.calllog import CallLog
from atlas.cli.root import app
from atlas.commands.log import LogOptions, run_log
from atlas.foundation.errors import ErrorKind
from atlas.protocol.events import CallRecord
from atlas.tracker.journal import MockTracker
from tests.support.run import invoke

SEED = "Compare issues #41 and #87 and check what the error-codes doc says about ORB-1101."
runner = CliRunner()


@pytest.fixture
def home(atlas_home: Path) -> Path:
    return atlas_home


def run(*args: str, stdin: str | None = None) -> Any:
    # Wide enough that a long line of the answer is not folded in the middle of what a test looks for.
    return runner.invoke(app, list(args), input=stdin, env={"COLUMNS": "160"})


def script(tmp_path: Path, turns: list[Any], name: str = "script.json") -> str:
    path = tmp_path / name
    path.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    return f"replay:{path}"


def json_lines(text: str) -> list[dict[str, Any]]:
    return [json.loads(line) for line in text.splitlines() if line.strip()]


def test_version() -> None:
    result = run("--version")
    assert result.exit_code == 0 and result.stdout.strip() == f"atlas {__version__}"


def test_tools_table_and_schemas() -> None:
    table = run("tools")
    assert table.exit_code == 0
    for name in ("get_issue", "search_issues", "list_docs", "get_doc_section", "add_label", "post_comment"):
        assert name in table.stdout
    assert "side effect" in table.stdout and "idempotent" in table.stdout and "timeout" in table.stdout
    schemas = json.loads(run("tools", "--json").stdout)
    by_name = {schema["name"]: schema for schema in schemas}
    assert by_name["get_issue"]["parameters"]["properties"]["issue_id"]["type"] == "integer"
    assert all(schema["type"] == "function" and schema["strict"] is True for schema in schemas)
    read_only = {schema["name"] for schema in json.loads(run("tools", "--json", "--read-only").stdout)}
    assert "add_label" not in read_only and "get_issue" in read_only


def test_ask_json_is_one_object_and_matches_the_log() -> None:
    result = run("ask", "--json", "-m", "offline", SEED)
    assert result.exit_code == 0, result.output
    answer = json.loads(result.stdout)  # exactly one JSON document: anything else would not parse
    assert set(answer) >= {"answer", "model", "session", "rounds", "calls", "usage", "cost_usd"}
    assert answer["model"] == "offline" and answer["rounds"] == 2
    assert answer["usage"] == {"input_tokens": 0, "output_tokens": 0}
    calls = answer["calls"]
    assert [(c["name"], c["arguments"]) for c in calls] == [
        ("get_issue", {"issue_id": 41}),
        ("get_issue", {"issue_id": 87}),
        ("get_doc_section", {"doc_id": "error-codes", "heading": "ORB-1101"}),
    ]
    assert all(c["kind"] == "ok" and c["attempts"] == 1 and c["round"] == 1 for c in calls)
    assert "ORB-1101" in answer["answer"]

    logged = json_lines(run("log", "--json").stdout)
    assert sorted(c["call_id"] for c in logged) == sorted(c["call_id"] for c in calls)  # log: completion order
    for row in logged:
        assert row["session"] == answer["session"] and row["ts"].endswith("+00:00") and "message" in row
        assert {"round", "call_id", "name", "arguments", "kind", "ms", "attempts"} <= set(row)


def test_ask_on_a_pipe_gives_stdout_the_answer_and_stderr_the_progress() -> None:
    result = run("ask", "-m", "offline", SEED)
    assert result.exit_code == 0
    progress = result.stderr.splitlines()
    assert progress[0].startswith("atlas · offline · Orbit · side effects ask first")
    assert sum("get_issue(issue_id=" in line and " ok " in line for line in progress) == 2
    assert any(line.startswith("round 1:") and "s of calls" in line for line in progress)
    assert progress[-1].startswith("2 rounds · 3 calls · ")
    out = result.stdout
    # Only the answer, as the Markdown the model wrote: no header, rows or footer, no rendering.
    assert out.startswith("**Atlas · offline planner**")
    assert "get_issue(" not in out and "rounds ·" not in out and "atlas · offline" not in out
    assert "| title |" in out and "▌" not in out
    assert "\x1b" not in out + result.stderr  # a pipe gets no cursor or colour codes


def test_ask_through_real_pipes_keeps_long_lines_whole(tmp_path: Path) -> None:
    """`atlas ask ... > notes.md`: the answer unwrapped, the progress on stderr, as a shell runs it;
    and the offline planner never brings in the openai SDK."""
    done, modules = _modules_after(
        ["ask", "-m", "offline", "show issue #41"], tmp_path, env={**os.environ, "COLUMNS": "80"}
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.startswith("**Atlas · offline planner**")
    assert "get_issue(issue_id=41)" in done.stderr and "get_issue" not in done.stdout
    # Not folded to the 80 columns of COLUMNS: the lines are the model's own.
    assert max(len(line) for line in done.stdout.splitlines()) > 80
    assert "openai" not in modules


def test_question_from_stdin_and_empty_question() -> None:
    result = run("ask", "--json", "-m", "offline", "-", stdin="show issue #41\n")
    assert result.exit_code == 0
    assert [c["arguments"] for c in json.loads(result.stdout)["calls"]] == [{"issue_id": 41}]
    empty = run("ask", "-m", "offline", "-", stdin="  \n")
    assert empty.exit_code == 2 and "atlas: error: the question is empty" in empty.stderr


def test_failures_are_one_line_without_traceback(tmp_path: Path) -> None:
    missing = run("ask", "-m", f"replay:{tmp_path / 'nope.json'}", "hello")
    assert missing.exit_code == 1
    assert missing.stderr.strip().splitlines() == [
        f"atlas: error: replay script {tmp_path / 'nope.json'} does not exist"
    ]
    no_key = run("ask", "-m", "gpt-6-luna", "hello")
    assert no_key.exit_code == 1 and no_key.stderr.strip() == "atlas: error: set OPENAI_API_KEY or use --model offline"
    ran_out = run(
        "ask", "-m", script(tmp_path, [{"calls": [{"name": "get_issue", "arguments": {"issue_id": 41}}]}]), "q"
    )
    assert ran_out.exit_code == 1 and "has no turn left" in ran_out.stderr
    assert "Traceback" not in missing.output + no_key.output + ran_out.output
    usage = run("ask", "--max-rounds", "0", "hello")
    assert usage.exit_code == 2


def test_side_effect_without_a_terminal_is_denied(home: Path) -> None:
    result = run("ask", "--json", "-m", "offline", "label #41 severity:S1")
    assert result.exit_code == 0
    assert "Approve add_label(issue_id=41, label='severity:S1')? [y/N] (no terminal, denied)" in result.stderr
    assert [c["kind"] for c in json.loads(result.stdout)["calls"]] == ["denied"]
    assert MockTracker(home).records() == []
    assert run("tracker", "--json").stdout == ""


def test_read_only_never_offers_side_effects() -> None:
    result = run("ask", "--json", "--read-only", "-m", "offline", "label #41 severity:S1")
    assert result.exit_code == 0
    assert "add_label" not in [c["name"] for c in json.loads(result.stdout)["calls"]]
    plain = run("ask", "--read-only", "-m", "offline", "show issue #41")
    assert plain.stderr.startswith("atlas · offline · Orbit · read-only")


def test_log_filters_stats_and_usage_errors(tmp_path: Path) -> None:
    turns = [
        {
            "calls": [
                {"name": "get_issue", "arguments": {"issue_id": 41}},
                {"name": "get_issue", "arguments": {"issue_id": 999999}},
            ]
        },
        {"text": "done"},
    ]
    asked = json.loads(run("ask", "--json", "-m", script(tmp_path, turns), "q").stdout)
    assert [c["kind"] for c in asked["calls"]] == ["ok", "permanent"]
    errors = json_lines(run("log", "--json", "--errors").stdout)
    assert [(c["name"], c["kind"]) for c in errors] == [("get_issue", "permanent")]
    assert json_lines(run("log", "--json", "--kind", "ok", "--since", "2h").stdout)[0]["arguments"] == {"issue_id": 41}
    assert run("log", "--json", "--tool", "list_docs").stdout == ""
    assert len(json_lines(run("log", "--json", "-n", "1").stdout)) == 1
    assert len(json_lines(run("log", "--json", "--session", asked["session"]).stdout)) == 2
    table = run("log").stdout
    for column in ("time", "session", "round", "tool", "arguments", "kind", "ms", "attempts"):
        assert column in table
    assert "issue_id=999999" in table and "permanent" in table
    *stats, per_question = json_lines(run("log", "--stats", "--json").stdout)
    assert per_question["calls_per_question"]["max"] == 2 and per_question["calls_per_question"]["questions"] == 1
    assert stats == [
        {
            "name": "get_issue",
            "calls": 2,
            "p50_ms": stats[0]["p50_ms"],
            "p95_ms": stats[0]["p95_ms"],
            "max_ms": stats[0]["max_ms"],
            "kinds": {"ok": 1, "permanent": 1},
            "retries": 0,
            "denials": 0,
        }
    ]
    assert "p95 ms" in run("log", "--stats").stdout
    for bad in ("3x", "yesterday", "-2h"):
        result = run("log", "--since", bad)
        assert result.exit_code == 2 and "--since" in result.output
    # A misspelt kind is a usage error naming the kinds, not an empty "No calls match."
    result = run("log", "--kind", "timout")
    assert result.exit_code == 2 and "--kind" in result.output and "timeout" in result.output


def test_log_script_replays_the_session(tmp_path: Path) -> None:
    first = json.loads(run("ask", "--json", "-m", "offline", SEED).stdout)
    exported = run("log", "--script", first["session"])
    assert exported.exit_code == 0
    replay = tmp_path / "replay.json"
    replay.write_text(exported.stdout, encoding="utf-8")
    again = json.loads(run("ask", "--json", "-m", f"replay:{replay}", SEED).stdout)
    assert [(c["name"], c["arguments"]) for c in again["calls"]] == [
        (c["name"], c["arguments"]) for c in first["calls"]
    ]
    assert again["answer"] == first["answer"]
    unknown = run("log", "--script", "no-such-session")
    assert unknown.exit_code == 1 and unknown.stderr.startswith("atlas: error: no session 'no-such-session'")


HOSTILE_TEXT = (
    "[link=https://evil.example]approve[/link] [/] [bold red]loud[/] "
    "\x1b]52;c;cm0gLXJmIH4=\x07 \x1b[2J \x9b31m \u202eexe.txt see [docs](https://evil.example/docs)"
)


def assert_inert(output: str) -> None:
    assert "\x1b" not in output and "\x9b" not in output and "\u202e" not in output and "\x07" not in output


def test_hostile_arguments_and_answer_are_shown_inert_everywhere(tmp_path: Path) -> None:
    turns = [
        {
            "calls": [
                {"name": "search_issues", "arguments": {"query": "\x1b]8;;https://evil.example\x1b\\x\x1b]8;;\x1b\\"}}
            ]
        },
        {"text": HOSTILE_TEXT},
    ]
    shown = run("ask", "-m", script(tmp_path, turns), "q")
    assert shown.exit_code == 0
    assert_inert(shown.stdout)
    assert "[link=https://evil.example]approve[/link]" in shown.stdout
    assert "[docs](https://evil.example/docs)" in shown.stdout  # a pipe gets the source: the url is in sight
    assert "\\x1b]52;c;" in shown.stdout and "\\u202e" in shown.stdout
    for args in (
        ("log",),
        ("log", "--json"),
        ("log", "--stats"),
        ("ask", "--json", "-m", script(tmp_path, turns, "b.json"), "q"),
    ):
        output = run(*args).stdout
        assert_inert(output)


def test_escape_fixtures_of_the_dataset_come_out_inert() -> None:
    result = run("ask", "-m", "offline", "show issues #66, #111 and #124")
    assert result.exit_code == 0
    assert_inert(result.stdout)
    assert "\\x1b]8;;https://evil.example" in result.stdout
    assert "[link=https://evil.example]approve[/link]" in result.stdout
    assert_inert(run("log").stdout)


def _modules_after(
    args: list[str], cwd: Path, env: dict[str, str] | None = None
) -> tuple[subprocess.CompletedProcess[str], set[str]]:
    """`atlas ARGS` in a process of its own, through real pipes; what it wrote, and every module it imported."""
    probe = (
        "import atexit, sys\n"
        "atexit.register(lambda: sys.stderr.write('MODULES ' + ' '.join(sorted(sys.modules)) + '\\n'))\n"
        "from atlas.cli.root import app\n"
        "app(sys.argv[1:], prog_name='atlas')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, *args], cwd=cwd, env=env, capture_output=True, text=True, timeout=60
    )
    line = next(line for line in done.stderr.splitlines() if line.startswith("MODULES "))
    return done, set(line.split()[1:])


def _modules_after_each(commands: list[list[str]], cwd: Path) -> tuple[list[tuple[int, set[str]]], set[str]]:
    """Each of `commands` in turn in one fresh process, through real pipes: each one's exit code and
    every module imported once it has run (its own, and those of the ones before); and at the exit."""
    probe = (
        "import atexit, json, sys\n"
        "atexit.register(lambda: sys.stderr.write('EXIT MODULES ' + ' '.join(sorted(sys.modules)) + '\\n'))\n"
        "from atlas.cli.root import app\n"
        "for args in json.loads(sys.argv[1]):\n"
        "    try:\n"
        "        app(args, prog_name='atlas')\n"
        "        code = 0\n"
        "    except SystemExit as exit:\n"
        "        code = exit.code if isinstance(exit.code, int) else 1\n"
        "    sys.stderr.write(f'RAN {code} MODULES ' + ' '.join(sorted(sys.modules)) + '\\n')\n"
    )
    done = subprocess.run(
        [sys.executable, "-c", probe, json.dumps(commands)], cwd=cwd, capture_output=True, text=True, timeout=60
    )
    ran = [line.split() for line in done.stderr.splitlines() if line.startswith("RAN ")]
    at_exit = [line.split()[2:] for line in done.stderr.splitlines() if line.startswith("EXIT ")]
    assert len(ran) == len(commands) and len(at_exit) == 1, done.stderr
    return [(int(words[1]), set(words[3:])) for words in ran], set(at_exit[0])


def test_commands_never_import_openai(tmp_path: Path) -> None:
    """And `ask -m offline`: the real-pipes test above. One process for the four: a module a command
    imports stays imported, so none of them brought in openai if it is absent after the last."""
    commands = [["--help"], ["log"], ["tools"], ["tracker"]]  # `--help` first: it is held to the least
    each, at_exit = _modules_after_each(commands, tmp_path)
    for args, (code, modules) in zip(commands, each, strict=True):
        assert code == 0, args
        assert "openai" not in modules, args
        if args == ["--help"]:
            assert not {"rich", "pydantic", "prompt_toolkit", "sqlite3"} & modules
    assert "openai" not in at_exit


def test_python_dash_m_works_from_any_directory(tmp_path: Path) -> None:
    env = {**os.environ, "ATLAS_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-m", "atlas", "tools"], cwd=tmp_path, capture_output=True, text=True, timeout=60, env=env
    )
    assert done.returncode == 0 and "get_doc_section" in done.stdout


_COLLECTIONS_AT_EXIT = """
import gc, json, os, runpy, sys
def collections():
    return [generation["collections"] for generation in gc.get_stats()]
before = collections()
exit_now = os._exit
def report(code):
    sys.stderr.write("GC " + json.dumps([now - then for now, then in zip(collections(), before)]) + "\\n")
    sys.stderr.flush()
    exit_now(code)
os._exit = report
runpy.run_module("atlas", run_name="__main__", alter_sys=True)
"""


def test_a_question_is_answered_without_the_collector_walking_what_startup_built(tmp_path: Path) -> None:
    """`python -m atlas` and the `atlas` script raise the collector's first threshold before
    importing anything; at Python's default an offline ask collects about a hundred times."""
    (script,) = entry_points(group="console_scripts", name="atlas")
    assert script.value == "atlas.__main__:main"
    env = {**os.environ, "ATLAS_HOME": str(tmp_path / "home")}
    done = subprocess.run(
        [sys.executable, "-c", _COLLECTIONS_AT_EXIT, "ask", "-m", "offline", "What is issue 41 about?"],
        capture_output=True,
        text=True,
        timeout=60,
        env=env,
    )
    assert done.returncode == 0, done.stderr
    counts = json.loads(done.stderr.rsplit("GC ", 1)[1])
    assert sum(counts) <= 1, counts  # importing the package, before `main` runs, may make one


@pytest.mark.timeout(60)
def test_log_follow_prints_new_calls_and_leaves_quietly_on_ctrl_c(home: Path) -> None:
    env = {**os.environ, "ATLAS_HOME": str(home)}
    follower = subprocess.Popen(
        [sys.executable, "-m", "atlas", "log", "-f", "--json"],
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
        env=env,
    )
    try:
        asked = json.loads(run("ask", "--json", "-m", "offline", SEED).stdout)
        assert follower.stdout is not None
        seen = [json.loads(follower.stdout.readline()) for _ in asked["calls"]]
        assert sorted(c["call_id"] for c in seen) == sorted(c["call_id"] for c in asked["calls"])
    finally:
        follower.send_signal(signal.SIGINT)
        _, err = follower.communicate(timeout=10)
    assert follower.returncode == 0 and err == ""


def test_deadline_bounds_the_whole_question(tmp_path: Path) -> None:
    # A process: what is bounded is the interpreter's exit while the nap thread still sleeps.
    # The nap far outlasts the bounds, so a run that waited for it fails them even on a loaded machine.
    turns = [{"calls": [{"name": "nap", "arguments": {"seconds": 30}}]}, {"text": "done"}]
    env = {
        **os.environ,
        "PYTHONPATH": str(Path(__file__).parent / "ui"),
        "ATLAS_TOOL_MODULES": "atlas_slow_tools",
    }
    started = time.monotonic()
    done = subprocess.run(
        [sys.executable, "-m", "atlas", "ask", "--json", "--deadline", "1", "-m", script(tmp_path, turns), "q"],
        capture_output=True,
        text=True,
        env=env,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    (call,) = json.loads(done.stdout)["calls"]
    assert call["kind"] == "timeout" and call["ms"] < 10_000  # the 1 s deadline, not the 30 s nap
    assert time.monotonic() - started < 20  # the nap thread still sleeps; the process does not wait for it


def test_unreadable_state_is_one_line(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    not_a_folder = tmp_path / "file"
    not_a_folder.write_text("x")
    monkeypatch.setenv("ATLAS_HOME", str(not_a_folder))
    result = run("tracker")
    assert result.exit_code == 1
    assert result.stderr.startswith("atlas: error: cannot read ") and len(result.stderr.splitlines()) == 1


def test_chat_reads_questions_from_a_pipe() -> None:
    result = run("chat", "-m", "offline", stdin="show issue #41\n/read-only on\nlabel #41 severity:S1\n/cost\n")
    assert result.exit_code == 0, result.output
    out = result.stdout
    assert "atlas› show issue #41" in out and "Nightly rebuild runs twice" in out
    assert "atlas (read-only)› label #41 severity:S1" in out
    assert "add_label(" not in out  # read-only: the tool was not even offered
    assert "2 turns · 0 → 0 tokens · $0.0000" in out


class Polls:
    """Stands in for the follow's sleep: runs one step per poll, then ends the follow like Ctrl-C."""

    def __init__(self, *steps: Any) -> None:
        self.steps = list(steps)

    def __call__(self, seconds: float) -> None:
        if not self.steps:
            raise KeyboardInterrupt
        self.steps.pop(0)()


def logged(home: Path, call_id: str, *, ts: float, name: str = "get_issue", arguments: Any = None) -> None:
    record = CallRecord(
        round=1,
        call_id=call_id,
        name=name,
        arguments={"issue_id": 41} if arguments is None else arguments,
        kind=ErrorKind.OK,
        ms=12.0,
        attempts=1,
        ts=ts,
    )
    CallLog.at_home(home).record_call(record, session="1130-120000-abcd", turn=1)


def follow(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], *steps: Any, **options: Any) -> str:
    monkeypatch.setattr("atlas.commands.log.time.sleep", Polls(*steps))
    run_log(LogOptions(follow=True, **options))
    return str(capsys.readouterr().out)


def test_log_follow_shows_a_call_written_late_with_an_earlier_time(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    """A call's time is taken as it ends; another writer may commit it after a later one is shown."""
    now = time.time()
    logged(home, "shown", ts=now)
    out = follow(monkeypatch, capsys, lambda: logged(home, "late", ts=now - 2), as_json=True)
    assert [c["call_id"] for c in json_lines(out)] == ["shown", "late"]


def test_log_follow_never_repeats_calls_left_out_by_the_limit(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    now = time.time()
    for n in range(5):
        logged(home, f"old{n}", ts=now - 5 + n)
    out = follow(monkeypatch, capsys, lambda: None, lambda: logged(home, "new", ts=now + 1), limit=2, as_json=True)
    assert [c["call_id"] for c in json_lines(out)] == ["old3", "old4", "new"]


def test_log_follow_rows_line_up_under_the_header(
    home: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    now = time.time()
    logged(home, "a", ts=now)
    out = follow(
        monkeypatch,
        capsys,
        lambda: logged(home, "b", ts=now + 1, name="search_issues", arguments={"query": "lease expired twice"}),
        lambda: logged(home, "c", ts=now + 2, name="list_docs", arguments={}),
    )
    lines = [line for line in out.splitlines() if "│" in line or "┃" in line]
    assert len(lines) == 4  # the header and one line per call

    def separators(line: str) -> list[int]:
        return [index for index, char in enumerate(line) if char in "│┃"]

    assert all(separators(line) == separators(lines[0]) for line in lines)


@pytest.fixture
def india_zone() -> Iterator[str]:
    """This process in a POSIX zone (no tz database needed), as a process started with TZ set is."""
    zone, before = "IST-5:30", os.environ.get("TZ")
    os.environ["TZ"] = zone
    time.tzset()
    try:
        yield zone
    finally:
        if before is None:
            os.environ.pop("TZ", None)
        else:
            os.environ["TZ"] = before
        time.tzset()  # the zone of the tests that follow in this worker


def test_tracker_and_log_show_times_alike_in_the_local_zone(home: Path, india_zone: str) -> None:
    """An action and the call that wrote it carry the same time on screen, whatever the zone."""
    ts = 1796047200.0  # 2026-11-30 14:00:00 UTC
    logged(home, "write", ts=ts, name="add_label", arguments={"issue_id": 41, "label": "severity:S1"})
    record = {"ts": "2026-11-30T14:00:00.000+00:00", "key": "k", "action": "add_label", "issue_id": 41}
    (home / "tracker_actions.jsonl").write_text(json.dumps({**record, "label": "severity:S1", "session": "s"}) + "\n")
    for command in ("log", "tracker"):
        shown = invoke(command, env={**os.environ, "TZ": india_zone})
        assert "2026-11-30 19:30:00" in shown.stdout, (command, shown.stdout)


@pytest.mark.parametrize("args", [["ask", "-m", "offline", SEED], ["log"], ["log", "--json"]])
def test_a_reader_that_goes_away_is_not_a_failure(args: list[str], home: Path) -> None:
    """`atlas ... | head -1`: whichever sink meets the closed pipe first, exit 0 and no complaint on stderr."""
    logged(home, "a", ts=time.time())
    child = subprocess.Popen(
        [sys.executable, "-m", "atlas", *args], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    assert child.stdout is not None
    child.stdout.close()
    _, err = child.communicate(timeout=30)
    assert child.returncode == 0
    # `ask` writes its progress to stderr on a pipe; nothing there may be about the closed pipe.
    assert all(word not in err for word in ("atlas: error", "Traceback", "Broken pipe", "BrokenPipe"))
    assert err == "" or args[0] == "ask"


def test_chat_counts_its_turns_in_words() -> None:
    out = run("chat", "-m", "offline", stdin="show issue #41\n/cost\n").stdout
    assert "1 turn · 0 → 0 tokens · $0.0000" in out
    assert out.rstrip().endswith(": 1 turn, $0.0000")


def test_ask_builds_the_issues_db_before_any_tool_runs(tmp_path: Path) -> None:
    """A build longer than a tool's deadline still answers: it happens at start-up, with a line on stderr."""
    from bench.synthetic import write_dataset

    data = write_dataset(tmp_path / "orbit", 4000)
    env = {**os.environ, "ATLAS_HOME": str(tmp_path / "home"), "ORBIT_DATA": str(data)}
    done = invoke("ask", "--json", "--timeout", "0.05", "Summarize issue #41.", env=env)
    assert done.returncode == 0, done.stderr
    assert "building the issues db: reading issues" in done.stderr and "issues db ready" in done.stderr
    calls = json.loads(done.stdout)["calls"]
    assert [call["kind"] for call in calls if call["name"] == "get_issue"] == ["ok"], calls
    assert sorted(p.name for p in (data / "issues").iterdir()) == ["issues.jsonl", "orbit.db"]
