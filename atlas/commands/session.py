"""What the commands that run tool calls share: the session's options, its channel of events, its executor.

`atlas ask` and `atlas chat` answer questions through the same loop on the same runtime; only what
surrounds a question differs (one answer and exit, or a prompt that comes back). `atlas mcp serve`
and the plan runs of `triage` and `apply` drive an executor of their own. All of them build the
session's one channel here (`session_events`), so every session's listeners come in the same order:
the call log first (a call is written before anything shows that it ended, an approved or denied
side effect at once), then the tracer, then whatever shows the session (the turn's view, the
`--jsonl` stream). A new session setting or listener is added once, and the commands cannot drift
apart.
"""

from __future__ import annotations

from dataclasses import dataclass

from atlas.calllog import CallLog, CallLogWriter
from atlas.calllog.writer import TraceIds
from atlas.commands.prepare import prepare_issues_db
from atlas.executor.executor import ToolExecutor
from atlas.protocol.events import Approver, BatchApprover, Events, Listener
from atlas.runtime.kit import Runtime, open_runtime


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


def session_events(
    call_log: CallLog | None,
    session: str,
    *shown_by: Listener | None,
    traced_by: Listener | None = None,
    trace_ids: TraceIds | None = None,
) -> Events:
    """The session's channel: its call log (none: nothing is logged), its tracer, then what shows it."""
    events = Events()
    if call_log is not None:
        events.subscribe(CallLogWriter(call_log, session, trace_ids=trace_ids))
    for listener in (traced_by, *shown_by):
        if listener is not None:
            events.subscribe(listener)
    return events


def runtime_events(runtime: Runtime, *shown_by: Listener | None) -> Events:
    """The channel of a session on `runtime`: its call log, its tracer when telemetry is on, then `shown_by`."""
    return session_events(
        runtime.call_log, runtime.session, *shown_by, traced_by=runtime.call_spans(), trace_ids=runtime.trace_ids
    )


def session_executor(
    runtime: Runtime,
    options: SessionOptions,
    *,
    approve: Approver,
    approve_batch: BatchApprover,
    events: Events,
    read_only: bool | None = None,
) -> ToolExecutor:
    """The executor for a session's questions; `read_only` overrides the option (chat's /read-only)."""
    return runtime.executor(
        read_only=options.read_only if read_only is None else read_only,
        timeout_s=options.timeout_s,
        concurrency=options.concurrency if options.parallel else 1,
        approve=approve,
        approve_batch=approve_batch,
        events=events,
    )
