"""Run the tool calls of one model response: in parallel, time-boxed, classified, approved, cancellable.

`await executor.run_all(calls)` returns one `function_call_output` item per call, in request
order, whose `output` is the JSON envelope (`{"ok": true, "data": ...}` or `{"ok": false,
"error": {...}}`). A tool's failure never raises: it becomes an `ErrorKind` the model can act on.

Per call: validate → circuit breaker → time budget → approval (side effects only; `approve`
runs in a worker thread, one prompt at a time, while reads go on) → a concurrency slot (the
call's timer starts here) → attempts in a daemon thread, all within the call's one deadline (the
tool's own) cut to the question's budget (transient errors retried on idempotent tools, with
jittered doubling backoff, while enough of the deadline is left; a timeout never) → envelope,
capped → FINISHED event → `log` and the call log (a batch's records in one transaction, a side
effect's at once). Calls that cannot run (unknown tool, bad arguments, breaker open, no time
left) are answered before any task is made, so thousands of them cost little of the budget.
A side effect left running (timed out, or Ctrl-C) is reported as possibly done, never retryable.

Cancellation (Ctrl-C cancels the task awaiting `run_all`): every unfinished call is answered with
kind `cancelled`, logged and reported as FINISHED — except that a side effect already running
gets a moment to finish, so a write that landed is reported as done, and one still running as
possibly done. `executor.last_outputs` then holds the complete outputs of the batch (request
order) and the `asyncio.CancelledError` propagates. A caller that keeps the conversation going
catches it and appends `last_outputs`, so every function_call stays answered. `last_outputs` is
also set after a normal return.

Threads left behind by timed-out tools are daemon threads: they neither hold the process open
nor take a slot from later calls; `leaked_threads` counts them, process-wide.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
import json
import random
import time
import uuid
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Protocol

from pydantic import BaseModel, ValidationError

from atlas.calllog import CallLog, CallRecord
from atlas.envelope import envelope_err, envelope_ok
from atlas.errors import ErrorKind, ToolError, classify, describe
from atlas.events import ApprovalRequest, Approver, BatchApprover, CallEvent, EventSink, Phase, deny_all
from atlas.tools import threads
from atlas.tools.approvals import (
    BatchGate,
    RequestBuilder,
    decide_each,
    decide_together,
    editable_request,
    idempotency_key,
    settled_without_asking,
)
from atlas.tools.breaker import CircuitBreaker
from atlas.tools.outputs import OUTPUT_LIMIT, capped_output
from atlas.tools.registry import Registry, ToolContext, ToolSpec

MIN_BUDGET_S = 0.5
"""A call is not started when less than this is left of the question's budget."""
BACKOFF_S = (0.2, 0.4)
"""First retry waits a random time in this range; each further retry waits twice as long."""
CANCEL_GRACE_S = 0.3
"""How long cancelled calls get to record themselves before the batch answers for them."""
LOG_FLUSH_S = 0.2
"""Finished reads are written to the call log together, at most this long after the first waits;
side effects are written at once."""
SIDE_EFFECT_GRACE_S = 0.2
"""How long a side effect already running when the batch is cancelled gets to finish (within CANCEL_GRACE_S)."""


class CallLike(Protocol):
    """A tool call: the SDK's function_call item and `messages.ToolCall` alike."""

    @property
    def name(self) -> str: ...
    @property
    def arguments(self) -> str: ...
    @property
    def call_id(self) -> str: ...


@dataclass
class _Call:
    """One call's progress through the executor."""

    call: CallLike
    round: int
    position: int
    attempts: int = 0
    approved: bool | None = None
    edited: tuple[BaseModel, dict[str, Any]] | None = None
    """The arguments of the last edit shown to the person: what runs if they approve."""
    clock: float = field(default_factory=time.monotonic)
    output: dict[str, Any] | None = None
    parsed: dict[str, Any] | _Outcome = field(init=False)
    """The arguments as an object, or the bad_args outcome when they are not one."""
    arguments: dict[str, Any] | str = field(init=False)
    """The arguments as an object when they parse to one, else the raw text (for events and the log)."""

    def __post_init__(self) -> None:
        self.parsed = _parse_arguments(self.call.arguments)
        self.arguments = self.call.arguments if isinstance(self.parsed, _Outcome) else self.parsed

    def restart_clock(self) -> None:
        self.clock = time.monotonic()


@dataclass
class _Outcome:
    kind: ErrorKind
    envelope: dict[str, Any]
    message: str | None = None
    rendered: tuple[int, str] | None = None
    """(output limit, the envelope as the model reads it) once serialised: shared outcomes keep it."""


@dataclass
class _Primitives:
    """asyncio primitives bind to one event loop; a chat may run each turn in a new one."""

    loop: asyncio.AbstractEventLoop
    slots: asyncio.Semaphore
    approval: asyncio.Lock


class ToolExecutor:
    """Runs tool calls from a registry; see the module docstring for the contract."""

    def __init__(
        self,
        registry: Registry,
        *,
        timeout_s: float = 5.0,
        max_attempts: int = 2,
        approve: Approver = deny_all,
        approve_batch: BatchApprover | None = None,
        max_concurrency: int = 4,
        on_event: EventSink | None = None,
        call_log: CallLog | None = None,
        session: str | None = None,
        context: ToolContext | None = None,
        breaker_threshold: int = 5,
        breaker_cooldown_s: float = 30.0,
        answer_reserve_s: float = 2.0,
        output_limit: int = OUTPUT_LIMIT,
    ) -> None:
        self.registry = registry
        self.timeout_s = timeout_s
        self.max_attempts = max(1, max_attempts)
        self.approve = approve
        self.approve_batch = approve_batch
        """Decides a response's side effects together; without it, `approve` is asked about each."""
        self.max_concurrency = max(1, max_concurrency)
        self.on_event = on_event
        self.call_log = call_log
        base = context or ToolContext()
        self.session = session or base.session or uuid.uuid4().hex[:12]
        self.context = dataclasses.replace(base, session=self.session, idempotency_key=None)
        self.breaker_threshold = breaker_threshold
        self.breaker_cooldown_s = breaker_cooldown_s
        self.answer_reserve_s = answer_reserve_s
        self.output_limit = output_limit
        self.log: list[CallRecord] = []
        self.last_outputs: list[dict[str, Any]] = []
        self.turn = 0
        self._unlogged: list[CallRecord] = []
        self._unlogged_since = 0.0
        self._deadline: float | None = None
        self._reserve_s = answer_reserve_s
        self._untrusted: list[str] = []
        self._breakers: dict[str, CircuitBreaker] = {}
        self._primitives: _Primitives | None = None

    # -- public ---------------------------------------------------------------------------

    @property
    def leaked_threads(self) -> int:
        """Tool threads that outlived their deadline and still run, process-wide."""
        return threads.leaked_threads()

    @property
    def untrusted_sources(self) -> list[str]:
        """Where untrusted text read in this turn came from (`issue #92`), first read first."""
        return list(self._untrusted)

    def new_turn(self, turn: int, *, deadline: float | None = None) -> None:
        """Start a question: its number, and the `time.monotonic()` at which its budget ends (None: none)."""
        self.turn = turn
        self._deadline = deadline
        self._untrusted = []
        # The answer's reserve never eats more than a quarter of a short budget.
        budget = None if deadline is None else deadline - time.monotonic()
        self._reserve_s = self.answer_reserve_s if budget is None else min(self.answer_reserve_s, max(0.0, budget) / 4)

    def breaker(self, name: str) -> CircuitBreaker:
        """The circuit breaker of one tool, created on first use."""
        if name not in self._breakers:
            self._breakers[name] = CircuitBreaker(self.breaker_threshold, self.breaker_cooldown_s)
        return self._breakers[name]

    async def run_all(self, calls: Sequence[CallLike], *, round: int = 0) -> list[dict[str, Any]]:
        """One `function_call_output` per call, in request order; cancellation: see the module docstring."""
        prims = self._prims()
        states = [_Call(call=call, round=round, position=index) for index, call in enumerate(calls)]
        tasks = self._start(states, prims)
        try:
            if tasks:
                await asyncio.wait(tasks)
        except asyncio.CancelledError:
            for task in tasks:
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait(tasks, timeout=CANCEL_GRACE_S)
            self.last_outputs = [state.output or self._finish(state, _cancelled()) for state in states]
            raise
        finally:
            self._flush_log()
        # Every call has its output by now; the fallback only guards against a bug in this module.
        self.last_outputs = [
            state.output or self._finish(state, _error(ErrorKind.UNKNOWN, "no result")) for state in states
        ]
        self._flush_log()
        return list(self.last_outputs)

    async def run_one(self, call: CallLike, *, round: int = 0) -> dict[str, Any]:
        """Run a single call; same contract as `run_all`."""
        return (await self.run_all([call], round=round))[0]

    # -- one call -------------------------------------------------------------------------

    def _start(self, states: Sequence[_Call], prims: _Primitives) -> list[asyncio.Task[None]]:
        """A task for each call that may run; the others are answered here and now.

        Without a task each: a model may ask for thousands of calls, and answering those that
        cannot run (no time left, bad arguments) one task at a time would outlast the budget.
        """
        runnable: list[tuple[_Call, ToolSpec[Any], BaseModel]] = []
        for state in states:
            try:
                checked = self._check(state)
            except Exception as exc:  # a bug in the executor must still answer the call
                checked = _error(ErrorKind.UNKNOWN, f"{type(exc).__name__}: {describe(exc)}")
            if isinstance(checked, _Outcome):
                self._finish(state, checked)  # its one event: FINISHED
            else:
                runnable.append((state, *checked))
        # The side effects of one response are asked about together, once each has been checked.
        gate = BatchGate(sum(1 for _, spec, _ in runnable if spec.side_effect), self._decide_batch, prims.approval)
        tasks: list[asyncio.Task[None]] = []
        for state, spec, args in runnable:
            self._emit(state, Phase.QUEUED)
            tasks.append(asyncio.create_task(self._run_call(state, prims, gate, spec, args)))
        return tasks

    def _decide_batch(self, builders: list[RequestBuilder]) -> set[str]:
        """Together when there is a batch approver, else one question per call."""
        if self.approve_batch is not None:
            return decide_together(self.approve_batch, builders)
        return decide_each(self.approve, builders)

    async def _run_call(
        self, state: _Call, prims: _Primitives, gate: BatchGate, spec: ToolSpec[Any], args: BaseModel
    ) -> None:
        try:
            outcome = await self._decide(state, prims, gate, spec, args)
        except asyncio.CancelledError:
            outcome = _cancelled()
        except Exception as exc:  # a bug in the executor must still answer the call
            outcome = _error(ErrorKind.UNKNOWN, f"{type(exc).__name__}: {describe(exc)}")
        self._finish(state, outcome)

    def _check(self, state: _Call) -> _Outcome | tuple[ToolSpec[Any], BaseModel]:
        """What can be decided before a call waits for anything: its tool and arguments, or why it cannot run."""
        spec = self.registry.get(state.call.name)
        if spec is None:
            return _error(ErrorKind.UNKNOWN_TOOL, f"no tool named {state.call.name!r}")
        if isinstance(state.parsed, _Outcome):
            return state.parsed
        try:
            args = spec.args_model.model_validate(state.parsed)
        except ValidationError as exc:
            return _error(ErrorKind.BAD_ARGS, describe(exc))
        if self.breaker(spec.name).blocked():
            return _unavailable(spec.name)
        if self._timeout_for(spec) is None:
            return _NO_TIME_BUDGET
        return spec, args

    async def _decide(
        self, state: _Call, prims: _Primitives, gate: BatchGate, spec: ToolSpec[Any], args: BaseModel
    ) -> _Outcome:
        call = state.call
        breaker = self.breaker(spec.name)
        context = self.context
        if spec.side_effect:
            context = dataclasses.replace(context, idempotency_key=idempotency_key(self.session, call.call_id))
            settled = await self._settle_unasked(spec, args, context)
            if settled is not None:
                await gate.leave()
                return settled
            state.approved = await self._ask(state, spec, args, context, gate)
            if state.approved and state.edited is not None:
                args, state.arguments = state.edited  # exactly the text that was approved
            state.restart_clock()
            if not state.approved:
                return _error(ErrorKind.DENIED, f"{spec.name} was not approved")
        async with prims.slots:
            state.restart_clock()
            admission = breaker.admit()
            if admission == "refused":
                return _unavailable(spec.name)
            outcome = _cancelled()
            try:
                outcome = await self._attempts(state, spec, args, context)
            finally:
                breaker.record(outcome.kind, admission)
            return outcome

    async def _attempts(self, state: _Call, spec: ToolSpec[Any], args: BaseModel, context: ToolContext) -> _Outcome:
        # One deadline for the whole call, its timer started with its slot: retries share it.
        call_ends = state.clock + self._own_timeout(spec)
        backoff = random.uniform(*BACKOFF_S)
        while True:
            timeout = self._timeout_for(spec, call_ends)
            if timeout is None:
                return _NO_TIME_BUDGET
            state.attempts += 1
            self._emit(state, Phase.STARTED, attempt=state.attempts)
            outcome = await self._attempt(spec, args, context, timeout)
            retry = outcome.kind is ErrorKind.TRANSIENT and spec.idempotent and state.attempts < self.max_attempts
            if not retry or not self._has_time_for(spec, backoff, call_ends):
                return outcome
            self._emit(state, Phase.RETRYING, attempt=state.attempts, message=outcome.message)
            await asyncio.sleep(backoff)
            backoff *= 2

    async def _attempt(self, spec: ToolSpec[Any], args: BaseModel, context: ToolContext, timeout: float) -> _Outcome:
        job = threads.ThreadCall(spec.fn, args, context, name=f"atlas-tool-{spec.name}")
        try:
            done, _ = await asyncio.wait([job.future], timeout=timeout)
        except asyncio.CancelledError:
            if not spec.side_effect:
                job.abandon()
                raise
            return await self._settle_cancelled_side_effect(spec, args, job)
        except BaseException:
            job.abandon()
            raise
        if not done:
            job.abandon()
            if spec.side_effect:
                return _side_effect_unsettled(ErrorKind.TIMEOUT, f"{spec.name} did not return within {timeout:.1f} s")
            return _error(ErrorKind.TIMEOUT, f"{spec.name} did not return within {timeout:.1f} s")
        return self._outcome_of(spec, args, job)

    async def _settle_cancelled_side_effect(
        self, spec: ToolSpec[Any], args: BaseModel, job: threads.ThreadCall
    ) -> _Outcome:
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
            return _side_effect_unsettled(ErrorKind.CANCELLED, f"cancelled by the user while {spec.name} ran")
        outcome = self._outcome_of(spec, args, job)
        # Whatever failed is not retried after Ctrl-C; nothing happened, so it is simply cancelled.
        return outcome if outcome.kind is ErrorKind.OK else _cancelled()

    def _outcome_of(self, spec: ToolSpec[Any], args: BaseModel, job: threads.ThreadCall) -> _Outcome:
        """The outcome of a finished attempt; untrusted sources it read join the turn's."""
        failure = job.future.exception()
        if failure is not None:
            return _failure(failure)
        data = job.future.result()
        if spec.untrusted is None:
            return _Outcome(ErrorKind.OK, envelope_ok(data))
        try:
            sources = spec.untrusted(args, data)
        except Exception as exc:  # naming the source is best effort; the text stays marked untrusted
            sources = [f"{spec.name} (source unknown: {describe(exc)})"]
        for source in sources:
            if source not in self._untrusted:
                self._untrusted.append(source)
        return _Outcome(ErrorKind.OK, envelope_ok(data, untrusted=True))

    def _own_timeout(self, spec: ToolSpec[Any]) -> float:
        return spec.timeout_s if spec.timeout_s is not None else self.timeout_s

    def _timeout_for(self, spec: ToolSpec[Any], call_ends: float | None = None) -> float | None:
        """An attempt's time: what is left of the call's deadline (all of it before the call starts),
        cut to the question's budget; None when too little of the budget is left."""
        now = time.monotonic()
        own = self._own_timeout(spec) if call_ends is None else call_ends - now
        if self._deadline is None:
            return own
        left = self._deadline - now - self._reserve_s
        return None if left < MIN_BUDGET_S else min(own, left)

    def _has_time_for(self, spec: ToolSpec[Any], wait_s: float, call_ends: float) -> bool:
        """Whether a retry after `wait_s` is worth starting: half the tool's deadline (at most
        MIN_BUDGET_S) still left of the call's, and MIN_BUDGET_S of the question's budget."""
        starts = time.monotonic() + wait_s
        if call_ends - starts < min(MIN_BUDGET_S, self._own_timeout(spec) / 2):
            return False
        return self._deadline is None or self._deadline - starts - self._reserve_s >= MIN_BUDGET_S

    async def _settle_unasked(self, spec: ToolSpec[Any], args: BaseModel, context: ToolContext) -> _Outcome | None:
        """A side effect that would change nothing, or would be refused, is answered without a prompt."""
        try:
            unchanged = await settled_without_asking(spec, args, context)
        except Exception as exc:
            refusal = _failure(exc)
            # Only a refusal is final; a busy file or a broken check is left to the person and the tool.
            return refusal if refusal.kind in (ErrorKind.PERMANENT, ErrorKind.BAD_ARGS) else None
        return None if unchanged is None else _Outcome(ErrorKind.OK, envelope_ok(unchanged))

    async def _ask(
        self, state: _Call, spec: ToolSpec[Any], args: BaseModel, context: ToolContext, gate: BatchGate
    ) -> bool:
        """Wait for the batch's one question; the request is built when it is asked, so reads that
        finished meanwhile count as sources, and the preview (which may read files) runs off the loop."""

        def remember(edited: BaseModel, arguments: dict[str, Any]) -> None:
            state.edited = (edited, arguments)

        def build() -> ApprovalRequest:
            sources = list(self._untrusted)
            return editable_request(spec, state.call.call_id, args, context, state.arguments, sources, remember)

        self._emit(state, Phase.AWAITING_APPROVAL)
        approved = await gate.submit(state.call.call_id, state.position, build)
        self._emit(state, Phase.APPROVED if approved else Phase.DENIED)
        return approved

    # -- results --------------------------------------------------------------------------

    def _finish(self, state: _Call, outcome: _Outcome) -> dict[str, Any]:
        if state.output is not None:
            return state.output
        ms = round((time.monotonic() - state.clock) * 1000, 1)
        leaked = threads.leaked_threads()
        try:
            if outcome.rendered is None or outcome.rendered[0] != self.output_limit:
                outcome.rendered = (self.output_limit, capped_output(outcome.envelope, self.output_limit))
            text = outcome.rendered[1]
        except (ValueError, TypeError, RecursionError) as exc:  # e.g. data that refers to itself
            outcome = _error(ErrorKind.UNKNOWN, f"the result could not be serialised: {describe(exc)}")
            text = capped_output(outcome.envelope, self.output_limit)
        state.output = {"type": "function_call_output", "call_id": state.call.call_id, "output": text}
        record = CallRecord(
            round=state.round,
            call_id=state.call.call_id,
            name=state.call.name,
            arguments=state.arguments,
            kind=outcome.kind.value,
            ms=ms,
            attempts=state.attempts,
            message=outcome.message,
            approved=state.approved,
            leaked_threads=leaked,
            position=state.position,
        )
        self.log.append(record)
        self._log_call(record)
        self._emit(
            state,
            Phase.FINISHED,
            kind=outcome.kind.value,
            ms=ms,
            attempts=state.attempts,
            message=outcome.message,
            leaked_threads=leaked,
        )
        return state.output

    def _log_call(self, record: CallRecord) -> None:
        """Queue a record for the call log: one transaction per batch, not one per call."""
        if self.call_log is None:
            return
        if not self._unlogged:
            self._unlogged_since = time.monotonic()
        self._unlogged.append(record)
        # An approved (or denied) side effect is logged before anything else can happen to the process.
        if record.approved is not None or time.monotonic() - self._unlogged_since >= LOG_FLUSH_S:
            self._flush_log()

    def _flush_log(self) -> None:
        if self.call_log is not None and self._unlogged:
            records, self._unlogged = self._unlogged, []
            self.call_log.record_calls(records, session=self.session, turn=self.turn)

    def _emit(self, state: _Call, phase: Phase, **fields: Any) -> None:
        if self.on_event is None:
            return
        fields.setdefault("attempts", state.attempts)
        if "leaked_threads" not in fields:
            fields["leaked_threads"] = threads.leaked_threads()
        event = CallEvent(
            phase=phase,
            call_id=state.call.call_id,
            name=state.call.name,
            arguments=state.arguments,
            round=state.round,
            **fields,
        )
        with contextlib.suppress(Exception):  # a broken display must never break a tool call
            self.on_event(event)

    def _prims(self) -> _Primitives:
        loop = asyncio.get_running_loop()
        if self._primitives is None or self._primitives.loop is not loop:
            self._primitives = _Primitives(loop, asyncio.Semaphore(self.max_concurrency), asyncio.Lock())
        return self._primitives


def _error(kind: ErrorKind, message: str, *, hint: str | None = None, retryable: bool | None = None) -> _Outcome:
    envelope = envelope_err(kind, message, hint=hint, retryable=retryable)
    return _Outcome(kind, envelope, envelope["error"]["message"])


def _failure(failure: BaseException) -> _Outcome:
    """A tool's exception as the outcome the model reads: its kind, its message and its hint."""
    kind = classify(failure)
    text = describe(failure)
    hint = failure.hint if isinstance(failure, ToolError) else None
    return _error(kind, text if kind is not ErrorKind.UNKNOWN else f"{type(failure).__name__}: {text}", hint=hint)


def _side_effect_unsettled(kind: ErrorKind, message: str) -> _Outcome:
    """A side effect whose thread was left running (timed out, or Ctrl-C): the write may still land.

    Never retryable, so the model does not ask for it again (a second prompt, maybe a second write).
    """
    return _error(
        kind,
        f"{message}: it may have taken effect",
        hint=(
            "This action was left running and may have been done. Do not retry it; tell the user to "
            "check whether it happened."
        ),
        retryable=False,
    )


def _cancelled() -> _Outcome:
    return _error(ErrorKind.CANCELLED, "cancelled by the user")


_NO_TIME_BUDGET = _error(
    ErrorKind.NO_TIME_BUDGET, "too little of the question's time budget was left to start this call"
)
"""One outcome (and one serialised output, see `_finish`) shared by every call the budget leaves out."""


def _unavailable(name: str) -> _Outcome:
    return _error(
        ErrorKind.UNAVAILABLE, f"{name} is switched off after repeated failures; it will be tried again later"
    )


def _parse_arguments(text: str) -> dict[str, Any] | _Outcome:
    try:
        value = json.loads(text) if text.strip() else {}
    except (ValueError, TypeError, AttributeError) as exc:
        return _error(ErrorKind.BAD_ARGS, f"arguments are not valid JSON: {exc}")
    except RecursionError:  # valid JSON nested deeper than any parser here follows
        return _error(ErrorKind.BAD_ARGS, "arguments are nested too deeply to read")
    if not isinstance(value, dict):
        return _error(ErrorKind.BAD_ARGS, f"arguments must be a JSON object, got {type(value).__name__}")
    return value
