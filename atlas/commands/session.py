"""What `atlas ask` and `atlas chat` share: the session's options, and the executor they build from them.

Both answer questions through the same loop on the same runtime; only what surrounds a question
differs (one answer and exit, or a prompt that comes back). Keeping the options and the executor's
wiring here means a new session setting is added once, and the two commands cannot drift apart.
"""

from __future__ import annotations

from dataclasses import dataclass

from atlas.commands.prepare import prepare_issues_db
from atlas.events import Approver, BatchApprover, EventSink
from atlas.executor.executor import ToolExecutor
from atlas.runtime import Runtime, open_runtime


@dataclass(frozen=True, kw_only=True)
class SessionOptions:
    """How a session runs its questions: which model, and how its tool calls are bounded."""

    model: str | None = None
    api: str | None = None
    read_only: bool = False
    max_rounds: int = 5
    timeout_s: float = 5.0
    concurrency: int = 4
    parallel: bool = True


def open_session(options: SessionOptions, *, deadline_s: float | None = None) -> Runtime:
    """The runtime a session's questions run on: its model, its data (built if needed), its log."""
    return open_runtime(options.model, options.api, prepare_data=prepare_issues_db, deadline_s=deadline_s)


def session_executor(
    runtime: Runtime,
    options: SessionOptions,
    *,
    approve: Approver,
    approve_batch: BatchApprover,
    on_event: EventSink | None,
    read_only: bool | None = None,
) -> ToolExecutor:
    """The executor for a session's questions; `read_only` overrides the option (chat's /read-only)."""
    return runtime.executor(
        read_only=options.read_only if read_only is None else read_only,
        timeout_s=options.timeout_s,
        concurrency=options.concurrency if options.parallel else 1,
        approve=approve,
        approve_batch=approve_batch,
        on_event=on_event,
    )
