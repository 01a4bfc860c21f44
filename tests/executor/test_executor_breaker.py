"""The circuit breaker: opens after repeated infrastructure failures, fails fast, probes after a cool-down."""

from __future__ import annotations

import asyncio
import time

from atlas.executor.breaker import CircuitBreaker
from atlas.executor.executor import ToolExecutor
from atlas.foundation.errors import ErrorKind
from tests.support.executor_fakes import (
    FailArgs,
    Flaky,
    call,
    envelope,
    kind_of,
    permanent_tool,
    registry,
    sleep_tool,
    spec,
)


def test_the_circuit_opens_fails_fast_and_closes_after_a_good_probe() -> None:
    flaky = Flaky(times=3)
    executor = ToolExecutor(
        registry(spec("flaky", flaky, FailArgs, idempotent=False)),
        breaker_threshold=3,
        breaker_cooldown_s=0.3,
    )

    async def scenario() -> list[str]:
        kinds = [kind_of(await executor.run_one(call("flaky", f"f{i}"))) for i in range(3)]
        started = time.perf_counter()
        refused = await executor.run_one(call("flaky", "open"))
        kinds.append(kind_of(refused))
        # The whole batch round trip; the refused call's own time (in the log) is under 1 ms.
        assert time.perf_counter() - started < 0.005
        assert "switched off" in envelope(refused)["error"]["hint"]
        await asyncio.sleep(0.35)
        kinds.append(kind_of(await executor.run_one(call("flaky", "probe"))))
        kinds.append(kind_of(await executor.run_one(call("flaky", "after"))))
        return kinds

    assert asyncio.run(scenario()) == ["transient"] * 3 + ["unavailable", "ok", "ok"]
    assert flaky.calls == 5  # the refused call never reached the tool
    refused = next(r for r in executor.log if r.call_id == "open")
    assert refused.ms < 1.0
    assert refused.attempts == 0
    assert executor.breaker("flaky").state == "closed"


def test_a_failed_probe_opens_the_circuit_for_another_cool_down() -> None:
    flaky = Flaky(times=100)
    executor = ToolExecutor(
        registry(spec("flaky", flaky, FailArgs, idempotent=False)), breaker_threshold=2, breaker_cooldown_s=0.2
    )

    async def scenario() -> list[str]:
        kinds = [kind_of(await executor.run_one(call("flaky", f"f{i}"))) for i in range(2)]
        await asyncio.sleep(0.25)
        kinds.append(kind_of(await executor.run_one(call("flaky", "probe"))))
        kinds.append(kind_of(await executor.run_one(call("flaky", "again"))))
        return kinds

    assert asyncio.run(scenario()) == ["transient", "transient", "transient", "unavailable"]
    assert flaky.calls == 3


def test_only_one_probe_runs_while_half_open() -> None:
    breaker = CircuitBreaker(threshold=1, cooldown_s=0.0)
    breaker.record(ErrorKind.TIMEOUT)
    assert breaker.admit() == "probe"
    assert breaker.admit() == "refused"
    assert breaker.blocked()
    breaker.record(ErrorKind.OK, "probe")
    assert breaker.admit() == "call"


def test_a_probe_that_ends_without_reaching_the_source_lets_the_next_call_probe() -> None:
    breaker = CircuitBreaker(threshold=1, cooldown_s=0.0)
    breaker.record(ErrorKind.TRANSIENT)
    assert breaker.admit() == "probe"
    breaker.record(ErrorKind.CANCELLED, "probe")
    assert breaker.admit() == "probe"


def test_answers_from_the_source_reset_the_streak_and_other_failures_do_not_count() -> None:
    clock = [0.0]
    breaker = CircuitBreaker(threshold=3, cooldown_s=30.0, clock=lambda: clock[0])
    for kind in (ErrorKind.TIMEOUT, ErrorKind.TRANSIENT, ErrorKind.PERMANENT, ErrorKind.TIMEOUT):
        breaker.record(kind)
    for kind in (ErrorKind.BAD_ARGS, ErrorKind.DENIED, ErrorKind.CANCELLED, ErrorKind.UNKNOWN):
        breaker.record(kind)
    assert breaker.state == "closed"
    breaker.record(ErrorKind.TIMEOUT)
    breaker.record(ErrorKind.TIMEOUT)
    assert breaker.state == "open"
    clock[0] = 29.9
    assert breaker.admit() == "refused"
    clock[0] = 30.0
    assert breaker.state == "half_open"


def test_permanent_errors_never_open_the_circuit() -> None:
    executor = ToolExecutor(registry(spec("perm", permanent_tool, FailArgs)), breaker_threshold=2)

    async def scenario() -> list[str]:
        return [kind_of(await executor.run_one(call("perm", f"p{i}"))) for i in range(4)]

    assert asyncio.run(scenario()) == ["permanent"] * 4


def test_timeouts_open_the_circuit_per_tool() -> None:
    executor = ToolExecutor(
        registry(spec("slow", sleep_tool, timeout_s=0.05), spec("other", sleep_tool)), breaker_threshold=2
    )

    async def scenario() -> list[str]:
        kinds = [kind_of(await executor.run_one(call("slow", f"s{i}", seconds=0.3))) for i in range(3)]
        kinds.append(kind_of(await executor.run_one(call("other", "o1"))))
        return kinds

    assert asyncio.run(scenario()) == ["timeout", "timeout", "unavailable", "ok"]


def test_a_source_found_down_counts_as_a_failure() -> None:
    # An MCP server that keeps crashing is `unavailable` call after call: its breaker opens.
    breaker = CircuitBreaker(threshold=2, cooldown_s=30.0)
    breaker.record(ErrorKind.UNAVAILABLE)
    assert breaker.state == "closed"
    breaker.record(ErrorKind.UNAVAILABLE)
    assert breaker.state == "open"
