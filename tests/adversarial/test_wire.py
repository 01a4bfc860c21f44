"""The model's wire: the real openai SDK, run by the real CLI, against llmock faults on loopback.

Each fault ends in one of two ways a user can act on: the recovered answer (exit 0), or one
clear `atlas: error:` line on stderr (exit 1) — never a traceback — and the call log stays
readable, keeping every call logged before the failure.

The runs are independent `atlas ask` commands, run one after another in this process: each asks
for its own model name, and each fault is scripted to match only that name, so they share one
llmock server. The cases that set a model timeout give it 2 s, which an honest reply on loopback
meets however busy the machine, against stalls of 10 s, which a client that ignored the timeout
would sit out: so they run beside other tests, as the rest do, and side by side in forked copies
of this process (`fork_invoke`), since each spends its time waiting out a stalled server.
"""

from __future__ import annotations

import base64
import dataclasses
import itertools
import json
import socket
from pathlib import Path
from typing import Any

import pytest
from llmock.journal import RequestRecord
from llmock.pytest_plugin import LLMock
from llmock.scenarios import Delay, Fail, Match, Reply, StreamFault, ToolFault
from llmock.scenarios import ToolCall as MockCall

from tests.support.once import made_once
from tests.support.run import (
    Run,
    assert_no_traceback,
    atlas_env,
    fork_invoke,
    invoke,
    logged_calls,
    tracker_records,
)

ANSWER = "ORB-1101 LeaseExpired: the lease ran out before the worker acknowledged the job (error-codes › ORB-1101)."
QUESTION = "What does ORB-1101 mean?"
READ_41 = Reply(tool_calls=(MockCall("get_issue", {"issue_id": 41}),))
# A stall of no time: round 1's stream takes it and stays whole, so the fault after it hits round 2.
WHOLE_STREAM = StreamFault("stall", after_chunks=1, stall_seconds=0, times=1)
MODEL_TIMEOUT_S = 2.0
STALL_S = 10.0
TIMEOUT = {"ATLAS_MODEL_TIMEOUT": f"{MODEL_TIMEOUT_S:g}"}

CASES: dict[str, tuple[list[Any], dict[str, str]]] = {
    "rate-limited-once": ([Fail(429, retry_after=0.4), Reply(text=ANSWER)], {}),
    "rate-limited": ([Fail(429, retry_after=0.05, times=None)], {}),
    "error-500-once": ([Fail(500, retry_after=0.05), Reply(text=ANSWER)], {}),
    "error-500": ([Fail(500, retry_after=0.05, times=None)], {}),
    "unauthorized": ([Fail(401, times=None, message="Incorrect API key provided")], {}),
    "not-found": ([Fail(404, times=None, message="The model does not exist")], {}),
    "disconnect": ([READ_41, WHOLE_STREAM, StreamFault("disconnect", after_chunks=3, times=None)], {}),
    "truncate": ([READ_41, WHOLE_STREAM, StreamFault("truncate", after_chunks=3, times=None)], {}),
    "malformed": ([READ_41, WHOLE_STREAM, StreamFault("malformed", after_chunks=3, times=None)], {}),
    "stall": (
        # Every attempt stalls, not only the first: on a busy machine the first may wait longer than
        # the timeout for its headers, and the SDK's retry of it must meet the same stalled stream.
        [Reply(text=ANSWER, times=None), StreamFault("stall", after_chunks=2, stall_seconds=STALL_S, times=None)],
        TIMEOUT,
    ),
    "slow-then-stall": (
        # What a busy machine did once: headers later than the timeout, so the SDK retried.
        [
            Delay(MODEL_TIMEOUT_S + 1.5),
            Reply(text=ANSWER, times=None),
            StreamFault("stall", after_chunks=2, stall_seconds=STALL_S, times=None),
        ],
        TIMEOUT,
    ),
    "no-headers": ([Delay(STALL_S, times=None)], TIMEOUT),
    "slow-once": (
        # The hung request takes the first reply with it; the retry gets the answer (every retry
        # does: on a busy machine one may itself wait past the timeout for its headers).
        [Delay(STALL_S), Reply(text="never delivered"), Reply(text=ANSWER, times=None)],
        TIMEOUT,
    ),
    "bad-arguments": ([ToolFault("malformed_arguments"), Reply(text=ANSWER)], {}),
    "unknown-tool": ([ToolFault("unknown_tool"), Reply(text=ANSWER)], {}),
    "refused": ([], {}),
    "hostile-write": (
        [
            Reply(
                tool_calls=(
                    MockCall("add_label", {"issue_id": 92, "label": "type:bug"}),
                    MockCall("post_comment", {"issue_id": 41, "body": "Duplicate of #92, closing."}),
                )
            ),
            Reply(text=ANSWER),
        ],
        {},
    ),
}
OFFERED_WRITES = {"hostile-write"}
"""Cases run without --read-only: the model is offered the side-effect tools (and no terminal approves)."""
TIMED = {name for name, (_, extra) in CASES.items() if "ATLAS_MODEL_TIMEOUT" in extra}
"""Cases that set a model timeout: run after one another, apart from the rest, as they wait out stalls."""


@dataclasses.dataclass(frozen=True)
class WireRun:
    run: Run
    env: dict[str, str]
    requests: list[Any]
    base_url: str


def _only_for(model: str, behaviour: Any) -> Any:
    match = behaviour.match
    return dataclasses.replace(behaviour, match=Match(model=model, stream=match.stream, tools=match.tools))


def _closed_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])  # closed again on leaving: nothing listens there


def _run_cases(llmock_server: Any, root: Path, names: set[str]) -> dict[str, WireRun]:
    mock = LLMock(llmock_server).reset()
    for name in names:
        mock.add(*(_only_for(name, behaviour) for behaviour in CASES[name][0]))

    def case(name: str) -> tuple[tuple[str, ...], dict[str, str], str]:
        base_url = f"http://127.0.0.1:{_closed_port()}/v1" if name == "refused" else mock.base_url("openai")
        env = atlas_env(root / name, OPENAI_BASE_URL=base_url, OPENAI_API_KEY="llmock-test-key", **CASES[name][1])
        mode = [] if name in OFFERED_WRITES else ["--read-only"]
        return ("ask", "-m", name, *mode, QUESTION), env, base_url

    ordered = [name for name in CASES if name in names]
    cases = {name: case(name) for name in ordered}
    if names <= TIMED:
        # A timed case spends its time waiting out a stalled server, so those run side by side, each in a
        # forked copy of this process; the others run in this process, one after another.
        import atlas.llm.openai  # noqa: F401  # the SDK imported once here, not once in each copy

        started = {name: fork_invoke(*args, env=env) for name, (args, env, _) in cases.items()}
        ran = {name: forked.wait(timeout=60) for name, forked in started.items()}
    else:
        ran = {name: invoke(*args, env=env) for name, (args, env, _) in cases.items()}
    runs = {name: WireRun(ran[name], env, [], base_url) for name, (_, env, base_url) in cases.items()}
    # A request the client gave up on is journaled when the server finishes it: wait for the hung ones.
    journaled = llmock_server.state.journal.records(wait=STALL_S + 2)
    requests = [record for record in journaled if record.path.endswith("/responses")]
    for name, wire_run in runs.items():
        wire_run.requests.extend(sorted((r for r in requests if r.model == name), key=lambda r: r.started_at))
    mock.reset()
    return runs


def _saved(runs: dict[str, WireRun]) -> str:
    return json.dumps(
        {
            name: {
                "code": wire_run.run.code,
                "out": base64.b64encode(wire_run.run.out).decode(),
                "err": base64.b64encode(wire_run.run.err).decode(),
                "env": wire_run.env,
                "requests": [dataclasses.asdict(record) for record in wire_run.requests],
                "base_url": wire_run.base_url,
            }
            for name, wire_run in runs.items()
        }
    )


def _loaded(text: str) -> dict[str, WireRun]:
    return {
        name: WireRun(
            Run(saved["code"], base64.b64decode(saved["out"]), base64.b64decode(saved["err"])),
            saved["env"],
            [RequestRecord(**record) for record in saved["requests"]],
            saved["base_url"],
        )
        for name, saved in json.loads(text).items()
    }


def _shared_runs(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory, group: str
) -> dict[str, WireRun]:
    """The runs of one group of cases, once per test run: the first worker to need them runs them,
    in the folder every worker shares, and the others read what they left there."""
    names = TIMED if group == "timed" else set(CASES) - TIMED

    def run(root: Path) -> None:
        runs = _run_cases(request.getfixturevalue("llmock_server"), root, names)
        (root / "runs.json").write_text(_saved(runs), encoding="utf-8")

    root = made_once(tmp_path_factory, f"wire-{group}", run)
    return _loaded((root / "runs.json").read_text(encoding="utf-8"))


@pytest.fixture(scope="module")
def wire(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, WireRun]:
    """The runs of the cases with the SDK's own timeouts."""
    return _shared_runs(request, tmp_path_factory, "untimed")


@pytest.fixture(scope="module")
def timed_wire(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> dict[str, WireRun]:
    """The runs of the cases that set a model timeout."""
    return _shared_runs(request, tmp_path_factory, "timed")


def answered(wire_run: WireRun) -> None:
    assert wire_run.run.code == 0, wire_run.run
    assert_no_traceback(wire_run.run)
    assert "ORB-1101 LeaseExpired" in wire_run.run.stdout


def failed_cleanly(wire_run: WireRun, *phrases: str) -> str:
    """Exit 1 and exactly one `atlas: error:` line naming the problem; returns that line."""
    run = wire_run.run
    assert run.code == 1, run
    assert_no_traceback(run)
    errors = [line for line in run.stderr.splitlines() if line.startswith("atlas: error: ")]
    assert len(errors) == 1, run
    assert len(errors[0]) < 500
    for phrase in phrases:  # `a|b`: either wording names the problem
        assert any(alternative in errors[0] for alternative in phrase.split("|")), run
    assert logged_calls(wire_run.env) is not None  # the call log is still readable
    return errors[0]


def test_429_with_retry_after_is_waited_out_and_answered(wire: dict[str, WireRun]) -> None:
    answered(wire["rate-limited-once"])
    first, second = wire["rate-limited-once"].requests
    assert first.status == 429 and second.started_at - first.started_at >= 0.35  # Retry-After honoured


def test_429_that_does_not_end_is_one_line_after_two_retries(wire: dict[str, WireRun]) -> None:
    line = failed_cleanly(wire["rate-limited"], "rate limited", "(429)", wire["rate-limited"].base_url)
    assert line.startswith("atlas: error: ")
    assert [r.status for r in wire["rate-limited"].requests] == [429, 429, 429]


def test_a_500_is_retried_and_answered(wire: dict[str, WireRun]) -> None:
    answered(wire["error-500-once"])
    assert [r.status for r in wire["error-500-once"].requests] == [500, 200]


def test_500s_that_persist_are_one_line(wire: dict[str, WireRun]) -> None:
    failed_cleanly(wire["error-500"], "answered 500")
    assert len(wire["error-500"].requests) == 3


@pytest.mark.parametrize(
    ("case", "phrase"), [("unauthorized", "refused the API key (401)"), ("not-found", "was not found")]
)
def test_401_and_404_are_one_line_and_never_retried(wire: dict[str, WireRun], case: str, phrase: str) -> None:
    failed_cleanly(wire[case], phrase)
    assert len(wire[case].requests) == 1


@pytest.mark.parametrize(
    ("case", "phrase"), [("disconnect", "dropped"), ("truncate", "ended early"), ("malformed", "malformed chunk")]
)
def test_a_broken_stream_after_a_tool_round_keeps_the_round_in_the_log(
    wire: dict[str, WireRun], case: str, phrase: str
) -> None:
    failed_cleanly(wire[case], phrase)
    calls = logged_calls(wire[case].env)
    assert [(call["name"], call["arguments"], call["kind"]) for call in calls] == [
        ("get_issue", {"issue_id": 41}, "ok")
    ]


def test_a_stall_gives_up_after_the_model_timeout(timed_wire: dict[str, WireRun]) -> None:
    # Cut while the headers are awaited (a busy machine) or after the stream began: both are timeouts.
    failed_cleanly(timed_wire["stall"], "stalled|did not answer within", "ATLAS_MODEL_TIMEOUT")
    # A stream that stalled is never asked again (earlier attempts may have been cut before it began).
    (stalled,) = [request for request in timed_wire["stall"].requests if request.fault is not None]
    assert "stall" in stalled.fault and stalled is timed_wire["stall"].requests[-1]
    assert stalled.duration < STALL_S - 2, f"the client sat {stalled.duration:.1f} s in a {STALL_S:g} s stall"


def test_a_stall_after_a_retried_slow_request_still_gives_up(timed_wire: dict[str, WireRun]) -> None:
    failed_cleanly(timed_wire["slow-then-stall"], "stalled|did not answer within", "ATLAS_MODEL_TIMEOUT")
    first, *_, last = timed_wire["slow-then-stall"].requests
    assert first.fault is None and last.fault is not None and "stall" in last.fault


def test_a_server_that_never_answers_is_given_up_after_the_sdk_retries(timed_wire: dict[str, WireRun]) -> None:
    failed_cleanly(timed_wire["no-headers"], f"did not answer within {MODEL_TIMEOUT_S:g} s", "ATLAS_MODEL_TIMEOUT")
    attempts = timed_wire["no-headers"].requests
    assert len(attempts) == 3  # the first request and the SDK's two retries, each cut at the timeout
    gaps = [later.started_at - earlier.started_at for earlier, later in itertools.pairwise(attempts)]
    assert max(gaps) < STALL_S - 1, f"an attempt was waited out: {gaps}"  # the timeout and a backoff each


def test_one_request_that_hangs_is_cut_and_the_retry_answers(timed_wire: dict[str, WireRun]) -> None:
    answered(timed_wire["slow-once"])
    first, second, *_ = timed_wire["slow-once"].requests
    assert second.started_at - first.started_at < STALL_S - 1  # the hung request was not waited out


def test_a_server_that_is_not_there_is_named(wire: dict[str, WireRun]) -> None:
    failed_cleanly(wire["refused"], "could not reach", wire["refused"].base_url)


@pytest.mark.parametrize(("case", "kind"), [("bad-arguments", "bad_args"), ("unknown-tool", "unknown_tool")])
def test_broken_tool_calls_are_answered_and_the_model_recovers(wire: dict[str, WireRun], case: str, kind: str) -> None:
    run = wire[case].run
    assert run.code == 0, run
    assert_no_traceback(run)
    # llmock sends the scripted text with the broken call, in round 1: on a pipe, text written before
    # tool calls is progress (stderr); stdout carries only round 2's final answer.
    assert "ORB-1101 LeaseExpired" in run.stderr and run.stdout.strip()
    assert [call["kind"] for call in logged_calls(wire[case].env)] == [kind]
    _, second = wire[case].requests
    outputs = [item for item in second.body["input"] if item.get("type") == "function_call_output"]
    assert len(outputs) == 1 and f'"kind": "{kind}"' in outputs[0]["output"]


def test_a_model_behind_the_real_sdk_asking_for_writes_gets_denials(wire: dict[str, WireRun]) -> None:
    hostile = wire["hostile-write"]
    answered(hostile)
    assert sorted((call["name"], call["kind"]) for call in logged_calls(hostile.env)) == [
        ("add_label", "denied"),
        ("post_comment", "denied"),
    ]
    assert tracker_records(hostile.env) == []
    assert hostile.run.stderr.count("(no terminal, all 2 denied)") == 1  # one question for both
    offered = {tool["name"] for tool in hostile.requests[0].body["tools"]}
    assert {"add_label", "post_comment"} <= offered
