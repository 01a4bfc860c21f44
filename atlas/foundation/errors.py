"""Error kinds the model can act on, their hints, `classify`, and Atlas's own exception tree.

Tool failures are *classified*, never raised past the executor: every call ends in one
`ErrorKind` and one JSON envelope (`atlas.protocol.envelope`). Failures of Atlas itself (model, data, configuration)
are `AtlasError`s, caught once in the CLI and shown as one line::

    AtlasError
    ├── ConfigError            bad settings or environment (exit 2)
    │   └── PinError           an MCP server's pinned tools changed (`atlas.mcp.pins`)
    ├── DataError              a dataset cannot be read or built
    ├── CallLogError           the call log cannot be opened or written (`atlas.calllog.store`)
    ├── TriageConfigError      a project's triage settings are malformed (`atlas.triage.settings`)
    ├── UnknownIssueError      triage was asked about an issue the dataset lacks (`atlas.triage.project`)
    ├── PlanError              a saved triage plan is malformed, edited or another project's
    ├── ScriptError            a replay script is malformed or ran out
    └── ModelError             the model could not produce a turn
        ├── ModelAuthError     no key, or the key was refused (401/403)
        ├── ModelNotFoundError the model name does not exist (404)
        ├── RateLimitedError   429 after the SDK's own retries
        ├── ModelConnectionError   refused, dropped or timed out (names the base URL)
        └── ModelProtocolError     a stream that broke its contract (truncated, malformed, failed)

    ToolError                  raised by tools; the executor classifies them
    ├── TransientToolError     try again later (busy database, dropped connection)
    ├── PermanentToolError     the same call will fail again
    │   └── RefusedStateFile   a state file was linked or foreign (`atlas.tracker.journal`)
    ├── UnavailableToolError   the source is down (an MCP server that crashed or will not start)
    │   └── ServerExited       the MCP server's process ended (`atlas.mcp.host`)
    ├── ProtocolToolError      the source answered outside its protocol (an MCP error response)
    └── ToolTimeoutError       the executor's own: the call did not return within its timeout

Outside the tree, on purpose: `BadArguments` (a `ValueError`: a tool call's arguments did not
validate, which the executor answers `bad_args` before the tool runs), `GitHubError` and its kin
(`atlas.github.errors`: HTTP outcomes the REST client's callers translate into the two trees
above), `UnsafeStateFile` (an `OSError`, as the refusal of a path is), and `BatchCancelled` (a
`CancelledError`, so asyncio treats it as one).

As in httpx, the exceptions carry what a program may act on as fields, not only in their text:
a `ModelError` its `model`, `url`, HTTP `status` and `retry_after` (seconds) where known; a
`ToolError` its `tool` (set by the executor when the tool did not) and, for a timeout, `timeout_s`.
"""

from __future__ import annotations

import sqlite3
import sys
from enum import StrEnum
from typing import Any

MESSAGE_LIMIT = 300


class ErrorKind(StrEnum):
    """How a tool call ended; every kind but OK comes with a hint for the model."""

    OK = "ok"
    TIMEOUT = "timeout"
    TRANSIENT = "transient"
    PERMANENT = "permanent"
    DENIED = "denied"
    UNKNOWN_TOOL = "unknown_tool"
    BAD_ARGS = "bad_args"
    UNAVAILABLE = "unavailable"
    CANCELLED = "cancelled"
    NO_TIME_BUDGET = "no_time_budget"
    PROTOCOL = "protocol"
    UNKNOWN = "unknown"


WITHOUT_HINT = frozenset({ErrorKind.OK})
"""The kinds that come with no hint: a call that succeeded needs no advice."""

HINTS: dict[ErrorKind, str] = {
    ErrorKind.TIMEOUT: (
        "The source did not answer in time. Tell the user this check timed out; "
        "do not substitute other information for it."
    ),
    ErrorKind.TRANSIENT: (
        "The source failed temporarily and retries did not help. Tell the user it could not be "
        "checked right now; do not guess its content."
    ),
    ErrorKind.PERMANENT: (
        "This exact call will fail again. Fix the arguments (use ids the user gave) or tell the user."
    ),
    ErrorKind.DENIED: ("The user did not approve this action. Do not retry it; tell the user it was not done."),
    ErrorKind.UNKNOWN_TOOL: "No tool has this name. Use only the tools you were given.",
    ErrorKind.BAD_ARGS: ("The arguments did not validate against the tool's schema. Correct them and call again once."),
    ErrorKind.UNAVAILABLE: (
        "This source is failing repeatedly and is switched off for now. Tell the user it could not be "
        "checked; do not substitute other information."
    ),
    ErrorKind.CANCELLED: "The user cancelled this call. Do not retry it unless the user asks.",
    ErrorKind.NO_TIME_BUDGET: (
        "Too little of the question's time budget was left to start this call. Tell the user it was "
        "not checked for lack of time."
    ),
    ErrorKind.PROTOCOL: (
        "The tool's server answered with a protocol error instead of a result. Do not retry the same "
        "call; tell the user this check failed and quote the error."
    ),
    ErrorKind.UNKNOWN: "An internal error occurred in this tool. Tell the user this check failed.",
}
"""The model's advice per kind: every kind but those in WITHOUT_HINT has one (a test checks)."""

SOURCE_BROKEN_HINT = (
    "The source itself cannot be read, whatever the arguments. Tell the user this check failed and why; "
    "do not substitute other information for it."
)
"""For a permanent failure that is no fault of the arguments (a missing dataset or docs folder)."""

RETRYABLE_KINDS = frozenset({ErrorKind.TIMEOUT, ErrorKind.TRANSIENT})


class BadArguments(ValueError):
    """A tool call's arguments did not validate: the message names each field and what is wrong with it."""


class ToolError(Exception):
    """Base for errors that tools raise on purpose; `hint` replaces the kind's hint for the model."""

    def __init__(
        self, message: str, *, hint: str | None = None, tool: str | None = None, maybe_done: bool = False
    ) -> None:
        super().__init__(message)
        self.hint = hint
        self.tool = tool
        """The tool that failed; the executor names it when the tool did not."""
        self.maybe_done = maybe_done
        """For a side effect: the request may have reached the source (a dropped connection after sending)."""


class TransientToolError(ToolError):
    """The same call may succeed later: a busy database, a dropped connection."""


class PermanentToolError(ToolError):
    """The same call will fail again: no such issue, bad doc id."""


class UnavailableToolError(ToolError):
    """The source is down: an MCP server that crashed, exited or could not be started."""


class ProtocolToolError(ToolError):
    """The source broke its protocol: an MCP error response, or a reply that is not one."""


class ToolTimeoutError(ToolError):
    """A call that did not return within its timeout; the executor records it, no tool raises it."""

    def __init__(self, message: str, *, tool: str, timeout_s: float, hint: str | None = None) -> None:
        super().__init__(message, hint=hint, tool=tool)
        self.timeout_s = timeout_s
        """The time the attempt was given, in seconds."""


class AtlasError(Exception):
    """A failure of Atlas itself, shown to the user as one line."""

    exit_code = 1


class ConfigError(AtlasError):
    exit_code = 2


class DataError(AtlasError):
    pass


class ScriptError(AtlasError):
    pass


class ModelError(AtlasError):
    """The model could not produce a turn; the fields say where and why, as far as the wire told."""

    def __init__(
        self,
        message: str,
        *,
        model: str | None = None,
        url: str | None = None,
        status: int | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.model = model
        """The model asked for, when one was."""
        self.url = url
        """The base URL the request went to."""
        self.status = status
        """The HTTP status of the refusal; None when no response came (or the stream broke later)."""
        self.retry_after = retry_after
        """Seconds the server asked to wait before trying again (`Retry-After`), when it said."""


class ModelAuthError(ModelError):
    pass


class ModelNotFoundError(ModelError):
    pass


class RateLimitedError(ModelError):
    pass


class ModelConnectionError(ModelError):
    pass


class ModelProtocolError(ModelError):
    pass


_KINDS: tuple[tuple[type[BaseException] | tuple[type[BaseException], ...], ErrorKind], ...] = (
    (BadArguments, ErrorKind.BAD_ARGS),
    (TransientToolError, ErrorKind.TRANSIENT),
    (PermanentToolError, ErrorKind.PERMANENT),
    (UnavailableToolError, ErrorKind.UNAVAILABLE),
    (ProtocolToolError, ErrorKind.PROTOCOL),
    ((ToolTimeoutError, TimeoutError), ErrorKind.TIMEOUT),
    (sqlite3.Error, ErrorKind.PERMANENT),  # a corrupt or foreign file stays so
    (ConnectionError, ErrorKind.TRANSIENT),
    ((LookupError, ValueError, FileNotFoundError, PermissionError), ErrorKind.PERMANENT),
)


def classify(exc: BaseException) -> ErrorKind:
    """Map an exception raised while running a tool to the kind the model can act on.

    Order matters (`_KINDS`, first match): `BadArguments` and pydantic's ValidationError (judged
    before `_KINDS`) are ValueErrors, a TimeoutError is an OSError, and sqlite3.OperationalError
    covers both "database is locked" and real SQL errors.
    """
    if isinstance(exc, sqlite3.OperationalError):
        return ErrorKind.TRANSIENT if is_busy(exc) else ErrorKind.PERMANENT
    if _is_validation_error(exc):
        return ErrorKind.BAD_ARGS
    return next((kind for types, kind in _KINDS if isinstance(exc, types)), ErrorKind.UNKNOWN)


def _is_validation_error(exc: BaseException) -> bool:
    """Whether `exc` is pydantic's ValidationError, without importing pydantic: a process that has not
    loaded it cannot have raised one."""
    core = sys.modules.get("pydantic_core")
    return core is not None and isinstance(exc, core.ValidationError)


def is_busy(exc: BaseException) -> bool:
    """SQLite's "database is locked" or "busy": another connection holds the lock, so a retry may pass."""
    if not isinstance(exc, sqlite3.OperationalError):
        return False
    text = str(exc).lower()
    return "locked" in text or "busy" in text


def cap(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """Cut text to `limit` characters with a visible ellipsis."""
    return text if len(text) <= limit else text[: limit - 1] + "…"


def describe(exc: BaseException) -> str:
    """A short message for an exception: its text, or its type when it has none."""
    if _is_validation_error(exc):
        errors: list[dict[str, Any]] = exc.errors()  # type: ignore[attr-defined]
        parts = [f"{'.'.join(str(p) for p in err['loc']) or 'arguments'}: {err['msg']}" for err in errors]
        return cap("; ".join(parts))
    text = str(exc).strip() or type(exc).__name__
    if isinstance(exc, KeyError) and text.startswith(("'", '"')):
        text = text[1:-1]
    return cap(text)
