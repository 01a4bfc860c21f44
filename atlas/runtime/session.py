"""The sessions a run's tool calls go through, and the one way a question is answered (trace, run, record).

A `CallSession` is a run's tools, call log and channel of events, the executor its calls run through
(`attach`) and where they act: the host's calls of `atlas mcp serve` and a plan's items run through
one. A `Session` is a `CallSession` with the run's settings and model: `atlas ask` hands it its one
question (`Session.ask`, shown by what the command `Shown`), `atlas chat` each of its questions
(`Session.answer`); both go the same way, trace → run → record.

Every session's listeners come in the same order: the call log first (a call is written before
anything shows that it ended, an approved or denied side effect at once), then the tracer, then
whatever shows the session (the turn's view, the `--jsonl` stream).
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any, Protocol

from atlas.calllog import CallLog, CallLogWriter
from atlas.calllog.writer import TraceIds
from atlas.conversation.loop import TurnResult, TurnSettings, run_turn, start_turn
from atlas.dataset.source import Project
from atlas.executor.approvals import PolicyHook
from atlas.executor.executor import ToolExecutor
from atlas.executor.turn import Turn
from atlas.foundation.config import OFFLINE_MODEL, Settings
from atlas.foundation.notices import warn
from atlas.llm import Model
from atlas.mcp.offer import with_mcp_tools
from atlas.protocol.deadline import QuestionDeadline
from atlas.protocol.events import Approver, BatchApprover, CallEvent, CallRecord, Events, Listener, SessionEvent
from atlas.protocol.messages import ToolCall
from atlas.runtime.runner import run_cancellable
from atlas.tools.registry import Registry, ToolContext

if TYPE_CHECKING:
    from atlas.telemetry.tracing import QuestionTrace, Telemetry


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
    writer = None if call_log is None else CallLogWriter(call_log, session, trace_ids=trace_ids)
    return Events(*(listener for listener in (writer, traced_by, *shown_by) if listener is not None))


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


class Shown(Protocol):
    """What shows a session's one question (`atlas ask`'s screen): it hears the session's events and
    asks its approvals; it is told when the question starts (and gives the model to ask, which it
    may watch), when it fails, and its answer (and makes the exit code of it)."""

    @property
    def listeners(self) -> tuple[Listener | None, ...]: ...

    @property
    def approve(self) -> Approver: ...

    @property
    def approve_batch(self) -> BatchApprover: ...

    def started(self, question: str, session: Session, /) -> Model: ...

    def failed(self, error: BaseException, /) -> None: ...

    def answered(self, result: TurnResult, /) -> int: ...


@dataclass(kw_only=True)
class Session(CallSession):
    """A `CallSession` with the run's settings and model; `answer` answers one question."""

    settings: Settings
    project: Project
    """What its questions are told of the dataset (read when the session opened)."""
    model: Model
    call_log: CallLog
    """Every question's calls and answer are written there."""
    rule_count: int = 0
    """How many of its rules apply (the header says so)."""
    deadline: QuestionDeadline | None = None
    """The deadline of the one question `ask` answers (`atlas ask --deadline`), running since before the
    MCP servers started; None: none. `answer` does not use it: a question brings its own in its `TurnSettings`."""
    mcp_loaded: bool = True
    """False while the offline planner, which calls no MCP tool, means no server was started."""

    def use_model(self, model: Model) -> None:
        """Questions go to `model` from now on; the first model that can call MCP tools starts the servers."""
        self.model = model
        if not self.mcp_loaded and model.name != OFFLINE_MODEL:
            self.tools = with_mcp_tools(self.tools, self.settings.home)
            self.mcp_loaded = True

    def start_turn(self, number: int, settings: TurnSettings) -> Turn:
        """Question `number`'s budget and what it will read, from now."""
        return start_turn(self.executor, number, settings)

    def ask(self, question: str, settings: TurnSettings, shown: Shown) -> int:
        """A run's one question, shown by `shown`: the executor attached to what shows it, the question
        started (within the session's deadline), answered and recorded; the exit code `shown` makes of the answer."""
        self.attach(*shown.listeners, approve=shown.approve, approve_batch=shown.approve_batch)
        model = shown.started(question, self)
        try:
            result = self.answer(question, [], settings._replace(deadline=self.deadline), model=model)
        except BaseException as exc:
            shown.failed(exc)
            raise
        return shown.answered(result)

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

        `turn` (from `start_turn`) when the caller keeps it; question 1, started by the loop, when None."""
        coro = run_turn(
            question,
            history,
            model=model or self.model,
            executor=self.executor,
            session=self.id,
            turn=turn,
            settings=settings,
            events=self.channel,
            project=self.project,
        )
        with self._traced_question(question, 1 if turn is None else turn.number) as trace:
            result = run_cancellable(coro, loop)
            result = record_turn(
                self.call_log, question, result, price_in=self.settings.price_in, price_out=self.settings.price_out
            )
            if trace is not None:
                trace.finish(result)
        return result

    @property
    def project_name(self) -> str:
        """The name of the project its questions are about."""
        return self.project.name

    @property
    def read_only(self) -> bool:
        """Whether its questions are offered no side-effect tools."""
        return self.options.read_only

    @contextlib.contextmanager
    def _traced_question(self, question: str, turn: int) -> Iterator[QuestionTrace | None]:
        """The question's span around the block (nothing when telemetry is off)."""
        if self.telemetry is None:
            yield None
            return
        with self.telemetry.question(session=self.id, turn=turn, model=self.model.name, text=question) as trace:
            yield trace


def record_turn(
    call_log: CallLog | None, question: str, result: TurnResult, *, price_in: float, price_out: float
) -> TurnResult:
    """`result` with its cost (USD per million tokens in and out), after recording it (with a call
    log); never raises."""
    priced = dataclasses.replace(result, cost_usd=result.usage.cost_usd(price_in, price_out))
    if call_log is None:
        return priced
    call_log.record_turn(
        session=priced.session,
        turn=priced.turn,
        question=question,
        answer=priced.answer,
        model=priced.model,
        rounds=priced.rounds,
        input_tokens=priced.usage.input_tokens,
        output_tokens=priced.usage.output_tokens,
        cost_usd=priced.cost_usd,
        ms=priced.ms,
    )
    return priced
