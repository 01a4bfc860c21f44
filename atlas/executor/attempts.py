"""A call's attempts: each in a daemon thread, all within the call's one deadline, transient failures retried.

Retries happen only for transient errors of idempotent tools, after a jittered, doubling backoff,
while enough of the call's deadline and of the question's budget is left; a timeout is never
retried. A side effect left running (timed out, or Ctrl-C) is reported as possibly done.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Callable
from typing import Any

from atlas.executor import threads
from atlas.executor.outcomes import NO_TIME_BUDGET, CallState, Outcome, cancelled, error, side_effect_unsettled
from atlas.executor.turn import Turn
from atlas.foundation.errors import ErrorKind, ToolError, ToolTimeoutError, classify, describe
from atlas.protocol.envelope import envelope_ok
from atlas.protocol.events import Phase
from atlas.tools.registry import ToolContext, ToolSpec

BACKOFF_S = (0.2, 0.4)
"""First retry waits a random time in this range; each further retry waits twice as long."""
JITTER = random.Random()
"""The backoff's own generator: a call never moves the process's global `random` state, which the
program Atlas runs in (a test's generator, a host's seeded run) may be drawing from meanwhile."""
SIDE_EFFECT_GRACE_S = 0.2
"""How long a side effect already running when the batch is cancelled gets to finish."""

Emit = Callable[..., None]
"""Reports a phase of the call: `emit(state, phase, **fields)`."""


async def run_attempts(
    state: CallState,
    spec: ToolSpec[Any],
    args: object,
    context: ToolContext,
    *,
    turn: Turn,
    own_timeout: float,
    max_attempts: int,
    emit: Emit,
) -> Outcome:
    """Attempts until one settles the call; the call's timer (`state.clock`) started with its slot."""
    # One deadline for the whole call: retries share it.
    call_ends = state.clock + own_timeout
    backoff = JITTER.uniform(*BACKOFF_S)
    while True:
        now = time.monotonic()
        timeout = turn.timeout(call_ends - now, now)
        if timeout is None:
            return NO_TIME_BUDGET
        state.attempts += 1
        emit(state, Phase.STARTED, attempt=state.attempts)
        outcome = await run_attempt(spec, args, context, timeout, turn)
        retry = outcome.kind is ErrorKind.TRANSIENT and spec.idempotent and state.attempts < max_attempts
        if not retry or not turn.has_time_for(own_timeout, backoff, call_ends):
            return outcome
        emit(state, Phase.RETRYING, attempt=state.attempts, message=outcome.message)
        await asyncio.sleep(backoff)
        backoff *= 2


async def run_attempt(spec: ToolSpec[Any], args: object, context: ToolContext, timeout: float, turn: Turn) -> Outcome:
    job = threads.ThreadCall(spec.fn, args, context, name=f"atlas-tool-{spec.name}")
    try:
        done, _ = await asyncio.wait([job.future], timeout=timeout)
    except asyncio.CancelledError:
        if not spec.side_effect:
            job.abandon()
            raise
        return await _settle_cancelled_side_effect(spec, args, job, turn)
    except BaseException:
        job.abandon()
        raise
    if not done:
        job.abandon()
        late = ToolTimeoutError(f"{spec.name} did not return within {timeout:.1f} s", tool=spec.name, timeout_s=timeout)
        if spec.side_effect:
            return side_effect_unsettled(ErrorKind.TIMEOUT, str(late), late)
        return error(ErrorKind.TIMEOUT, str(late), failure=late)
    return _outcome_of(spec, args, job, turn)


async def _settle_cancelled_side_effect(
    spec: ToolSpec[Any], args: object, job: threads.ThreadCall, turn: Turn
) -> Outcome:
    """Ctrl-C while a side effect runs: the thread cannot be stopped, so the write may land anyway.

    Telling the model "cancelled" about a write that happened invites doing it twice; a write
    that finishes within a short grace is reported as done, one still running as possibly done.
    """
    try:
        done, _ = await asyncio.wait([job.future], timeout=SIDE_EFFECT_GRACE_S)
    except BaseException:
        job.abandon()
        raise
    if not done:
        job.abandon()
        return side_effect_unsettled(ErrorKind.CANCELLED, f"cancelled by the user while {spec.name} ran")
    outcome = _outcome_of(spec, args, job, turn)
    # Whatever failed is not retried after Ctrl-C; nothing happened, so it is simply cancelled.
    return outcome if outcome.kind is ErrorKind.OK else cancelled()


def _outcome_of(spec: ToolSpec[Any], args: object, job: threads.ThreadCall, turn: Turn) -> Outcome:
    """The outcome of a finished attempt; untrusted sources it read join the turn's."""
    failure = job.future.exception()
    if failure is not None:
        return failure_outcome(failure, spec.name)
    data = job.future.result()
    if spec.untrusted is None:
        return Outcome(ErrorKind.OK, envelope_ok(data))
    try:
        sources = spec.untrusted(args, data)
    except Exception as exc:  # naming the source is best effort; the text stays marked untrusted
        sources = [f"{spec.name} (source unknown: {describe(exc)})"]
    turn.add_sources(list(sources))
    return Outcome(ErrorKind.OK, envelope_ok(data, untrusted=True))


def failure_outcome(failure: BaseException, tool: str) -> Outcome:
    """A tool's exception as the outcome the model reads: its kind, its message and its hint."""
    kind = classify(failure)
    text = describe(failure)
    raised = failure if isinstance(failure, ToolError) else None
    if raised is not None and raised.tool is None:
        raised.tool = tool  # as httpx attaches the request: the tool need not know its own name
    hint = raised.hint if raised is not None else None
    text = text if kind is not ErrorKind.UNKNOWN else f"{type(failure).__name__}: {text}"
    return error(kind, text, hint=hint, failure=raised)
