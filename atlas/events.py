"""Events the executor emits for each phase of each call, and what an approver is asked.

The UI subscribes to these; the executor and the loop never import the UI.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Any, Protocol


class Phase(StrEnum):
    QUEUED = "queued"
    AWAITING_APPROVAL = "awaiting_approval"
    APPROVED = "approved"
    DENIED = "denied"
    STARTED = "started"
    RETRYING = "retrying"
    FINISHED = "finished"


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
    kind: str | None = None
    ms: float | None = None
    attempts: int = 0
    message: str | None = None
    leaked_threads: int = 0


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


def deny_all(request: ApprovalRequest) -> bool:
    """The default approver: no human, no side effects."""
    return False
