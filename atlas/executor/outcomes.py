"""How a call ends, before it becomes an envelope: the outcomes the executor's steps return, and a call's progress."""

from __future__ import annotations

import dataclasses
import json
import time
from dataclasses import dataclass, field
from typing import Any, Protocol

from atlas.foundation.errors import ErrorKind, ToolError
from atlas.protocol.envelope import envelope_err


class CallLike(Protocol):
    """A tool call: the SDK's function_call item and `messages.ToolCall` alike."""

    @property
    def name(self) -> str: ...
    @property
    def arguments(self) -> str: ...
    @property
    def call_id(self) -> str: ...


@dataclass
class Outcome:
    kind: ErrorKind
    envelope: dict[str, Any]
    message: str | None = None
    rendered: tuple[int, str] | None = None
    """(output limit, the envelope as the model reads it) once serialised: shared outcomes keep it."""
    failure: ToolError | None = None
    """The tool error the call ended in, when it was one: its fields (`tool`, `timeout_s`) beside the text."""
    side_effect_done: bool | str | None = None
    """Set when the step that made the outcome knows: "unknown" for a write left running."""


@dataclass
class CallState:
    """One call's progress through the executor."""

    call: CallLike
    round: int
    position: int
    attempts: int = 0
    approved: bool | None = None
    decided_by: str | None = None
    """Who approved or denied it (a side effect): `person`, `rule:NAME`, `session`, `no-terminal`."""
    edited: tuple[object, dict[str, Any]] | None = None
    """The arguments of the last edit shown to the person: what runs if they approve."""
    clock: float = field(default_factory=time.monotonic)
    output: dict[str, Any] | None = None
    parsed: dict[str, Any] | Outcome = field(init=False)
    """The arguments as an object, or the bad_args outcome when they are not one."""
    arguments: dict[str, Any] | str = field(init=False)
    """The arguments as an object when they parse to one, else the raw text (for events and the log)."""

    def __post_init__(self) -> None:
        self.parsed = parse_arguments(self.call.arguments)
        self.arguments = self.call.arguments if isinstance(self.parsed, Outcome) else self.parsed

    def restart_clock(self) -> None:
        self.clock = time.monotonic()


def error(
    kind: ErrorKind,
    message: str,
    *,
    hint: str | None = None,
    retryable: bool | None = None,
    failure: ToolError | None = None,
) -> Outcome:
    envelope = envelope_err(kind, message, hint=hint, retryable=retryable)
    return Outcome(kind, envelope, envelope["error"]["message"], failure=failure)


def side_effect_unsettled(kind: ErrorKind, message: str, failure: ToolError | None = None) -> Outcome:
    """A side effect whose thread was left running (timed out, or Ctrl-C): the write may still land.

    Never retryable, so the model does not ask for it again (a second prompt, maybe a second write).
    """
    outcome = error(
        kind,
        f"{message}: it may have taken effect",
        hint=(
            "This action was left running and may have been done. Do not retry it; tell the user to "
            "check whether it happened."
        ),
        retryable=False,
        failure=failure,
    )
    outcome.side_effect_done = UNKNOWN_DONE
    return outcome


UNKNOWN_DONE = "unknown"
UNCERTAIN_KINDS = frozenset({ErrorKind.TIMEOUT, ErrorKind.UNAVAILABLE, ErrorKind.UNKNOWN})
"""A write that ran and ended so may have landed: no answer in time, the source gone mid-call, a bug."""


def side_effect_done(outcome: Outcome, attempts: int) -> bool | str:
    """Whether a side effect happened: True, False, or "unknown" (a timeout, a dropped connection).

    A call never attempted (denied, refused by its check, no time left) did nothing, and one whose
    check found nothing to change (`changed: false`) did nothing either.
    """
    if outcome.side_effect_done is not None:
        return outcome.side_effect_done
    if attempts == 0:
        return False
    if outcome.kind is ErrorKind.OK:
        data = outcome.envelope.get("data")
        return not (isinstance(data, dict) and data.get("changed") is False)
    if outcome.kind in UNCERTAIN_KINDS or getattr(outcome.failure, "maybe_done", False):
        return UNKNOWN_DONE
    return False


def with_side_effect_done(outcome: Outcome, attempts: int) -> Outcome:
    """The outcome with `side_effect_done` in its envelope (a copy: shared outcomes stay as they are)."""
    envelope = {**outcome.envelope, "side_effect_done": side_effect_done(outcome, attempts)}
    return dataclasses.replace(outcome, envelope=envelope, rendered=None)


def cancelled() -> Outcome:
    return error(ErrorKind.CANCELLED, "cancelled by the user")


NO_TIME_BUDGET = error(ErrorKind.NO_TIME_BUDGET, "too little of the question's time budget was left to start this call")
"""One outcome (and one serialised output, see `ToolExecutor._finish`) shared by every call the budget leaves out."""


def unavailable(name: str) -> Outcome:
    return error(ErrorKind.UNAVAILABLE, f"{name} is switched off after repeated failures; it will be tried again later")


def parse_arguments(text: str) -> dict[str, Any] | Outcome:
    try:
        value = json.loads(text) if text.strip() else {}
    except (ValueError, TypeError, AttributeError) as exc:
        return error(ErrorKind.BAD_ARGS, f"arguments are not valid JSON: {exc}")
    except RecursionError:  # valid JSON nested deeper than any parser here follows
        return error(ErrorKind.BAD_ARGS, "arguments are nested too deeply to read")
    if not isinstance(value, dict):
        return error(ErrorKind.BAD_ARGS, f"arguments must be a JSON object, got {type(value).__name__}")
    return value
