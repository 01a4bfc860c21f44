"""`atlas ask` with OpenTelemetry on, against a real OTLP/HTTP receiver on loopback.

What arrives is decoded with the OTLP protobufs, and the span tree and its attributes are what
the GenAI conventions ask for: a question span holding its model requests and tool calls.
"""

from __future__ import annotations

import contextlib
import json
import os
import statistics
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pexpect
import pytest

from atlas.mcp import tools as mcp_tools
from atlas.telemetry.reach import SHUTDOWN_S
from tests.support.run import REPO, atlas_env, invoke
from tests.telemetry.otlp_receiver import ReceivedSpan, otlp_receiver

SEED = "Compare issues #41 and #87 and check what the error-codes doc says about ORB-1101."
UI_TOOLS = Path(__file__).resolve().parents[1] / "ui"


def traced_env(home: Path, endpoint: str, **extra: str) -> dict[str, str]:
    return atlas_env(home, OTEL_EXPORTER_OTLP_ENDPOINT=endpoint, OTEL_SERVICE_NAME="atlas-test", **extra)


def by_id(spans: list[ReceivedSpan]) -> dict[str, ReceivedSpan]:
    return {span.span_id: span for span in spans}


def replay(tmp_path: Path, turns: list[Any]) -> str:
    path = tmp_path / "script.json"
    path.write_text(json.dumps({"turns": turns}), encoding="utf-8")
    return f"replay:{path}"


def test_seed_question_is_one_trace_of_a_question_its_model_requests_and_tool_calls(tmp_path: Path) -> None:
    with otlp_receiver() as receiver:
        run = invoke("ask", "--json", SEED, env=traced_env(tmp_path / "home", receiver.url))
        assert run.code == 0, run
        spans = receiver.wait_for(6)
    assert receiver.requests[0]["path"] == "/v1/traces"
    assert receiver.requests[0]["content-type"] == "application/x-protobuf"
    (question,) = [span for span in spans if span.name == "invoke_agent atlas"]
    assert question.parent_id == ""
    assert question.service == "atlas-test"
    assert question.attributes["gen_ai.operation.name"] == "invoke_agent"
    assert question.attributes["gen_ai.request.model"] == "offline"
    assert question.attributes["atlas.outcome"] == "answered"
    assert question.attributes["atlas.rounds"] == 2
    session = json.loads(run.stdout)["session"]
    assert question.attributes["gen_ai.conversation.id"] == session
    models = [span for span in spans if span.name == "chat offline"]
    assert [span.attributes["atlas.round"] for span in models] == [1, 2]
    tools = [span for span in spans if span.name.startswith("execute_tool ")]
    assert sorted(span.name for span in tools) == [
        "execute_tool get_doc_section",
        "execute_tool get_issue",
        "execute_tool get_issue",
    ]
    for span in [*models, *tools]:
        assert span.trace_id == question.trace_id and span.parent_id == question.span_id
    for span in tools:
        assert span.kind == 1  # SPAN_KIND_INTERNAL, as the conventions ask of execute_tool
        assert span.attributes["gen_ai.operation.name"] == "execute_tool"
        assert span.attributes["gen_ai.tool.type"] == "function"
        assert span.attributes["gen_ai.tool.call.id"]
        assert span.attributes["atlas.error.kind"] == "ok"
        assert span.attributes["atlas.tool.source"] == "builtin"
        # Arguments and results are content: not without the opt-in.
        assert "gen_ai.tool.call.arguments" not in span.attributes
        assert "gen_ai.tool.call.result" not in span.attributes
    assert "gen_ai.input.messages" not in question.attributes


def test_a_log_row_leads_to_its_span(tmp_path: Path) -> None:
    home = tmp_path / "home"
    with otlp_receiver() as receiver:
        assert invoke("ask", "show issue 41", env=traced_env(home, receiver.url)).code == 0
        spans = receiver.wait_for(3)
    logged = [json.loads(line) for line in invoke("log", "--json", env=atlas_env(home)).stdout.splitlines()]
    (row,) = [row for row in logged if row["name"] == "get_issue"]
    span = by_id(spans)[row["span_id"]]
    assert span.name == "execute_tool get_issue" and span.trace_id == row["trace_id"]


def test_a_failed_tool_ends_its_span_with_the_error_kind(tmp_path: Path) -> None:
    with otlp_receiver() as receiver:
        run = invoke("ask", "show issue 9999", env=traced_env(tmp_path / "home", receiver.url))
        assert run.code == 0, run
        spans = receiver.wait_for(3)
    (tool,) = [span for span in spans if span.name == "execute_tool get_issue"]
    assert tool.attributes["atlas.error.kind"] == "permanent"
    assert tool.attributes["error.type"] == "permanent"
    assert tool.status_code == 2  # STATUS_CODE_ERROR


def test_a_denied_action_says_so_on_its_span(tmp_path: Path) -> None:
    with otlp_receiver() as receiver:
        run = invoke("ask", "label #41 severity:S1", env=traced_env(tmp_path / "home", receiver.url))
        assert run.code == 0, run
        spans = receiver.wait_for(3)
    (label,) = [span for span in spans if span.name == "execute_tool add_label"]
    assert label.attributes["atlas.approval.decision"] == "denied"
    assert label.attributes["atlas.tool.side_effect"] is True
    assert label.attributes["atlas.error.kind"] == "denied"
    assert "approval denied" in label.events


def test_content_is_captured_only_with_the_standard_opt_in(tmp_path: Path) -> None:
    env = {"OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "true"}
    with otlp_receiver() as receiver:
        assert invoke("ask", "show issue 41", env=traced_env(tmp_path / "home", receiver.url, **env)).code == 0
        spans = receiver.wait_for(3)
    (tool,) = [span for span in spans if span.name == "execute_tool get_issue"]
    assert json.loads(tool.attributes["gen_ai.tool.call.arguments"]) == {"issue_id": 41}
    assert json.loads(tool.attributes["gen_ai.tool.call.result"])["ok"] is True
    (question,) = [span for span in spans if span.name == "invoke_agent atlas"]
    assert json.loads(question.attributes["gen_ai.input.messages"])[0]["parts"][0]["content"] == "show issue 41"


def test_ctrl_c_ends_every_open_span_with_its_status(tmp_path: Path) -> None:
    turns = [{"calls": [{"name": "nap", "arguments": {"seconds": 20}}]}, {"text": "never"}]
    with otlp_receiver() as receiver:
        env = traced_env(tmp_path / "home", receiver.url, ATLAS_TOOL_MODULES="atlas_slow_tools", TERM="xterm")
        env["PYTHONPATH"] = os.pathsep.join([str(UI_TOOLS), env["PYTHONPATH"]])
        child = pexpect.spawn(
            sys.executable,
            ["-m", "atlas", "ask", "-m", replay(tmp_path, turns), "nap long"],
            env=env,
            cwd=str(REPO),
            encoding="utf-8",
            timeout=20,
            dimensions=(40, 120),
        )
        child.expect("running")
        child.sendintr()
        child.expect(pexpect.EOF)
        child.close()
        assert child.exitstatus == 130
        spans = receiver.wait_for(3)
    (question,) = [span for span in spans if span.name == "invoke_agent atlas"]
    (tool,) = [span for span in spans if span.name == "execute_tool nap"]
    assert question.attributes["atlas.outcome"] == "cancelled" and question.status_code == 2
    assert tool.status_code == 2 and tool.attributes["atlas.error.kind"] == "cancelled"
    assert tool.parent_id == question.span_id


def test_a_deadline_ends_the_question_span_with_the_timeout(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    turns = [{"calls": [{"name": "nap", "arguments": {"seconds": 20}}]}, {"text": "too late"}]
    monkeypatch.syspath_prepend(str(UI_TOOLS))  # where ATLAS_TOOL_MODULES finds the nap tool
    with otlp_receiver() as receiver:
        env = traced_env(tmp_path / "home", receiver.url, ATLAS_TOOL_MODULES="atlas_slow_tools")
        invoke("ask", "--deadline", "1", "-m", replay(tmp_path, turns), "nap long", env=env)
        spans = receiver.wait_for(3)
    (tool,) = [span for span in spans if span.name == "execute_tool nap"]
    assert tool.status_code == 2
    assert tool.attributes["atlas.error.kind"] in {"timeout", "cancelled"}
    (question,) = [span for span in spans if span.name == "invoke_agent atlas"]
    assert question.attributes["atlas.outcome"] in {"answered", "stopped", "error"}


@dataclass(frozen=True)
class Timed:
    """One `atlas ask "show issue 41"` in a process of its own, timed as a script waiting on it sees it."""

    took: float
    """Seconds from its start to its end."""
    after_answer: float
    """Seconds from the answer's last line on standard output to its end."""
    out: str
    err: str
    code: int


def _answer_then_exit(env: dict[str, str]) -> Timed:
    started = time.monotonic()
    child = subprocess.Popen(
        [sys.executable, "-m", "atlas", "ask", "show issue 41"],
        env=env,
        cwd=REPO,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        start_new_session=True,
    )
    assert child.stdout is not None and child.stderr is not None
    last_line_at, out = time.monotonic(), []
    for line in child.stdout:
        out.append(line.decode())
        last_line_at = time.monotonic()
    code = child.wait(timeout=30)
    exited_at = time.monotonic()
    return Timed(exited_at - started, exited_at - last_line_at, "".join(out), child.stderr.read().decode(), code)


@dataclass(frozen=True)
class Untraced:
    """A run with telemetry off, in a process of its own, on a state folder whose db was built."""

    home: Path
    code: int
    err: str
    """Its standard error, with `PYTHONPROFILEIMPORTTIME` naming every module it imported."""


@pytest.fixture(scope="module")
def untraced(tmp_path_factory: pytest.TempPathFactory) -> Untraced:
    home = tmp_path_factory.mktemp("untraced") / "home"
    invoke("ask", "show issue 41", env=atlas_env(home))  # the db is built before the timed runs
    run = _answer_then_exit(atlas_env(home, PYTHONPROFILEIMPORTTIME="1"))
    return Untraced(home, run.code, run.err)


ROUNDS = 3
MOST_AFTER_ANSWER = 0.9
"""What a run whose endpoint is down, refuses or never answers may add after its answer beyond the designed wait
(`SHUTDOWN_S`, 0.2 s, for a silent one), as a share of a whole run with telemetry off (about 0.17 s on a quiet
machine since a piped ask loads no pydantic; more at load, which slows both alike). Waiting for the exporter, as
before, added 0.55-0.6 s, 0.35 s past the designed wait: twice a whole run, and never less under load, since a
wait does not shrink."""
MOST_SLOWER_ANSWER = 2.5
"""How much later than with telemetry off the answer itself may come: the SDK's import, not a wait."""


@pytest.mark.serial
def test_an_endpoint_that_is_down_or_silent_costs_one_warning_and_hardly_any_time(untraced: Untraced) -> None:
    """Timed against telemetry off in the same test, run for run in turn, so a busy machine slows
    both: the median of what each run adds after its answer against the median whole run with
    telemetry off, and the fastest answer against the fastest (load only ever slows a run down)."""
    home = untraced.home
    with otlp_receiver("hang") as silent, otlp_receiver("refuse") as refusing:
        with otlp_receiver() as gone:
            closed = gone.url  # nothing listens there any more: connections are refused
        endpoints = {"hang": silent.url, "refuse": refusing.url, "closed": closed}
        runs: dict[str, list[Timed]] = {mode: [] for mode in ("off", *endpoints)}
        for _ in range(ROUNDS):
            for mode, timed in runs.items():
                env = atlas_env(home) if mode == "off" else traced_env(home, endpoints[mode])
                timed.append(_answer_then_exit(env))
    for mode in endpoints:
        for run in runs[mode]:
            assert run.code == 0 and "#41" in run.out, (mode, run)
            warnings = [line for line in run.err.splitlines() if "telemetry" in line]
            assert len(warnings) == 1 and warnings[0].startswith("atlas: warning: telemetry:"), (mode, run.err)
            assert "OTEL_EXPORTER_OTLP_ENDPOINT" in warnings[0] and "Traceback" not in run.err, (mode, run.err)
    off = runs["off"]
    after = {
        mode: (statistics.median(run.after_answer for run in runs[mode]) - SHUTDOWN_S)
        / statistics.median(run.took for run in off)
        for mode in endpoints
    }
    answer_off = min(run.took - run.after_answer for run in off)
    answer = {mode: min(run.took - run.after_answer for run in runs[mode]) / answer_off for mode in endpoints}
    # (whole run, of which after the answer) per run, for the figures
    shown = {mode: [(round(run.took, 2), round(run.after_answer, 2)) for run in timed] for mode, timed in runs.items()}
    assert max(after.values()) < MOST_AFTER_ANSWER, (after, shown)
    assert max(answer.values()) < MOST_SLOWER_ANSWER, (answer, shown)


def test_with_telemetry_off_nothing_of_opentelemetry_is_imported(untraced: Untraced) -> None:
    assert untraced.code == 0, untraced.err
    assert "import time:" in untraced.err  # the list of imports is there to be read
    assert "opentelemetry" not in untraced.err


def test_a_found_state_folder_cannot_send_traces_elsewhere(tmp_path: Path) -> None:
    """A cloned repository's .atlas/config.toml naming an endpoint is not followed."""
    project = tmp_path / "clone"
    (project / ".atlas").mkdir(parents=True)
    with otlp_receiver() as receiver:
        (project / ".atlas" / "config.toml").write_text(f'[telemetry]\nendpoint = "{receiver.url}"\n')
        env = atlas_env(tmp_path / "unused")
        del env["ATLAS_HOME"]
        with contextlib.chdir(project):
            done = invoke("ask", "show issue 41", env=env)
        assert done.code == 0, done
        # Spans a run sends are flushed before it ends: none can still be on their way here.
        assert receiver.requests == []


def test_a_chosen_state_folder_turns_telemetry_on(tmp_path: Path) -> None:
    home = tmp_path / "home"
    home.mkdir()
    with otlp_receiver() as receiver:
        (home / "config.toml").write_text(f'[telemetry]\nendpoint = "{receiver.url}"\nservice_name = "ci-atlas"\n')
        assert invoke("ask", "show issue 41", env=atlas_env(home)).code == 0
        spans = receiver.wait_for(3)
    assert {span.service for span in spans} == {"ci-atlas"}


def test_doctor_says_whether_telemetry_is_on_and_whether_the_endpoint_answers(tmp_path: Path) -> None:
    home = tmp_path / "home"
    off = json.loads(invoke("doctor", "--json", env=atlas_env(home)).stdout)
    (check,) = [check for check in off["checks"] if check["name"] == "telemetry"]
    assert check["ok"] and check["facts"]["enabled"] is False
    with otlp_receiver() as receiver:
        run = invoke("doctor", "--json", env=traced_env(home, receiver.url))
    (check,) = [check for check in json.loads(run.stdout)["checks"] if check["name"] == "telemetry"]
    assert check["ok"] and check["facts"]["answers"] is True
    assert check["facts"]["endpoint"] == receiver.url + "/v1/traces"
    with otlp_receiver() as gone:
        url = gone.url
    run = invoke("doctor", env=traced_env(home, url))
    assert run.code == 1
    assert "telemetry" in run.stdout and "unreachable" in run.stdout


def test_each_question_of_a_chat_is_its_own_trace(tmp_path: Path) -> None:
    with otlp_receiver() as receiver:
        run = invoke("chat", env=traced_env(tmp_path / "home", receiver.url), stdin=b"show issue 41\nshow issue 87\n")
        assert run.code == 0, run
        spans = receiver.wait_for(8)
    questions = sorted(
        (span for span in spans if span.name == "invoke_agent atlas"), key=lambda s: s.attributes["atlas.turn"]
    )
    assert [span.attributes["atlas.turn"] for span in questions] == [1, 2]
    assert questions[0].trace_id != questions[1].trace_id
    assert len({span.attributes["gen_ai.conversation.id"] for span in questions}) == 1
    tools = [span for span in spans if span.name == "execute_tool get_issue"]
    assert sorted(span.trace_id for span in tools) == sorted(span.trace_id for span in questions)


def test_an_mcp_call_is_a_child_of_its_execute_tool_span(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    # A loaded machine may take more than the product's 10 s to start the test server.
    monkeypatch.setattr(mcp_tools, "START_TIMEOUT_S", 60.0)
    home = tmp_path / "home"
    home.mkdir()
    server = Path(__file__).resolve().parents[1] / "mcp" / "mcp_test_server.py"
    (home / "config.toml").write_text(
        f"[mcp_servers.t]\ncommand = {json.dumps(sys.executable)}\nargs = [{json.dumps(str(server))}]\n"
    )
    turns = [{"calls": [{"name": "t__echo", "arguments": {"text": "hi"}}]}, {"text": "echoed"}]
    with otlp_receiver() as receiver:
        run = invoke("ask", "-m", replay(tmp_path, turns), "echo hi", env=traced_env(home, receiver.url))
        assert run.code == 0, run
        spans = receiver.wait_for(5)
    (tool,) = [span for span in spans if span.name == "execute_tool t__echo"]
    assert tool.attributes["gen_ai.tool.type"] == "extension"
    assert tool.attributes["atlas.tool.source"] == "mcp:t"
    (call,) = [span for span in spans if span.name == "tools/call echo"]
    assert call.parent_id == tool.span_id and call.kind == 3  # SPAN_KIND_CLIENT
    assert call.attributes["mcp.method.name"] == "tools/call"
    assert call.attributes["gen_ai.tool.name"] == "echo"


def test_jsonl_events_lead_to_their_spans_and_a_denial_names_who_decided(tmp_path: Path) -> None:
    with otlp_receiver() as receiver:
        run = invoke("ask", "--jsonl", "label #41 severity:S1", env=traced_env(tmp_path / "home", receiver.url))
        spans = receiver.wait_for(3)
    events = [json.loads(line) for line in run.stdout.splitlines()]
    finished = [event for event in events if event["event"] == "tool_finished" and event["tool"] == "add_label"]
    assert finished, run
    (label,) = [span for span in spans if span.name == "execute_tool add_label"]
    assert finished[0]["span_id"] == label.span_id and finished[0]["trace_id"] == label.trace_id
    assert label.attributes["atlas.approval.decided_by"] == finished[0]["decided_by"]
