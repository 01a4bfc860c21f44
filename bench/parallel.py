"""Parallel efficiency: a batch finishes when its slowest call does, and a concurrency limit packs well.

The seed batch is the seed question's plan with the sources made slow: issues #41 and #87 take
1.0 s each, the error-codes section 2.0 s, and a lookup of a missing issue fails at once. The
tools are the real read tools behind an added latency, run through the real `ToolExecutor`.
"""

from __future__ import annotations

import asyncio
import math
import time
from collections.abc import Callable, Sequence
from typing import Any

from pydantic import BaseModel

from atlas.executor.executor import ToolExecutor
from atlas.orbit import docs
from atlas.orbit import issues as issue_tools
from atlas.protocol.messages import ToolCall
from atlas.tools.registry import Registry, ToolContext, ToolSpec
from bench.core import Figure, ratio_figure, seconds

ISSUE_LATENCY_S = {41: 1.0, 87: 1.0}
DOC_LATENCY_S = 2.0
MISSING_ISSUE = 999_999
SMALL_CALLS = 16
SMALL_SLEEP_S = 0.2
SMALL_CONCURRENCY = 4


def with_latency(spec: ToolSpec[Any], latency: Callable[[Any], float]) -> ToolSpec[Any]:
    """The same tool, answering only after `latency(args)` seconds, as a slow remote source would."""
    real = spec.fn

    def slow(args: Any, ctx: ToolContext) -> Any:
        time.sleep(latency(args))
        return real(args, ctx)

    return ToolSpec(
        name=spec.name,
        fn=slow,
        args_model=spec.args_model,
        description=spec.description,
        untrusted=spec.untrusted,
    )


def seed_registry() -> Registry:
    issue = ToolSpec(name="get_issue", fn=issue_tools.get_issue, args_model=issue_tools.IssueArgs, description="")
    doc = ToolSpec(name="get_doc_section", fn=docs.get_doc_section, args_model=docs.DocSectionArgs, description="")
    return Registry(
        [
            with_latency(issue, lambda args: ISSUE_LATENCY_S.get(args.issue_id, 0.0)),
            with_latency(doc, lambda args: DOC_LATENCY_S),
        ]
    )


def seed_calls() -> list[ToolCall]:
    return [
        ToolCall.make("get_issue", {"issue_id": 41}, "seed_1"),
        ToolCall.make("get_issue", {"issue_id": 87}, "seed_2"),
        ToolCall.make("get_doc_section", {"doc_id": "error-codes", "heading": "ORB-1101"}, "seed_3"),
        ToolCall.make("get_issue", {"issue_id": MISSING_ISSUE}, "seed_4"),
    ]


class SleepArgs(BaseModel):
    seconds: float


def sleep_tool(args: SleepArgs, ctx: ToolContext) -> dict[str, float]:
    time.sleep(args.seconds)
    return {"slept": args.seconds}


def sleep_registry() -> Registry:
    return Registry([ToolSpec(name="sleep", fn=sleep_tool, args_model=SleepArgs, description="")])


def run_batch(registry: Registry, calls: Sequence[ToolCall], *, concurrency: int) -> tuple[float, ToolExecutor]:
    """Wall time of one `run_all` of the batch, and the executor (its `log` holds each call's ms)."""
    executor = ToolExecutor(registry, max_concurrency=concurrency, timeout_s=10.0)

    async def batch() -> list[dict[str, Any]]:
        return await executor.run_all(calls)

    started = time.perf_counter()
    asyncio.run(batch())
    return time.perf_counter() - started, executor


def seed_figures() -> list[Figure]:
    calls = seed_calls()
    wall, executor = run_batch(seed_registry(), calls, concurrency=len(calls))
    kinds = sorted(record.kind for record in executor.log)
    if kinds != ["ok", "ok", "ok", "permanent"]:
        raise RuntimeError(f"the seed batch should end ok, ok, ok, permanent; it ended {kinds}")
    slowest = max(record.ms for record in executor.log) / 1000
    sequential, _ = run_batch(seed_registry(), calls, concurrency=1)
    work = sum(ISSUE_LATENCY_S.values()) + DOC_LATENCY_S
    ideal = max([*ISSUE_LATENCY_S.values(), DOC_LATENCY_S])
    return [
        ratio_figure(
            "seed batch: wall / slowest call",
            wall,
            slowest,
            limit=1.05,
            against="slowest call",
            note="sleeps 1.0, 1.0, 2.0 s + failing lookup (permanent), concurrency 4",
        ),
        Figure(
            name="seed batch: sequential / parallel",
            measured=f"{seconds(sequential)} vs {seconds(wall)}",
            ratio=sequential / wall,
            target="—",
            met=None,
            note=f"speed-up; ideal {work / ideal:.1f}× ({work:.1f} s of work, {ideal:.1f} s slowest)",
            values={"sequential_s": sequential, "parallel_s": wall},
        ),
    ]


def packing_figures() -> list[Figure]:
    calls = [ToolCall.make("sleep", {"seconds": SMALL_SLEEP_S}, f"c{index}") for index in range(SMALL_CALLS)]
    wall, executor = run_batch(sleep_registry(), calls, concurrency=SMALL_CONCURRENCY)
    if any(record.kind != "ok" for record in executor.log):
        raise RuntimeError("every 0.2 s sleep should end ok")
    ideal = math.ceil(SMALL_CALLS / SMALL_CONCURRENCY) * SMALL_SLEEP_S
    sequential, _ = run_batch(sleep_registry(), calls, concurrency=1)
    return [
        ratio_figure(
            f"{SMALL_CALLS} × {SMALL_SLEEP_S} s at concurrency {SMALL_CONCURRENCY}",
            wall,
            ideal,
            limit=1.10,
            against=f"⌈{SMALL_CALLS}/{SMALL_CONCURRENCY}⌉ × {SMALL_SLEEP_S} s",
        ),
        Figure(
            name=f"{SMALL_CALLS} × {SMALL_SLEEP_S} s: sequential / parallel",
            measured=f"{seconds(sequential)} vs {seconds(wall)}",
            ratio=sequential / wall,
            target="—",
            met=None,
            note=f"speed-up; ideal {SMALL_CONCURRENCY:.1f}×",
            values={"sequential_s": sequential, "parallel_s": wall},
        ),
    ]


def run() -> list[Figure]:
    return [*seed_figures(), *packing_figures()]
