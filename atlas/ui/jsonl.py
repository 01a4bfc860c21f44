"""`--jsonl`: the run as a stream of JSON events, one per line on standard output.

A thin adapter over the session's events: `JsonlEvents` is a listener on the session's channel
that writes the executor's `CallEvent`s and the model's waits (`Asking`, `Retrying`) and ignores
the rest; each model request is seen by `ObservedModel`, a wrapper of the model; the command
reports the rest itself (`question`, then `result`: the answer, usage, what was denied). A command
gets `--jsonl` with `streamed(run)`: `run` is handed the stream (None without the option),
subscribes it to its channel and returns `events.result(result)` as its exit code; a command
without a model (`triage`, `apply`) says `run_started(...)` instead of `question`, and ends with
`ended(records)`, which lists what was denied and gives the same exit codes. Every line is
one object with `event`, `ts` (Unix time) and `t` (seconds since the run started); text from
outside is JSON-escaped as ASCII, so no control character reaches a terminal that shows it.
Errors never come here: they are one line on standard error.
"""

from __future__ import annotations

import sys
import time
from collections.abc import Callable, Sequence
from typing import IO, Any, Protocol

from atlas.foundation.errors import AtlasError
from atlas.llm import Model
from atlas.llm.adapter import ModelAdapter, ModelRequest
from atlas.protocol.events import Asking, CallEvent, CallRecord, Phase, Retrying, SessionEvent
from atlas.protocol.messages import ModelTurn, Usage
from atlas.ui.json_out import json_text

EXIT_ANSWERED = 0
EXIT_FAILED = 1
EXIT_USAGE = 2
EXIT_DENIED = 3
"""Answered, but one or more side effects were denied (by a rule, a person, or for want of a terminal)."""
EXIT_CANCELLED = 130

_PHASES = {
    Phase.STARTED: "tool_started",
    Phase.RETRYING: "tool_retrying",
    Phase.AWAITING_APPROVAL: "approval_asked",
    Phase.APPROVED: "approval_decided",
    Phase.DENIED: "approval_decided",
    Phase.FINISHED: "tool_finished",
}


class Answered(Protocol):
    """What a finished turn reports (`loop.TurnResult`)."""

    answer: str
    finished: bool
    rounds: int
    usage: Usage
    cost_usd: float
    calls: list[CallRecord]


def streamed(run: Callable[[JsonlEvents], int]) -> int:
    """`run(stream)` on a new stream, which ends with `finished` and the exit code whatever happens
    (an error itself is left to the caller's one line on standard error)."""
    events = JsonlEvents()
    try:
        code = run(events)
    except AtlasError as exc:
        events.finished(exc.exit_code)
        raise
    except KeyboardInterrupt:
        events.finished(EXIT_CANCELLED)
        raise
    except BaseException:
        events.finished(EXIT_FAILED)
        raise
    events.finished(code)
    return code


def denied_side_effects(records: Sequence[CallRecord]) -> list[CallRecord]:
    """The side effects that were decided against (a read is never decided)."""
    return [record for record in records if record.approved is False]


def exit_code(records: Sequence[CallRecord]) -> int:
    return EXIT_DENIED if denied_side_effects(records) else EXIT_ANSWERED


class AskingSession(Protocol):
    """What the stream needs of the session a question is asked in."""

    id: str
    model: Model

    def trace_ids(self, call_id: str) -> tuple[str, str] | None: ...


class JsonlEvents:
    """Writes each event of a run as one JSON line, flushed at once (a CI log shows it live)."""

    def __init__(self, out: IO[str] | None = None) -> None:
        self.out = out if out is not None else sys.stdout
        self.started = time.monotonic()
        self.session: str | None = None
        self.trace_ids: Callable[[str], tuple[str, str] | None] | None = None
        """A call's OpenTelemetry trace and span ids when telemetry is on: an event leads to its span."""

    def emit(self, event: str, **fields: Any) -> None:
        line = {"event": event, "ts": round(time.time(), 3), "t": round(time.monotonic() - self.started, 3)}
        if self.session:
            line["session"] = self.session
        line.update(fields)
        try:
            self.out.write(json_text(line) + "\n")
            self.out.flush()
        except (OSError, ValueError):  # a reader that went away costs the stream, not the run
            pass

    def question(self, question: str, *, model: str, session: str, read_only: bool) -> None:
        self.session = session
        self.emit("question_started", question=question, model=model, read_only=read_only)

    def observe(self, question: str, session: AskingSession, *, read_only: bool) -> ObservedModel:
        """The question started, in `session`: its calls lead to their spans, its model's requests are events."""
        self.trace_ids = session.trace_ids
        self.question(question, model=session.model.name, session=session.id, read_only=read_only)
        return ObservedModel(session.model, self)

    def run_started(self, event: str, *, session: str | None = None, **fields: Any) -> None:
        """A run without a question (`triage_started`, `apply_started`): what it was asked to do."""
        if session:
            self.session = session
        self.emit(event, **fields)

    def __call__(self, event: SessionEvent, /) -> None:
        if isinstance(event, CallEvent):
            self._call_event(event)
        elif isinstance(event, Asking):
            self.emit("model_waiting", model=event.model, attempt=event.attempt)
        elif isinstance(event, Retrying):
            self.emit("model_retrying", attempt=event.attempt, delay_s=round(event.delay_s, 3), reason=event.reason)

    def _call_event(self, event: CallEvent) -> None:
        name = _PHASES.get(event.phase)
        if name is None:
            return
        fields: dict[str, Any] = {"call_id": event.call_id, "tool": event.name, "round": event.round}
        ids = self.trace_ids(event.call_id) if self.trace_ids is not None else None
        if ids is not None:
            fields.update(trace_id=ids[0], span_id=ids[1])
        if event.phase in (Phase.STARTED, Phase.RETRYING):
            fields["attempt"] = event.attempt
        if event.phase == Phase.AWAITING_APPROVAL:
            fields["arguments"] = event.arguments
            if event.message:
                fields["note"] = event.message
        if event.phase in (Phase.APPROVED, Phase.DENIED):
            fields.update(approved=event.phase == Phase.APPROVED, decided_by=event.decided_by)
        if event.phase == Phase.FINISHED and event.record is not None:
            record = event.record
            fields.update(kind=str(record.kind), ms=record.ms, attempts=record.attempts)
            if record.approved is not None:
                fields.update(approved=record.approved, decided_by=record.decided_by)
        self.emit(name, **fields)

    def result(self, result: Answered) -> int:
        """The answer, usage and every denied action; the exit code they make (0, or 3 when denied)."""
        self.answer(result.answer, finished=result.finished, rounds=result.rounds)
        known = result.usage.known
        self.usage(
            input_tokens=result.usage.input_tokens if known else None,
            output_tokens=result.usage.output_tokens if known else None,
            cost_usd=result.cost_usd if known else None,
        )
        return self.ended(result.calls)

    def ended(self, records: Sequence[CallRecord], *, failed: bool = False) -> int:
        """Every denied action; the exit code: 1 when something that was to run failed, else 0, or 3 when denied."""
        self.denied(records)
        return EXIT_FAILED if failed else exit_code(records)

    def answer(self, text: str, *, finished: bool, rounds: int) -> None:
        self.emit("answer", text=text, finished=finished, rounds=rounds)

    def usage(self, *, input_tokens: int | None, output_tokens: int | None, cost_usd: float | None) -> None:
        self.emit("usage", input_tokens=input_tokens, output_tokens=output_tokens, cost_usd=cost_usd)

    def denied(self, records: Sequence[CallRecord]) -> None:
        for record in denied_side_effects(records):
            self.emit(
                "action_denied", call_id=record.call_id, tool=record.name, arguments=record.arguments,
                decided_by=record.decided_by, message=record.message,
            )  # fmt: skip

    def finished(self, code: int) -> None:
        self.emit("finished", exit_code=code)


class ObservedModel(ModelAdapter):
    """The model, with each request reported as `model_request` and `model_response` events."""

    def __init__(self, model: Model, events: JsonlEvents) -> None:
        self.model = model
        self.name = model.name
        self.events = events
        self.requests = 0

    async def answer(self, request: ModelRequest) -> ModelTurn:
        self.requests += 1
        number, started = self.requests, time.monotonic()
        self.events.emit("model_request", round=number, model=self.name)
        reply = await request.to(self.model)
        self.events.emit(
            "model_response",
            round=number,
            ms=round((time.monotonic() - started) * 1000, 1),
            tool_calls=[call.name for call in reply.calls],
            input_tokens=reply.usage.input_tokens if reply.usage.known else None,
            output_tokens=reply.usage.output_tokens if reply.usage.known else None,
        )
        return reply
