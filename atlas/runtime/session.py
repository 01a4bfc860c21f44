"""A session: the parts a run answers with, and its one way to answer a question (trace, run, record).

`atlas ask` and `atlas chat` answer through `Session.answer`; `atlas mcp serve` and the plan runs
of `triage` and `apply` run calls through an executor on a session's channel (`session_events`).
Every session's listeners come in the same order: the call log first (a call is written before
anything shows that it ended, an approved or denied side effect at once), then the tracer, then
whatever shows the session (the turn's view, the `--jsonl` stream).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from atlas.calllog import CallLog, CallLogWriter
from atlas.calllog.writer import TraceIds
from atlas.conversation.loop import TurnResult, TurnSettings, run_turn, start_turn
from atlas.executor.approvals import PolicyHook
from atlas.executor.executor import ToolExecutor
from atlas.executor.turn import Turn
from atlas.foundation.config import OFFLINE_MODEL, Settings
from atlas.foundation.notices import warn
from atlas.llm import Model
from atlas.mcp.offer import with_mcp_tools
from atlas.protocol.events import Approver, BatchApprover, CallEvent, Events, Listener, SessionEvent
from atlas.runtime.record import record_turn
from atlas.runtime.runner import run_cancellable
from atlas.tools.registry import Registry, ToolContext

if TYPE_CHECKING:
    from atlas.telemetry.tracing import QuestionTrace, Telemetry

MIN_DEADLINE_S = 0.05
"""What a question keeps of its deadline when starting its servers took all of it: enough to answer at once."""


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


@dataclass
class Session:
    """One run's settings, tools, model, channel, executor and call log; `answer` answers one question."""

    settings: Settings
    tools: Registry
    model: Model
    call_log: CallLog
    id: str
    options: SessionOptions = field(default_factory=SessionOptions)
    policy: PolicyHook | None = None
    """The approval policy (`[[policy.rules]]`), consulted before a person is asked."""
    rule_count: int = 0
    """How many of its rules apply (the header says so)."""
    telemetry: Telemetry | None = None
    """The run's tracer when OpenTelemetry is on (`atlas.telemetry`); None when off."""
    mcp_start_s: float = 0.0
    """Seconds spent starting MCP servers before the first question (it counts against `--deadline`)."""
    mcp_loaded: bool = True
    """False while the offline planner, which calls no MCP tool, means no server was started."""
    attached: ToolExecutor | None = None
    """Set by `attach`: the executor every question's calls run through."""

    def __post_init__(self) -> None:
        self.channel = session_events(self.call_log, self.id, traced_by=self._call_spans(), trace_ids=self.trace_ids)
        """The session's one channel: the call log, the tracer, then what `show` adds."""

    def attach(
        self,
        *shown_by: Listener | None,
        approve: Approver,
        approve_batch: BatchApprover,
        read_only: bool | None = None,
    ) -> ToolExecutor:
        """The executor for the session's questions, asking `approve`; `read_only` overrides the option.

        `shown_by` hear the session's events after the call log and the tracer."""
        for listener in shown_by:
            if listener is not None:
                self.channel.subscribe(listener)
        options = self.options
        context = ToolContext(
            data=self.settings.data, home=self.settings.home, session=self.id, tracker=self.settings.tracker
        )
        self.attached = ToolExecutor(
            self.registry(read_only=options.read_only if read_only is None else read_only),
            timeout_s=options.timeout_s,
            approve=approve,
            approve_batch=approve_batch,
            max_concurrency=options.concurrency if options.parallel else 1,
            events=self.channel,
            session=self.id,
            context=context,
            policy=self.policy,
        )
        return self.attached

    def set_read_only(self, read_only: bool) -> None:
        """Side-effect tools offered (False) or not (True) from the next question on; the rest stays."""
        self.attached = self.executor.with_registry(self.registry(read_only=read_only))

    def use_model(self, model: Model) -> None:
        """Questions go to `model` from now on; the first model that can call MCP tools starts the servers."""
        self.model = model
        if not self.mcp_loaded and model.name != OFFLINE_MODEL:
            self.tools = with_mcp_tools(self.tools, self.settings.home)
            self.mcp_loaded = True

    def registry(self, *, read_only: bool) -> Registry:
        return self.tools.read_only() if read_only else self.tools

    def start_turn(self, number: int, settings: TurnSettings) -> Turn:
        """Question `number`'s budget and what it will read, from now: its `--deadline` less what
        starting the MCP servers took (the option bounds it all)."""
        seconds = settings.deadline_s
        if seconds is not None and self.mcp_start_s:
            settings = dataclasses.replace(settings, deadline_s=max(MIN_DEADLINE_S, seconds - self.mcp_start_s))
        return start_turn(self.executor, number, settings)

    def answer(
        self,
        question: str,
        history: list[dict[str, Any]],
        settings: TurnSettings,
        *,
        turn: Turn | None = None,
        model: Model | None = None,
        loop: asyncio.AbstractEventLoop | None = None,
    ) -> TurnResult:
        """Answer `question` in its span: run the turn (Ctrl-C cancels it), then price and record it.

        `turn` (from `start_turn`) when the caller keeps it; question 1, started now, when None."""
        turn = turn if turn is not None else self.start_turn(1, settings)
        coro = run_turn(
            question,
            history,
            model=model or self.model,
            executor=self.executor,
            session=self.id,
            turn=turn,
            settings=settings,
            events=self.channel,
        )
        with self._traced_question(question, turn.number) as trace:
            result = run_cancellable(coro, loop)
            result = record_turn(
                self.call_log, question, result, price_in=self.settings.price_in, price_out=self.settings.price_out
            )
            if trace is not None:
                trace.finish(result)
        return result

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

    @contextlib.contextmanager
    def _traced_question(self, question: str, turn: int) -> Iterator[QuestionTrace | None]:
        """The question's span around the block (nothing when telemetry is off)."""
        if self.telemetry is None:
            yield None
            return
        with self.telemetry.question(session=self.id, turn=turn, model=self.model.name, text=question) as trace:
            yield trace
