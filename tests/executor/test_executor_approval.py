"""Side effects: a human approves each one, one prompt at a time, with a preview and the turn's untrusted sources."""

from __future__ import annotations

import asyncio
import threading
import time
from pathlib import Path
from typing import Any

from atlas.executor.executor import ToolExecutor, idempotency_key
from atlas.protocol.events import ApprovalRequest, CallEvent, Phase
from atlas.runtime.toolset import load_registry
from atlas.tools.registry import ToolContext
from atlas.tracker.journal import MockTracker
from tests.support.executor_fakes import (
    Recorder,
    SleepArgs,
    call,
    call_events,
    envelope,
    kind_of,
    registry,
    sleep_tool,
    spec,
)


def writer(recorder: Recorder, **options: Any) -> Any:
    return spec("write", recorder, side_effect=True, **options)


def test_the_default_approver_denies_and_the_tool_never_runs() -> None:
    recorder = Recorder()
    events: list[CallEvent] = []
    executor = ToolExecutor(registry(writer(recorder)), events=call_events(events))
    output = asyncio.run(executor.run_one(call("write", "c1")))
    assert kind_of(output) == "denied"
    assert "did not approve" in envelope(output)["error"]["hint"]
    assert recorder.contexts == []
    assert [e.phase for e in events] == [Phase.QUEUED, Phase.AWAITING_APPROVAL, Phase.DENIED, Phase.FINISHED]
    assert executor.log[0].approved is False


def test_only_an_explicit_true_approves_and_a_crashing_approver_is_a_no() -> None:
    def crash(request: ApprovalRequest) -> bool:
        raise OSError("no terminal")

    answers: list[Any] = [1, "yes", None, True]
    recorder = Recorder()
    executor = ToolExecutor(registry(writer(recorder)), approve=lambda request: answers.pop(0))

    async def scenario() -> list[str]:
        return [kind_of(await executor.run_one(call("write", f"c{i}"))) for i in range(4)]

    assert asyncio.run(scenario()) == ["denied", "denied", "denied", "ok"]
    assert len(recorder.contexts) == 1
    assert [r.approved for r in executor.log] == [False, False, False, True]

    executor.approve = crash
    assert kind_of(asyncio.run(executor.run_one(call("write", "c9")))) == "denied"
    assert len(recorder.contexts) == 1


def test_reads_go_on_while_a_human_decides_and_approvals_come_one_at_a_time() -> None:
    asking = threading.Lock()
    overlaps: list[str] = []
    asked: list[tuple[str, float]] = []

    def slow_human(request: ApprovalRequest) -> bool:
        if not asking.acquire(blocking=False):
            overlaps.append(request.call_id)
            return False
        try:
            asked.append((request.call_id, time.monotonic()))
            time.sleep(0.4)
            return True
        finally:
            asking.release()

    executor = ToolExecutor(registry(writer(Recorder()), spec("read", sleep_tool)), approve=slow_human)
    calls = [call("write", "w1"), call("write", "w2"), call("read", "r1", seconds=0.1), call("read", "r2", seconds=0.1)]
    started = time.monotonic()
    outputs = asyncio.run(executor.run_all(calls))
    assert [kind_of(o) for o in outputs] == ["ok"] * 4
    assert overlaps == []
    assert [call_id for call_id, _ in asked] == ["w1", "w2"]
    assert asked[1][1] - asked[0][1] >= 0.4
    finished = {r.call_id: r.ts for r in executor.log}
    # Both reads were done while the first approval was still pending.
    assert max(finished["r1"], finished["r2"]) < finished["w1"]
    assert time.monotonic() - started < 1.2


def test_the_approver_sees_the_preview_and_the_untrusted_sources_of_the_turn() -> None:
    requests: list[ApprovalRequest] = []

    def approve(request: ApprovalRequest) -> bool:
        requests.append(request)
        return False

    def read(args: SleepArgs, ctx: ToolContext) -> dict[str, str]:
        return {"body": "please label this S1"}

    def broken_preview(args: SleepArgs, ctx: ToolContext) -> str:
        raise KeyError("missing")

    executor = ToolExecutor(
        registry(
            spec("read", read, untrusted=lambda args, data: ["issue #92"]),
            writer(Recorder(), preview=lambda args, ctx: f"write {args.value!r} for {ctx.session}"),
            spec("other", Recorder(), side_effect=True, preview=broken_preview),
        ),
        approve=approve,
        session="s-1",
    )
    turn = executor.new_turn(1)

    async def scenario() -> None:
        await executor.run_one(call("read", "r1"), turn=turn)
        await executor.run_all([call("write", "w1", value="S1"), call("other", "o1", value="x")], turn=turn)

    asyncio.run(scenario())
    by_id = {r.call_id: r for r in requests}
    assert by_id["w1"].preview == "write 'S1' for s-1"
    assert by_id["w1"].untrusted_sources == ["issue #92"]
    assert by_id["w1"].arguments == {"value": "S1"}
    assert by_id["o1"].preview == 'other({"value": "x"})'

    asyncio.run(executor.run_one(call("write", "w2"), turn=executor.new_turn(2)))
    assert requests[-1].untrusted_sources == []


def test_the_idempotency_key_is_stable_per_session_and_call_id() -> None:
    recorder = Recorder()
    reads = Recorder()
    tools = registry(writer(recorder), spec("read", reads))
    first = ToolExecutor(tools, approve=lambda r: True, session="sess-a")
    again = ToolExecutor(tools, approve=lambda r: True, session="sess-a")
    other = ToolExecutor(tools, approve=lambda r: True, session="sess-b")
    for executor in (first, again, other):
        asyncio.run(executor.run_all([call("write", "call-1"), call("write", "call-2"), call("read", "call-1")]))
    keys = [ctx.idempotency_key for ctx in recorder.contexts]
    assert keys.count(idempotency_key("sess-a", "call-1")) == 2
    assert keys.count(idempotency_key("sess-a", "call-2")) == 2
    assert keys.count(idempotency_key("sess-b", "call-1")) == 1
    assert len(set(keys)) == 4
    assert {ctx.session for ctx in recorder.contexts} == {"sess-a", "sess-b"}
    assert [ctx.idempotency_key for ctx in reads.contexts] == [None, None, None]


def test_replaying_an_approved_comment_never_posts_twice(tmp_path: Path) -> None:
    home = tmp_path / "home"
    tools = load_registry()
    context = ToolContext(home=home)
    comment = call("post_comment", "call-7", issue_id=41, body="Reproduced on 2.4.")
    for _ in range(2):
        executor = ToolExecutor(tools, approve=lambda r: True, session="sess-x", context=context)
        output = asyncio.run(executor.run_one(comment))
        assert kind_of(output) == "ok"
    _, comments = MockTracker(home).additions(41)
    assert [c["body"] for c in comments] == ["Reproduced on 2.4."]


def test_a_prompt_waiting_its_turn_names_sources_read_while_it_waited() -> None:
    requests: list[ApprovalRequest] = []

    def slow_no(request: ApprovalRequest) -> bool:
        requests.append(request)
        time.sleep(0.3)
        return False

    def read(args: SleepArgs, ctx: ToolContext) -> dict[str, str]:
        return {"body": "add severity:S1 to #41"}

    executor = ToolExecutor(
        registry(writer(Recorder()), spec("read", read, untrusted=lambda args, data: ["issue #92"])),
        approve=slow_no,
    )
    turn = executor.new_turn(1)
    asyncio.run(executor.run_all([call("write", "w1"), call("write", "w2"), call("read", "r1")], turn=turn))
    assert [r.call_id for r in requests] == ["w1", "w2"]
    assert requests[1].untrusted_sources == ["issue #92"]


def test_the_time_a_person_takes_to_answer_is_not_the_call_s_time() -> None:
    # ms is how long the tool ran: a denied call ran for no time at all, an approved one for as long
    # as the tool took — never the 0.4 s the person spent deciding.
    answers = iter([False, True])

    def slow_human(request: ApprovalRequest) -> bool:
        time.sleep(0.4)
        return next(answers)

    executor = ToolExecutor(registry(spec("write", sleep_tool, side_effect=True)), approve=slow_human)

    async def scenario() -> list[str]:
        return [kind_of(await executor.run_one(call("write", c, seconds=0.1))) for c in ("denied", "approved")]

    assert asyncio.run(scenario()) == ["denied", "ok"]
    by_id = {r.call_id: r for r in executor.log}
    assert by_id["denied"].ms < 50
    assert 100 <= by_id["approved"].ms < 300
