"""Executor overhead: what `run_all` adds to a call beyond running it in a worker thread.

Both sides run the same no-op tool 2,000 times, at most 4 at once (the executor's default
limit; the baseline holds an `asyncio.Semaphore(4)` around `asyncio.to_thread`), so the ratio
is the cost of validation, envelopes, events, classification and a fresh daemon thread per call,
not a difference in parallelism. Rounds alternate between the two and the best of each counts.
"""

from __future__ import annotations

import asyncio
import tempfile
import time
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from atlas.calllog import CallLog, CallLogWriter
from atlas.executor.executor import ToolExecutor
from atlas.protocol.events import Events
from atlas.protocol.messages import ToolCall
from atlas.tools.registry import Registry, ToolContext, ToolSpec
from bench.core import Figure

CALLS = 2_000
CONCURRENCY = 4
ROUNDS = 5


class NoArgs(BaseModel):
    pass


def noop(args: NoArgs, ctx: ToolContext) -> None:
    return None


REGISTRY = Registry([ToolSpec(name="noop", fn=noop, args_model=NoArgs, description="")])


def through_executor(calls: list[ToolCall], call_log: CallLog | None = None) -> float:
    events = None if call_log is None else Events(CallLogWriter(call_log, session="bench"))
    executor = ToolExecutor(REGISTRY, max_concurrency=CONCURRENCY, events=events)

    async def batch() -> list[dict[str, Any]]:
        return await executor.run_all(calls)

    started = time.perf_counter()
    outputs = asyncio.run(batch())
    elapsed = time.perf_counter() - started
    if len(outputs) != len(calls) or any(record.kind != "ok" for record in executor.log):
        raise RuntimeError("every no-op call through run_all should end ok")
    return elapsed


def through_to_thread(count: int) -> float:
    context = ToolContext()

    async def batch() -> list[None]:
        slots = asyncio.Semaphore(CONCURRENCY)

        async def one() -> None:
            async with slots:
                return await asyncio.to_thread(noop, NoArgs(), context)

        return await asyncio.gather(*(one() for _ in range(count)))

    started = time.perf_counter()
    asyncio.run(batch())
    return time.perf_counter() - started


def run() -> list[Figure]:
    calls = [ToolCall(name="noop", arguments="{}", call_id=f"c{index}") for index in range(CALLS)]
    executor_s = baseline_s = float("inf")
    for _ in range(ROUNDS):
        executor_s = min(executor_s, through_executor(calls))
        baseline_s = min(baseline_s, through_to_thread(CALLS))
    with tempfile.TemporaryDirectory(prefix="atlas-bench-") as folder:
        call_log = CallLog(Path(folder) / "log.db")
        logged_s = through_executor(calls, call_log)
        call_log.close()
    per_call = 1e6 / CALLS
    ratio = executor_s / baseline_s
    # Beyond to_thread: events, validation, the breaker and the envelope of every call.
    why = "" if ratio <= 2.0 else "; see cProfile of through_executor for where the time goes"
    return [
        Figure(
            name=f"{CALLS:,} no-op calls: run_all / to_thread+gather",
            measured=f"{executor_s * per_call:.0f} µs vs {baseline_s * per_call:.0f} µs per call",
            ratio=ratio,
            target="ratio ≤ 2",
            met=ratio <= 2.0,
            note=f"both at most {CONCURRENCY} at once (executor limit / Semaphore); no call log{why}",
            values={"executor_s": executor_s, "baseline_s": baseline_s},
        ),
        Figure(
            name=f"{CALLS:,} no-op calls with the call log on",
            measured=f"{logged_s * per_call:.0f} µs vs {baseline_s * per_call:.0f} µs per call",
            ratio=logged_s / baseline_s,
            target="—",
            met=None,
            note="run_all writing every call to a real SQLite log, as `atlas ask` does",
            values={"executor_logged_s": logged_s, "baseline_s": baseline_s},
        ),
    ]
