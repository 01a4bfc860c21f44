"""What happens in a session, as events on one channel; the record of a finished call; what an approver is asked.

Producers (the model adapters, the loop, the executor) tell one `Events` channel what happens:
the model's waits (`Asking`, `Retrying`, `Answering`) and its text (`TextDelta`), a round of
tool calls starting (`RoundStarted`), each phase of each call (`CallEvent`) and the end of each
batch (`BatchEnded`). Listeners (the live rows of the UI, the `--jsonl` stream, the call log,
the tracer) subscribe to the channel and pick out what they need by type; producers never
import a listener. A listener that needs only what ends (the call log: FINISHED calls and the
end of each batch) says so with `ends_only = True`, so that producers skip building the steps
in between when nobody else follows them.
"""

from __future__ import annotations

import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, NamedTuple, Protocol

from atlas.foundation.errors import ErrorKind


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
    decided_by: str | None = None
    """Who approved or denied a side effect: `person`, `rule:NAME`, `session` (an exact action a
    person allowed for the session), `no-terminal` (nobody could be asked) or `cancelled`."""
    trace_id: str | None = None
    span_id: str | None = None
    """The call's OpenTelemetry span (32 and 16 hex digits) when telemetry is on: a log row leads to its trace."""


class CallEvent(NamedTuple):
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
    decided_by: str | None = None
    """On APPROVED and DENIED: who decided (`person`, `rule:NAME`, `session`, `no-terminal`)."""
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
    note: str = ""
    """Why a person is asked although a rule matched (a guard, a rule at its maximum)."""
    scopes: tuple[tuple[str, str], ...] = ()
    """What may be offered besides y/N, with what each allows: `session` (this exact action for the
    rest of the session), `project` (actions like this one, as a rule in the project's config)."""
    grant: Callable[[str, ApprovalRequest], str] | None = None
    """Grants a scope for this request (as shown); returns what was granted, for the person."""
    decided_by: list[str] = field(default_factory=list)
    """Filled by the approver: who decided (`person`, `no-terminal`, `cancelled`)."""


class Approver(Protocol):
    """Decides one side effect. Only a returned `True` approves; anything else, or raising, denies."""

    def __call__(self, request: ApprovalRequest, /) -> bool: ...


class BatchApprover(Protocol):
    """Decides the side effects of one model response together: the call ids it approves.

    Only ids it returns are approved; an id it does not know, or raising, approves nothing more."""

    def __call__(self, requests: Sequence[ApprovalRequest], /) -> set[str]: ...


def deny_all(request: ApprovalRequest) -> bool:
    """The default approver: no human, no side effects."""
    return False


@dataclass(frozen=True)
class Asking:
    """A request to the model has been sent (`attempt` 1 is the first) and nothing has come back yet."""

    model: str
    attempt: int
    since: float = field(default_factory=time.monotonic)


class Retrying(NamedTuple):
    """The last attempt failed for `reason`; the next one starts in `delay_s` seconds."""

    delay_s: float
    reason: str
    attempt: int


class Answering(NamedTuple):
    """The model's response has begun (or the request has ended): nothing to wait for any more."""


WaitEvent = Asking | Retrying | Answering
"""The wait for one model request, as `atlas.llm.wait` reports it."""


class TextDelta(NamedTuple):
    """A piece of the model's reply, as it streams (a model that does not stream sends it all at once)."""

    text: str


class RoundStarted(NamedTuple):
    """The model asked for tools: round `number` of the question's tool calls begins."""

    number: int


class BatchEnded(NamedTuple):
    """Every call of one `run_all` is answered (also when it was cancelled), in question `turn`."""

    turn: int


SessionEvent = CallEvent | BatchEnded | RoundStarted | TextDelta | Asking | Retrying | Answering


class Listener(Protocol):
    """Takes each event of a session; it ignores those it does not need and must not block for long
    (events of tool calls come on the event loop, and from the worker thread that asks for approval)."""

    def __call__(self, event: SessionEvent, /) -> None: ...


class Events:
    """A session's one channel: each event goes to every listener, in the order they subscribed.

    A listener that raises costs only itself that event: a broken display or log must never break
    a tool call or a model request. The channel is itself a listener, so one can feed another.
    """

    __slots__ = ("_listeners", "following", "listening")

    def __init__(self, *listeners: Listener) -> None:
        self._listeners: tuple[Listener, ...] = ()
        self.listening = False
        """Someone listens: worth building an event that ends something (a FINISHED call, a batch).
        Kept by `subscribe`; a plain attribute, as producers read it for every call of a batch."""
        self.following = False
        """Someone follows every step, not only what ends: worth building the events in between."""
        for listener in listeners:
            self.subscribe(listener)

    @classmethod
    def of(cls, listener: Listener | None) -> Events:
        """`listener` as a channel: itself when it is one, a channel of none for None."""
        if isinstance(listener, Events):
            return listener
        return cls() if listener is None else cls(listener)

    def subscribe(self, listener: Listener) -> None:
        """`listener` hears every event from now on, after those that subscribed before it."""
        # A new tuple, not an append: a thread emitting meanwhile goes on with the listeners it had.
        self._listeners = (*self._listeners, listener)
        self.listening = True
        self.following = self.following or not getattr(listener, "ends_only", False)

    @property
    def ends_only(self) -> bool:
        """Subscribed to another channel, this one needs the steps in between only if one of its own
        listeners does (as it stands then: the other reads this once, when it subscribes it)."""
        return not self.following

    def __call__(self, event: SessionEvent, /) -> None:
        for listener in self._listeners:
            try:
                listener(event)
            except Exception:  # a broken display or log must never break a call or a model request
                continue
