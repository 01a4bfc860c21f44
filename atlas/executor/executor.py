"""Run the tool calls of one model response: in parallel, time-boxed, classified, approved, cancellable.

`await executor.run_all(calls, turn=turn)` returns one `function_call_output` item per call, in
request order, whose `output` is the JSON envelope (`{"ok": true, "data": ...}` or `{"ok": false,
"error": {...}}`). A tool's failure never raises: it becomes an `ErrorKind` the model can act on.

Per call: validate → circuit breaker → time budget → approval (side effects only; `approve`
runs in a worker thread, one prompt at a time, while reads go on) → a concurrency slot (the
call's timer starts here) → attempts (`attempts.py`) in a daemon thread, all within the call's
one deadline cut to the question's budget → envelope, capped → FINISHED event carrying the
`CallRecord` and the turn's number. Calls that cannot run (unknown tool, bad arguments, breaker
open, no time left) are answered before any task is made, so thousands of them cost little of
the budget.

The executor persists nothing and keeps no per-question state: the question's deadline and the
untrusted sources it has read live in the `Turn` that `new_turn` returns and `run_all` takes.
What happens goes to the session's channel (`events`, an `atlas.protocol.events.Events`): a `CallEvent`
for each phase of each call, then `BatchEnded` once per `run_all`, after every call of the batch
is answered (also when it was cancelled); a listener that buffers (the call log writes a batch
in one transaction) flushes there. No event is built when nobody listens, and only FINISHED ones
and `BatchEnded` when every listener wants only what ends (`Events.following`).

Cancellation (Ctrl-C cancels the task awaiting `run_all`): every unfinished call is answered with
kind `cancelled` and reported as FINISHED — except that a side effect already running gets a
moment to finish, so a write that landed is reported as done, and one still running as possibly
done. `run_all` then raises `BatchCancelled` (an `asyncio.CancelledError`) carrying the complete
outputs of the batch in request order: a caller that keeps the conversation going appends them,
so every function_call stays answered, and re-raises.

Threads left behind by timed-out tools are daemon threads: they neither hold the process open
nor take a slot from later calls; `leaked_threads` counts them, process-wide.
"""

from __future__ import annotations

import asyncio
import contextlib
import copy
import dataclasses
import os
import time
from collections.abc import Sequence
from typing import Any

from atlas.executor import threads
from atlas.executor.approvals import (
    BatchGate,
    PolicyHook,
    RequestBuilder,
    decide_each,
    decide_together,
    idempotency_key,
)
from atlas.executor.attempts import run_attempts
from atlas.executor.breaker import CircuitBreaker
from atlas.executor.cache import ReadCache
from atlas.executor.consent import Consenting, consent
from atlas.executor.outcomes import (
    NO_TIME_BUDGET,
    CallLike,
    CallState,
    Outcome,
    cancelled,
    error,
    side_effect_done,
    unavailable,
    with_side_effect_done,
)
from atlas.executor.outputs import OUTPUT_LIMIT, capped_output
from atlas.executor.turn import BatchCancelled, Primitives, Turn
from atlas.foundation.errors import BadArguments, ErrorKind, describe
from atlas.protocol.deadline import QuestionDeadline
from atlas.protocol.events import (
    Approver,
    BatchApprover,
    BatchEnded,
    CallEvent,
    CallRecord,
    Events,
    Listener,
    Phase,
    deny_all,
)
from atlas.tools.registry import Registry, ToolContext, ToolSpec, strict_arguments

__all__ = ["BatchCancelled", "CallLike", "ToolExecutor", "Turn", "idempotency_key"]

CANCEL_GRACE_S = 0.3
"""How long cancelled calls get to record themselves before the batch answers for them."""


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
        events: Listener | None = None,
        session: str | None = None,
        context: ToolContext | None = None,
        breaker_threshold: int = 5,
        breaker_cooldown_s: float = 30.0,
        answer_reserve_s: float = 2.0,
        output_limit: int = OUTPUT_LIMIT,
        policy: PolicyHook | None = None,
    ) -> None:
        self.registry = registry
        self.timeout_s = timeout_s
        self.max_attempts = max(1, max_attempts)
        self.approve = approve
        self.approve_batch = approve_batch
        """Decides a response's side effects together; without it, `approve` is asked about each."""
        self.max_concurrency = max(1, max_concurrency)
        self.events = Events.of(events)
        """Where every call's phases and every batch's end are told (the display, the log, the tracer)."""
        base = context or ToolContext()
        self.session = session or base.session or os.urandom(6).hex()
        self.context = dataclasses.replace(base, session=self.session, idempotency_key=None)
        self.breaker_threshold = breaker_threshold
        self.breaker_cooldown_s = breaker_cooldown_s
        self.answer_reserve_s = answer_reserve_s
        self.output_limit = output_limit
        self.policy = policy
        """The approval policy, consulted for each side effect before a person is asked."""
        self.log: list[CallRecord] = []
        """Every call this executor finished, in the order they finished (the call log keeps them on disk)."""
        self._breakers: dict[str, CircuitBreaker] = {}
        self.cache = ReadCache()
        """This conversation's cached reads (`cache.py`)."""
        self._primitives: Primitives | None = None

    # -- public ---------------------------------------------------------------------------

    @property
    def leaked_threads(self) -> int:
        """Tool threads that outlived their deadline and still run, process-wide."""
        return threads.leaked_threads()

    def new_turn(self, number: int, *, deadline: QuestionDeadline | None = None) -> Turn:
        """A question, from now: its number, and its deadline (None: none)."""
        return Turn.starting(number, deadline=deadline, answer_reserve_s=self.answer_reserve_s)

    def with_registry(self, registry: Registry) -> ToolExecutor:
        """This executor offering other tools (`/read-only`): same settings, breakers and channel."""
        other = copy.copy(self)
        other.registry = registry
        return other

    def breaker(self, name: str) -> CircuitBreaker:
        """The circuit breaker of one tool, created on first use."""
        if name not in self._breakers:
            self._breakers[name] = CircuitBreaker(self.breaker_threshold, self.breaker_cooldown_s)
        return self._breakers[name]

    async def run_all(
        self, calls: Sequence[CallLike], *, round: int = 0, turn: Turn | None = None
    ) -> list[dict[str, Any]]:
        """One `function_call_output` per call, in request order; cancellation: see the module docstring.

        Without a `turn`, the batch is a question of its own: no deadline, turn number 0.
        """
        turn = turn if turn is not None else self.new_turn(0)
        prims = self._prims()
        states = [CallState(call=call, round=round, position=index) for index, call in enumerate(calls)]
        try:
            return await self._answers(states, self._start(states, turn, prims), turn)
        finally:
            if self.events.listening:
                self.events(BatchEnded(turn.number))

    async def run_one(self, call: CallLike, *, round: int = 0, turn: Turn | None = None) -> dict[str, Any]:
        """Run a single call; same contract as `run_all`."""
        return (await self.run_all([call], round=round, turn=turn))[0]

    # -- one batch ------------------------------------------------------------------------

    def _start(self, states: Sequence[CallState], turn: Turn, prims: Primitives) -> list[asyncio.Task[None]]:
        """A task for each call that may run; the others are answered here and now.

        Without a task each: a model may ask for thousands of calls, and answering those that
        cannot run (no time left, bad arguments) one task at a time would outlast the budget.
        """
        runnable: list[tuple[CallState, ToolSpec[Any], object]] = []
        for state in states:
            try:
                checked = self._check(state, turn)
            except Exception as exc:  # a bug in the executor must still answer the call
                checked = error(ErrorKind.UNKNOWN, f"{type(exc).__name__}: {describe(exc)}")
            if isinstance(checked, Outcome):
                self._finish(state, checked, turn)  # its one event: FINISHED
            else:
                runnable.append((state, *checked))
        # The side effects of one response are asked about together, once each has been checked.
        gate = BatchGate(sum(1 for _, spec, _ in runnable if spec.side_effect), self._decide_batch, prims.approval)
        tasks: list[asyncio.Task[None]] = []
        for state, spec, args in runnable:
            self._emit(state, Phase.QUEUED, turn)
            tasks.append(asyncio.create_task(self._run_call(state, turn, prims, gate, spec, args)))
        return tasks

    def _decide_batch(self, builders: list[RequestBuilder]) -> set[str]:
        """Together when there is a batch approver, else one question per call."""
        if self.approve_batch is not None:
            return decide_together(self.approve_batch, builders)
        return decide_each(self.approve, builders)

    async def _answers(
        self, states: Sequence[CallState], tasks: list[asyncio.Task[None]], turn: Turn
    ) -> list[dict[str, Any]]:
        try:
            if tasks:
                await asyncio.wait(tasks)
        except asyncio.CancelledError as exc:
            for task in tasks:
                task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await asyncio.wait(tasks, timeout=CANCEL_GRACE_S)
            outputs = [state.output or self._finish(state, cancelled(), turn) for state in states]
            raise BatchCancelled(outputs) from exc
        # Every call has its output by now; the fallback only guards against a bug in this module.
        return [state.output or self._finish(state, error(ErrorKind.UNKNOWN, "no result"), turn) for state in states]

    # -- one call -------------------------------------------------------------------------

    async def _run_call(
        self, state: CallState, turn: Turn, prims: Primitives, gate: BatchGate, spec: ToolSpec[Any], args: object
    ) -> None:
        try:
            outcome = await self._decide(state, turn, prims, gate, spec, args)
        except asyncio.CancelledError:
            outcome = cancelled()
        except Exception as exc:  # a bug in the executor must still answer the call
            outcome = error(ErrorKind.UNKNOWN, f"{type(exc).__name__}: {describe(exc)}")
        self._finish(state, outcome, turn)

    def _check(self, state: CallState, turn: Turn) -> Outcome | tuple[ToolSpec[Any], object]:
        """What can be decided before a call waits for anything: its tool and arguments, or why it cannot run."""
        spec = self.registry.get(state.call.name)
        if spec is None:
            return error(ErrorKind.UNKNOWN_TOOL, f"no tool named {state.call.name!r}")
        if isinstance(state.parsed, Outcome):
            return state.parsed
        try:
            args = strict_arguments(spec.args_model, state.parsed)
        except BadArguments as exc:
            return error(ErrorKind.BAD_ARGS, str(exc))
        if self.breaker(spec.breaker_key or spec.name).blocked():
            return unavailable(spec.name)
        if turn.timeout(self._own_timeout(spec), time.monotonic()) is None:
            return NO_TIME_BUDGET
        return spec, args

    async def _decide(
        self, state: CallState, turn: Turn, prims: Primitives, gate: BatchGate, spec: ToolSpec[Any], args: object
    ) -> Outcome:
        call = state.call
        breaker = self.breaker(spec.breaker_key or spec.name)
        context = self.context
        if spec.side_effect:
            context = dataclasses.replace(context, idempotency_key=idempotency_key(self.session, call.call_id))

            def emit(state: CallState, phase: Phase, **fields: Any) -> None:
                self._emit(state, phase, turn, **fields)

            consented = await consent(Consenting(state, turn, spec, gate, self.policy, emit), args, context)
            if isinstance(consented, Outcome):
                return consented
            args, context = consented
            state.restart_clock()
        if (hit := self.cache.get(spec, args, turn)) is not None:
            return hit
        async with prims.slots:
            state.restart_clock()
            admission = breaker.admit()
            if admission == "refused":
                return unavailable(spec.name)
            outcome = cancelled()
            try:
                outcome = await run_attempts(
                    state,
                    spec,
                    args,
                    context,
                    turn=turn,
                    own_timeout=self._own_timeout(spec),
                    max_attempts=self.max_attempts,
                    emit=lambda state, phase, **fields: self._emit(state, phase, turn, **fields),
                )
            finally:
                breaker.record(outcome.kind, admission)
            self.cache.after(spec, args, outcome, side_effect_done(outcome, state.attempts))
            return outcome

    def _own_timeout(self, spec: ToolSpec[Any]) -> float:
        return spec.timeout_s if spec.timeout_s is not None else self.timeout_s

    # -- results --------------------------------------------------------------------------

    def _finish(self, state: CallState, outcome: Outcome, turn: Turn) -> dict[str, Any]:
        if state.output is not None:
            return state.output
        ms = round((time.monotonic() - state.clock) * 1000, 1)
        leaked = threads.leaked_threads()
        spec = self.registry.get(state.call.name)
        if spec is not None and spec.side_effect:
            outcome = with_side_effect_done(outcome, state.attempts)
        try:
            if outcome.rendered is None or outcome.rendered[0] != self.output_limit:
                outcome.rendered = (self.output_limit, capped_output(outcome.envelope, self.output_limit))
            text = outcome.rendered[1]
        except (ValueError, TypeError, RecursionError) as exc:  # e.g. data that refers to itself
            outcome = error(ErrorKind.UNKNOWN, f"the result could not be serialised: {describe(exc)}")
            text = capped_output(outcome.envelope, self.output_limit)
        state.output = {"type": "function_call_output", "call_id": state.call.call_id, "output": text}
        record = CallRecord(
            round=state.round,
            call_id=state.call.call_id,
            name=state.call.name,
            arguments=state.arguments,
            kind=outcome.kind,
            ms=ms,
            attempts=state.attempts,
            message=outcome.message,
            approved=state.approved,
            leaked_threads=leaked,
            position=state.position,
            decided_by=state.decided_by,
        )
        self.log.append(record)
        turn.records.append(record)
        self._emit(
            state,
            Phase.FINISHED,
            turn,
            kind=outcome.kind,
            ms=ms,
            attempts=state.attempts,
            message=outcome.message,
            leaked_threads=leaked,
            record=record,
            output=text,
        )
        return state.output

    def _emit(self, state: CallState, phase: Phase, turn: Turn, **fields: Any) -> None:
        # The channel suppresses a listener's failure; with nobody to tell, no event is built.
        if not (self.events.listening if phase is Phase.FINISHED else self.events.following):
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
            turn=turn.number,
            **fields,
        )
        self.events(event)

    def _prims(self) -> Primitives:
        self._primitives = Primitives.for_running_loop(self._primitives, self.max_concurrency)
        return self._primitives
