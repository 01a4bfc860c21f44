"""Stuck tool threads and Ctrl-C: the process still exits, later calls still run, every call is answered."""

from __future__ import annotations

import asyncio
import contextlib
import gc
import os
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

from atlas.executor.executor import BatchCancelled, ToolExecutor
from atlas.executor.threads import forget_abandoned, leaked_threads
from atlas.protocol.events import CallEvent, Phase
from atlas.tools.registry import ToolContext
from tests.support.executor_fakes import SleepArgs, call, call_events, envelope, kind_of, registry, sleep_tool, spec

ROOT = Path(__file__).resolve().parents[2]

EXIT_SCRIPT = textwrap.dedent(
    """
    import asyncio, json, sys, time
    from pydantic import BaseModel
    from atlas.protocol.messages import ToolCall
    from atlas.executor.executor import BatchCancelled, ToolExecutor
    from atlas.tools.registry import Registry, ToolSpec

    class Args(BaseModel):
        pass

    def stuck(args, ctx):
        time.sleep(60)

    spec = ToolSpec(name="stuck", fn=stuck, args_model=Args, description="never returns", timeout_s=0.2)
    executor = ToolExecutor(Registry([spec]))
    output = asyncio.run(executor.run_one(ToolCall("stuck", "{}", "c1")))
    print(json.loads(output["output"])["error"]["kind"], executor.leaked_threads, flush=True)
    """
)


def test_the_process_exits_promptly_while_a_stuck_tool_thread_sleeps_on() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-c", EXIT_SCRIPT], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    assert process.stdout is not None
    line = process.stdout.readline()
    printed = time.monotonic()
    code = process.wait(timeout=45)
    exited = time.monotonic()
    assert line.split() == ["timeout", "1"], process.stderr.read() if process.stderr else ""
    assert code == 0
    # Far below the 60 s the thread sleeps on, yet room for a slow interpreter shutdown under load.
    assert exited - printed < 10


def test_leaked_threads_never_starve_later_calls_and_are_counted() -> None:
    release = threading.Event()

    def stuck(args: SleepArgs, ctx: ToolContext) -> None:
        release.wait(10)

    events: list[CallEvent] = []
    executor = ToolExecutor(
        registry(spec("stuck", stuck, timeout_s=0.05), spec("quick", sleep_tool)),
        max_concurrency=2,
        events=call_events(events),
        breaker_threshold=100,
    )
    try:
        outputs = asyncio.run(executor.run_all([call("stuck", f"s{i}") for i in range(10)]))
        assert {kind_of(o) for o in outputs} == {"timeout"}
        assert leaked_threads() >= 10
        assert executor.leaked_threads == leaked_threads()

        started = time.monotonic()
        output = asyncio.run(executor.run_one(call("quick", "q1", seconds=0.05)))
        assert kind_of(output) == "ok"
        assert time.monotonic() - started < 0.2
        assert executor.log[-1].leaked_threads >= 10
        finished = [e for e in events if e.phase is Phase.FINISHED]
        assert finished[-1].leaked_threads >= 10
    finally:
        release.set()


def test_a_leaked_thread_stops_counting_once_it_ends() -> None:
    release = threading.Event()
    ended = threading.Event()

    def stuck(args: SleepArgs, ctx: ToolContext) -> None:
        release.wait(10)
        ended.set()

    executor = ToolExecutor(registry(spec("stuck", stuck, timeout_s=0.05)))
    asyncio.run(executor.run_one(call("stuck", "s1")))
    leaked = leaked_threads()
    assert leaked >= 1
    release.set()
    assert ended.wait(2)
    time.sleep(0.05)  # the thread unregisters itself right after the tool returns
    assert leaked_threads() <= leaked - 1


def test_cancelling_a_batch_answers_every_call_as_cancelled_within_half_a_second() -> None:
    events: list[CallEvent] = []
    executor = ToolExecutor(
        registry(spec("sleep", sleep_tool), spec("gate", sleep_tool, side_effect=True)),
        events=call_events(events),
        max_concurrency=2,
        approve=lambda request: time.sleep(5) is None,
    )
    calls = [
        call("sleep", "fast", seconds=0.05),
        call("sleep", "slow1", seconds=5),
        call("sleep", "slow2", seconds=5),
        call("sleep", "queued", seconds=5),  # waits for a slot when the batch is cancelled
        call("gate", "approval"),  # waits for a human when the batch is cancelled
    ]
    outcome: dict[str, float] = {}
    outputs: list[dict[str, Any]] = []

    async def main() -> None:
        task = asyncio.create_task(executor.run_all(calls))
        await asyncio.sleep(0.3)
        outcome["cancelled_at"] = time.monotonic()
        task.cancel()
        try:
            await task
        except BatchCancelled as cancelled:
            outcome["returned_at"] = time.monotonic()
            outputs.extend(cancelled.outputs)

    asyncio.run(main())
    assert outcome["returned_at"] - outcome["cancelled_at"] < 0.5
    assert [o["call_id"] for o in outputs] == [c.call_id for c in calls]
    assert [kind_of(o) for o in outputs] == ["ok", "cancelled", "cancelled", "cancelled", "cancelled"]
    assert envelope(outputs[1])["error"]["hint"].startswith("The user cancelled")
    assert sorted(r.call_id for r in executor.log) == sorted(c.call_id for c in calls)
    assert {r.kind for r in executor.log if r.call_id != "fast"} == {"cancelled"}
    finished = [e for e in events if e.phase is Phase.FINISHED]
    assert len(finished) == len(calls)


def test_run_all_still_works_after_a_cancelled_batch_in_a_new_event_loop() -> None:
    executor = ToolExecutor(registry(spec("sleep", sleep_tool)), max_concurrency=1)

    async def cancel_soon() -> None:
        task = asyncio.create_task(executor.run_all([call("sleep", "a", seconds=2), call("sleep", "b", seconds=2)]))
        await asyncio.sleep(0.1)
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task

    asyncio.run(cancel_soon())
    output = asyncio.run(executor.run_one(call("sleep", "c", seconds=0.01)))
    assert kind_of(output) == "ok"


CTRL_C_SCRIPT = textwrap.dedent(
    """
    import asyncio, json, sys, time
    from pydantic import BaseModel
    from atlas.protocol.messages import ToolCall
    from atlas.executor.executor import BatchCancelled, ToolExecutor
    from atlas.tools.registry import Registry, ToolSpec

    class Args(BaseModel):
        seconds: float

    def sleep(args, ctx):
        time.sleep(args.seconds)
        return "slept"

    executor = ToolExecutor(Registry([ToolSpec(name="sleep", fn=sleep, args_model=Args, description="sleeps")]))
    calls = [ToolCall("sleep", json.dumps({"seconds": s}), f"c{i}") for i, s in enumerate([0.01, 30, 30])]

    outputs = []

    async def main():
        asyncio.get_running_loop().call_later(0.3, lambda: print("running", flush=True))
        try:
            await executor.run_all(calls)
        except BatchCancelled as cancelled:
            outputs.extend(cancelled.outputs)
            raise

    try:
        asyncio.run(main())
    except KeyboardInterrupt:
        kinds = [json.loads(o["output"]).get("error", {}).get("kind", "ok") for o in outputs]
        print("interrupted", *kinds, len(executor.log), flush=True)
    """
)


def test_ctrl_c_in_a_real_process_answers_every_call_and_returns_control_promptly() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    process = subprocess.Popen(
        [sys.executable, "-c", CTRL_C_SCRIPT], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env
    )
    assert process.stdout is not None
    assert process.stdout.readline().strip() == "running"
    process.send_signal(signal.SIGINT)
    sent = time.monotonic()
    line = process.stdout.readline()
    answered = time.monotonic()
    process.wait(timeout=10)
    assert line.split() == ["interrupted", "ok", "cancelled", "cancelled", "3"]
    assert answered - sent < 0.5
    assert process.returncode == 0


def test_idle_workers_are_reused_rather_than_a_thread_started_per_call() -> None:
    names: set[int] = set()

    def which_thread(args: SleepArgs, ctx: ToolContext) -> None:
        names.add(threading.get_ident())

    executor = ToolExecutor(registry(spec("which", which_thread)))

    async def one_after_another() -> None:
        for index in range(40):
            await executor.run_one(call("which", f"w{index}"))

    existing = {thread.ident for thread in threading.enumerate()}
    asyncio.run(one_after_another())
    # Idle workers left by earlier calls in this process may serve some; at most one is new.
    assert len(names - existing) <= 1


def cancel_while_writing(write_s: float) -> tuple[ToolExecutor, list[dict[str, Any]], float, list[str]]:
    """Approve one write taking `write_s`, cancel the batch 0.05 s into it; the executor and how long control took."""
    written: list[str] = []

    def write(args: SleepArgs, ctx: ToolContext) -> dict[str, str]:
        time.sleep(write_s)
        written.append(args.value)
        return {"written": args.value}

    executor = ToolExecutor(registry(spec("write", write, side_effect=True)), approve=lambda request: True)
    returned: dict[str, float] = {}
    outputs: list[dict[str, Any]] = []

    async def main() -> None:
        task = asyncio.create_task(executor.run_all([call("write", "w1", value="comment")]))
        while not any(thread.name == "atlas-tool-write" for thread in threading.enumerate()):
            await asyncio.sleep(0.005)
        await asyncio.sleep(0.05)
        cancelled_at = time.monotonic()
        task.cancel()
        try:
            await task
        except BatchCancelled as cancelled:
            outputs.extend(cancelled.outputs)
        returned["after"] = time.monotonic() - cancelled_at

    asyncio.run(main())
    return executor, outputs, returned["after"], written


def test_a_write_that_lands_just_after_ctrl_c_is_reported_as_done_not_cancelled() -> None:
    executor, outputs, after, written = cancel_while_writing(0.1)
    assert written == ["comment"]
    assert after < 0.5
    [output] = outputs
    assert kind_of(output) == "ok"
    assert envelope(output)["data"] == {"written": "comment"}
    assert [r.kind for r in executor.log] == ["ok"]


def test_a_write_still_running_after_ctrl_c_is_cancelled_with_a_warning_that_it_may_land() -> None:
    executor, outputs, after, _ = cancel_while_writing(2.0)
    assert after < 0.5
    [output] = outputs
    assert kind_of(output) == "cancelled"
    error = envelope(output)["error"]
    assert "may have" in error["message"]
    assert "check" in error["hint"]
    assert [r.kind for r in executor.log] == ["cancelled"]


FORK_SCRIPT = textwrap.dedent(
    """
    import asyncio, os, time, warnings
    from atlas.executor import threads

    warnings.simplefilter("ignore", DeprecationWarning)  # fork() with threads running

    async def answer():
        return await asyncio.wait_for(threads.run_in_thread(lambda: 42), 2)

    assert asyncio.run(answer()) == 42  # leaves an idle worker, which a forked child does not inherit
    time.sleep(0.1)  # the worker counts itself idle just after handing over the answer
    pid = os.fork()
    if pid == 0:
        try:
            os._exit(0 if asyncio.run(answer()) == 42 else 1)
        except BaseException:
            os._exit(2)
    print(os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]), flush=True)
    """
)


def test_a_forked_child_runs_its_calls_although_it_inherited_no_workers() -> None:
    env = {**os.environ, "PYTHONPATH": str(ROOT)}
    done = subprocess.run([sys.executable, "-c", FORK_SCRIPT], capture_output=True, text=True, env=env, timeout=30)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "0"


def test_a_command_run_after_another_counts_only_the_threads_it_left() -> None:
    release = threading.Event()

    def stuck(args: SleepArgs, ctx: ToolContext) -> None:
        release.wait(10)

    try:
        asyncio.run(ToolExecutor(registry(spec("stuck", stuck, timeout_s=0.05))).run_one(call("stuck", "s1")))
        assert leaked_threads() >= 1
        forget_abandoned()  # what the tests' in-process runner does between commands
        assert leaked_threads() == 0
        asyncio.run(ToolExecutor(registry(spec("stuck", stuck, timeout_s=0.05))).run_one(call("stuck", "s2")))
        assert leaked_threads() == 1  # the first thread still sleeps, but only the second is this run's
    finally:
        release.set()


def test_a_timed_out_tool_that_fails_later_leaves_no_unretrieved_error_for_the_loop_to_report() -> None:
    release, failed = threading.Event(), threading.Event()

    def late(args: SleepArgs, ctx: ToolContext) -> None:
        release.wait(10)
        failed.set()
        raise RuntimeError("the server went away after the call was given up")

    reported: list[dict[str, Any]] = []

    async def session() -> dict[str, Any]:
        asyncio.get_running_loop().set_exception_handler(lambda loop, context: reported.append(context))
        output = await ToolExecutor(registry(spec("late", late, timeout_s=0.05))).run_one(call("late", "l1"))
        release.set()
        assert failed.wait(5)
        for _ in range(50):  # the failure reaches the loop soon after the thread raises it
            await asyncio.sleep(0.01)
        gc.collect()  # an exception never retrieved is reported when its future is collected
        return output

    assert kind_of(asyncio.run(session())) == "timeout"
    assert [context.get("message") for context in reported] == []
