"""Events the executor emits for each phase of each call, the record of a finished call, and what an approver is asked.

Subscribers (the live rows of the UI, the call log) receive these; the executor and the loop
never import a subscriber. `CallObserver` is the subscriber's contract, after the lifecycle hooks
of openai-agents-python (`on_tool_end`) and llm's `after_call`: only the end of a call and of
a batch, so a subscriber costs nothing in the phases it does not need.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol

from atlas.errors import ErrorKind


class Phase(StrEnum):
    QUEUED = "queued"
    AWAITING_APPROVAL = "awaiting_approval"
    APPROVED = "approved"
    DENIED = "denied"
    STARTED = "started"
    RETRYING = "retrying"
    FINISHED = "finished"


@dataclass(frozen=True)
class CallRecord:
    """How one tool call ended; `arguments` is the parsed object, or the raw text when it was not one."""

    round: int
    call_id: str
    name: str
    arguments: dict[str, Any] | str
    kind: ErrorKind
    ms: float
    attempts: int
    message: str | None = None
    approved: bool | None = None
    leaked_threads: int = 0
    position: int = 0
    """Where the call stood in its model response (request order)."""
    ts: float = field(default_factory=time.time)
    trace_id: str | None = None
    span_id: str | None = None
    """The call's OpenTelemetry span (32 and 16 hex digits) when telemetry is on: a log row leads to its trace."""


@dataclass(frozen=True)
class CallEvent:
    """One phase of one tool call.

    `kind`, `ms` and `attempts` are final only on FINISHED; `attempt` is the attempt that
    is starting (STARTED) or that failed (RETRYING). `leaked_threads` counts tool threads
    that outlived their deadline and still run in the background, process-wide.
    """

    phase: Phase
    call_id: str
    name: str
    arguments: dict[str, Any] | str
    round: int = 0
    attempt: int = 0
    kind: ErrorKind | None = None
    ms: float | None = None
    attempts: int = 0
    message: str | None = None
    leaked_threads: int = 0
    turn: int = 0
    """The number of the question (turn) the call belongs to."""
    record: CallRecord | None = None
    """How the call ended: set on FINISHED only."""
    output: str | None = None
    """On FINISHED, the result text the model receives (for content capture in traces)."""


@dataclass(frozen=True)
class ApprovalRequest:
    """What a human is asked before a side effect runs.

    `preview` shows the effect (`#41 labels: [comp:core] → [comp:core, severity:S1]`, or the
    whole comment and its target); `untrusted_sources` names where untrusted text read earlier
    in this turn came from (`issue #92`), because that text may be what asked for the action.
    """

    call_id: str
    name: str
    arguments: dict[str, Any]
    preview: str
    untrusted_sources: list[str] = field(default_factory=list)
    editable_text: str | None = None
    """The text a person may edit before approving (a comment's body); None when nothing is editable."""
    edit: Callable[[str], ApprovalRequest] | None = None
    """The request for the edited text, to be shown and asked again: approving it approves exactly
    that text. Raises ValueError when the text cannot be used (empty, too long)."""


class Approver(Protocol):
    """Decides one side effect. Only a returned `True` approves; anything else, or raising, denies."""

    def __call__(self, request: ApprovalRequest, /) -> bool: ...


class BatchApprover(Protocol):
    """Decides the side effects of one model response together: the call ids it approves.

    Only ids it returns are approved; an id it does not know, or raising, approves nothing more."""

    def __call__(self, requests: Sequence[ApprovalRequest], /) -> set[str]: ...


class EventSink(Protocol):
    def __call__(self, event: CallEvent, /) -> None: ...


class CallObserver(Protocol):
    """A subscriber to the executor's lifecycle: the end of each call, then the end of each batch.

    `on_call_end` comes with every FINISHED event (the same record, and the turn's number), even
    when nothing watches the events; `on_batch_end` comes once per `run_all`, after every call of
    the batch is answered (also when it was cancelled): a subscriber that buffers (the call log
    writes a batch in one transaction) flushes there. Neither may block for long: both run on the
    event loop.
    """

    def on_call_end(self, record: CallRecord, turn: int, /) -> None: ...

    def on_batch_end(self) -> None: ...


def deny_all(request: ApprovalRequest) -> bool:
    """The default approver: no human, no side effects."""
    return False
