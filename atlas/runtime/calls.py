"""A run's tool calls: their channel (the call log, the tracer, whatever shows them), the executor
they run through, and where they act. Every way Atlas runs a tool call is a `CallSession`: the
`Session` a question is answered through, the host's calls of `atlas mcp serve`, a plan's items.

Every session's listeners come in the same order: the call log first (a call is written before
anything shows that it ended, an approved or denied side effect at once), then the tracer, then
whatever shows the session (the turn's view, the `--jsonl` stream).
"""

from __future__ import annotations

import asyncio
from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from atlas.calllog import CallLog, CallLogWriter
from atlas.calllog.writer import TraceIds
from atlas.executor.approvals import PolicyHook
from atlas.executor.executor import ToolExecutor
from atlas.foundation.notices import warn
from atlas.protocol.events import Approver, BatchApprover, CallEvent, CallRecord, Events, Listener, SessionEvent
from atlas.protocol.messages import ToolCall
from atlas.tools.registry import Registry, ToolContext

if TYPE_CHECKING:
    from atlas.telemetry.tracing import Telemetry


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


def session_events(
    call_log: CallLog | None,
    session: str,
    *shown_by: Listener | None,
    traced_by: Listener | None = None,
    trace_ids: TraceIds | None = None,
) -> Events:
    """A session's channel: its call log (none: nothing is logged), its tracer, then what shows it."""
    events = Events()
    if call_log is not None:
        events.subscribe(CallLogWriter(call_log, session, trace_ids=trace_ids))
    for listener in (traced_by, *shown_by):
        if listener is not None:
            events.subscribe(listener)
    return events


@dataclass(kw_only=True)
class CallSession:
    """One run's tools, call log and channel; `attach` gives it the executor its calls run through."""

    tools: Registry
    call_log: CallLog | None
    """None: nothing is logged."""
    id: str
    context: ToolContext
    """Where the calls read and write (the dataset, the state folder, the tracker) and their limits."""
    options: SessionOptions = field(default_factory=SessionOptions)
    policy: PolicyHook | None = None
    """The approval policy (`[[policy.rules]]`), consulted before a person is asked."""
    telemetry: Telemetry | None = None
    """The run's tracer when OpenTelemetry is on (`atlas.telemetry`); None when off."""
    attached: ToolExecutor | None = None
    """Set by `attach`: the executor every call runs through."""

    def __post_init__(self) -> None:
        self.channel = session_events(self.call_log, self.id, traced_by=self._call_spans(), trace_ids=self.trace_ids)
        """The session's one channel: the call log, the tracer, then what `attach` adds."""

    def attach(
        self,
        *shown_by: Listener | None,
        approve: Approver,
        approve_batch: BatchApprover | None = None,
        read_only: bool | None = None,
    ) -> ToolExecutor:
        """The executor for the session's calls, asking `approve`; `read_only` overrides the option.

        `shown_by` hear the session's events after the call log and the tracer."""
        for listener in shown_by:
            if listener is not None:
                self.channel.subscribe(listener)
        options = self.options
        self.attached = ToolExecutor(
            self.registry(read_only=options.read_only if read_only is None else read_only),
            timeout_s=options.timeout_s,
            approve=approve,
            approve_batch=approve_batch,
            max_concurrency=options.concurrency if options.parallel else 1,
            events=self.channel,
            session=self.id,
            context=self.context,
            policy=self.policy,
        )
        return self.attached

    def run_calls(self, calls: Sequence[ToolCall]) -> tuple[list[dict[str, Any]], dict[str, CallRecord]]:
        """`calls` run together on a loop of their own: each one's output, in order, and its record by call id."""
        outputs = asyncio.run(self.executor.run_all(list(calls)))
        return outputs, {record.call_id: record for record in self.executor.log}

    async def run_call(self, call: ToolCall) -> dict[str, Any]:
        """One call on the caller's loop (an MCP host's): its output."""
        return await self.executor.run_one(call)

    def registry(self, *, read_only: bool) -> Registry:
        return self.tools.read_only() if read_only else self.tools

    def set_read_only(self, read_only: bool) -> None:
        """Side-effect tools offered (False) or not (True) from the next call on; the rest stays."""
        self.attached = self.executor.with_registry(self.registry(read_only=read_only))

    def trace_ids(self, call_id: str) -> tuple[str, str] | None:
        """The trace and span ids of a call of the current question, when telemetry traces it."""
        return None if self.telemetry is None else self.telemetry.ids_for(call_id)

    def close(self) -> None:
        """The end of the run: spans still queued leave (bounded wait), a loss is one warning; the
        call log's connection is closed, so its -wal and -shm files go as they would at exit."""
        if self.telemetry is not None:
            problem = self.telemetry.close()
            self.telemetry = None
            if problem is not None:
                warn(f"{problem}")
        if self.call_log is not None:
            self.call_log.close()

    @property
    def executor(self) -> ToolExecutor:
        """The attached executor (`attach` first)."""
        if self.attached is None:
            raise RuntimeError("the session has no executor: attach one first")
        return self.attached

    def _call_spans(self) -> Listener | None:
        """The tracer as a listener: each call's events as its spans (None when telemetry is off)."""
        telemetry = self.telemetry
        if telemetry is None:
            return None

        def traced(event: SessionEvent) -> None:
            if isinstance(event, CallEvent):
                telemetry.on_call_event(event)

        return traced
