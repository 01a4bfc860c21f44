"""Spans for one run: a question, its model requests and its tool calls, exported over OTLP/HTTP.

Imported only when telemetry is on (`atlas.telemetry.settings`): it needs the OpenTelemetry SDK
(the `otel` extra). Spans are parented explicitly (tool attempts run in threads, where a context
variable would not follow), so a question's span holds every model request and tool call of it,
and an MCP call is a child of its `execute_tool` span. Export happens in the SDK's background
thread, never on the answer's path; `close` waits for what is left only as long as the endpoint
is worth waiting for (`reach.py`: not at all when nothing listens there, never past `SHUTDOWN_S`),
and says so in one line instead of the SDK's tracebacks.
"""

from __future__ import annotations

import json
import logging
import threading
from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from opentelemetry import trace
from opentelemetry.sdk.resources import Resource
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import BatchSpanProcessor, SpanExporter, SpanExportResult
from opentelemetry.trace import Span, SpanKind, Status, StatusCode

from atlas import __version__
from atlas.foundation.errors import ErrorKind
from atlas.foundation.sanitize import clean_line
from atlas.protocol.events import CallEvent, Phase
from atlas.telemetry import attributes as attr
from atlas.telemetry.reach import SHUTDOWN_S, Reach, Reachability
from atlas.telemetry.settings import TelemetrySettings

if TYPE_CHECKING:
    from opentelemetry.sdk.trace import ReadableSpan

    from atlas.conversation.loop import TurnResult

EXPORT_TIMEOUT_S = 5.0
"""How long one export may take in the background (the exporter's own limit)."""
_EXPORTER_LOGGERS = ("opentelemetry.exporter.otlp.proto.http", "opentelemetry.sdk", "opentelemetry.exporter")


@dataclass(frozen=True)
class ToolSource:
    """Where a tool runs: `builtin`, a plugin module, or `mcp:NAME` (with the server's own tool name)."""

    source: str
    side_effect: bool = False
    mcp_server: str | None = None
    mcp_tool: str | None = None


class WatchedExporter(SpanExporter):
    """The real exporter, remembering whether an export failed, so `close` can say so once."""

    def __init__(self, inner: SpanExporter, reach: Reach | None = None) -> None:
        self.inner = inner
        self.reach = reach
        self.failures = 0
        self.exported = 0

    def export(self, spans: Sequence[ReadableSpan]) -> SpanExportResult:
        try:
            result = self.inner.export(spans)
        except Exception:  # the SDK would log a traceback; one count is what a person needs
            result = SpanExportResult.FAILURE
        if result is SpanExportResult.SUCCESS:
            self.exported += len(spans)
        else:
            self.failures += 1
        if self.reach is not None:
            self.reach.note_export(result is SpanExportResult.SUCCESS)
        return result

    def shutdown(self) -> None:
        self.inner.shutdown()

    def force_flush(self, timeout_millis: int = 30000) -> bool:
        return self.inner.force_flush(timeout_millis)


class _LastMessage(logging.Handler):
    """Keeps the exporter's last complaint (a refused request says why) instead of printing it."""

    def __init__(self) -> None:
        super().__init__(logging.WARNING)
        self.message: str | None = None

    def emit(self, record: logging.LogRecord) -> None:
        self.message = record.getMessage().splitlines()[0][:200] if record.getMessage() else None


def otlp_exporter(settings: TelemetrySettings, reach: Reach) -> SpanExporter:
    """The SDK's OTLP/HTTP exporter; its HTTP session makes the endpoint's first contact (`reach.py`)."""
    import requests
    from opentelemetry.exporter.otlp.proto.http.trace_exporter import OTLPSpanExporter

    session = requests.Session()
    assert settings.endpoint is not None
    reach.contact(session, settings.endpoint, settings.headers)
    return OTLPSpanExporter(
        endpoint=settings.endpoint, headers=dict(settings.headers), timeout=EXPORT_TIMEOUT_S, session=session
    )


@dataclass
class _Question:
    span: Span
    rounds: int = 0
    tools: dict[str, Span] = field(default_factory=dict)
    mcp: dict[str, Span] = field(default_factory=dict)
    ids: dict[str, tuple[str, str]] = field(default_factory=dict)


class Telemetry:
    """The tracer of one run; every method is safe to call from the loop and from tool threads."""

    def __init__(
        self,
        settings: TelemetrySettings,
        *,
        exporter: SpanExporter | None = None,
        tool_source: Callable[[str], ToolSource] | None = None,
    ) -> None:
        self.settings = settings
        # An exporter handed in (a test's, in memory) has no endpoint to reach: it is taken as listening.
        self.reach = Reach(Reachability.UNKNOWN if exporter is None else Reachability.LISTENING)
        self.exporter = WatchedExporter(exporter or otlp_exporter(settings, self.reach), self.reach)
        resource = Resource.create({"service.name": settings.service_name, "service.version": __version__})
        self.provider = TracerProvider(resource=resource, shutdown_on_exit=False)
        self.provider.add_span_processor(BatchSpanProcessor(self.exporter))
        self.tracer = self.provider.get_tracer("atlas", __version__)
        self.tool_source = tool_source or (lambda name: ToolSource("builtin"))
        self._lock = threading.Lock()
        self._question: _Question | None = None
        self._complaint = _LastMessage()
        for name in _EXPORTER_LOGGERS:
            logger = logging.getLogger(name)
            # One keeper per logger: the one of an earlier run in this process (a chat's, a
            # test's) is replaced, not joined, so they do not pile up with every run.
            for handler in [handler for handler in logger.handlers if isinstance(handler, _LastMessage)]:
                logger.removeHandler(handler)
            logger.addHandler(self._complaint)
            logger.propagate = False  # the SDK's tracebacks never reach the terminal

    # -- the question ---------------------------------------------------------------------------

    @contextmanager
    def question(self, *, session: str, turn: int, model: str, text: str) -> Iterator[QuestionTrace]:
        """The span of one question; it ends with its outcome however the block ends (Ctrl-C included)."""
        span = self.tracer.start_span(
            f"{attr.INVOKE_AGENT} {attr.AGENT}",
            kind=SpanKind.INTERNAL,
            attributes={
                attr.OPERATION: attr.INVOKE_AGENT,
                attr.AGENT_NAME: attr.AGENT,
                attr.CONVERSATION_ID: session,
                attr.REQUEST_MODEL: model,
                attr.SESSION: session,
                attr.TURN: turn,
            },
        )
        if self.settings.capture_content:
            span.set_attribute(attr.INPUT_MESSAGES, _messages("user", text))
        state = _Question(span)
        with self._lock:
            self._question = state
        handle = QuestionTrace(self, state)
        try:
            yield handle
        except KeyboardInterrupt:
            self._end_question(state, "cancelled", StatusCode.ERROR, "cancelled")
            raise
        except BaseException as exc:
            kind = getattr(exc, "kind", None)
            self._end_question(state, "error", StatusCode.ERROR, str(kind or type(exc).__name__), exc)
            raise
        else:
            self._end_question(
                state, handle.outcome, StatusCode.OK if handle.outcome == "answered" else StatusCode.UNSET
            )

    def _end_question(
        self,
        state: _Question,
        outcome: str,
        code: StatusCode,
        error: str | None = None,
        exc: BaseException | None = None,
    ) -> None:
        with self._lock:
            open_spans = [*state.mcp.values(), *state.tools.values()]
            state.mcp.clear()
            state.tools.clear()
            if self._question is state:
                self._question = None
        for span in open_spans:  # calls a Ctrl-C or a deadline left running end with the question
            span.set_status(Status(StatusCode.ERROR, outcome))
            span.set_attribute(attr.ERROR_KIND, str(ErrorKind.CANCELLED))
            span.set_attribute(attr.ERROR_TYPE, str(ErrorKind.CANCELLED))
            span.end()
        state.span.set_attribute(attr.OUTCOME, outcome)
        state.span.set_attribute(attr.ROUNDS, state.rounds)
        if error is not None:
            state.span.set_attribute(attr.ERROR_TYPE, error)
        if exc is not None and not isinstance(exc, KeyboardInterrupt):
            state.span.record_exception(exc, escaped=True)
        state.span.set_status(Status(code, None if code is not StatusCode.ERROR else outcome))
        state.span.end()

    def _parent(self) -> Any:
        with self._lock:
            question = self._question
        return None if question is None else trace.set_span_in_context(question.span)

    # -- model requests -------------------------------------------------------------------------

    def model_span(self, *, model: str, api: str, provider: str, server: tuple[str, int] | None) -> Span:
        """A span for one model request, a child of the question; its holder ends it."""
        with self._lock:
            question = self._question
            if question is not None:
                question.rounds += 1
            round_no = question.rounds if question is not None else 0
        attributes: dict[str, Any] = {
            attr.OPERATION: attr.CHAT,
            attr.PROVIDER: provider,
            attr.REQUEST_MODEL: model,
            attr.API: api,
            attr.ROUND: round_no,
        }
        if server is not None:
            attributes[attr.SERVER_ADDRESS], attributes[attr.SERVER_PORT] = server
        return self.tracer.start_span(
            f"{attr.CHAT} {model}", context=self._parent(), kind=SpanKind.CLIENT, attributes=attributes
        )

    # -- tool calls -----------------------------------------------------------------------------

    def on_call_event(self, event: CallEvent) -> None:
        """The executor's events, as spans: one `execute_tool` per call, an MCP child per attempt."""
        with self._lock:
            question = self._question
        if question is None:
            return
        if event.phase is Phase.QUEUED:
            self._start_tool(question, event)
            return
        span = question.tools.get(event.call_id)
        if span is None:
            return
        if event.phase is Phase.AWAITING_APPROVAL:
            span.add_event("approval asked")
        elif event.phase in (Phase.APPROVED, Phase.DENIED):
            decision = "approved" if event.phase is Phase.APPROVED else "denied"
            span.set_attribute(attr.APPROVAL, decision)
            if event.decided_by:
                span.set_attribute(attr.DECIDED_BY, event.decided_by)
            span.add_event(f"approval {decision}")
        elif event.phase is Phase.STARTED:
            self._start_attempt(question, event, span)
        elif event.phase is Phase.RETRYING:
            span.add_event("retrying", {attr.ATTEMPTS: event.attempt, attr.ERROR_KIND: str(event.kind or "")})
            self._end_attempt(question, event.call_id, event.kind)
        elif event.phase is Phase.FINISHED:
            self._finish_tool(question, event, span)

    def _start_tool(self, question: _Question, event: CallEvent) -> None:
        source = self.tool_source(event.name)
        attributes: dict[str, Any] = {
            attr.OPERATION: attr.EXECUTE_TOOL,
            attr.TOOL_NAME: event.name,
            attr.TOOL_CALL_ID: event.call_id,
            attr.TOOL_TYPE: "extension" if source.mcp_server else "function",
            attr.SOURCE: source.source,
            attr.SIDE_EFFECT: source.side_effect,
            attr.ROUND: event.round,
        }
        if self.settings.capture_content:
            attributes[attr.TOOL_ARGUMENTS] = _json(event.arguments)
        span = self.tracer.start_span(
            f"{attr.EXECUTE_TOOL} {event.name}",
            context=trace.set_span_in_context(question.span),
            kind=SpanKind.INTERNAL,
            attributes=attributes,
        )
        context = span.get_span_context()
        with self._lock:
            question.tools[event.call_id] = span
            question.ids[event.call_id] = (f"{context.trace_id:032x}", f"{context.span_id:016x}")

    def _start_attempt(self, question: _Question, event: CallEvent, parent: Span) -> None:
        source = self.tool_source(event.name)
        if source.mcp_server is None:
            return
        tool = source.mcp_tool or event.name
        child = self.tracer.start_span(
            f"{attr.TOOLS_CALL} {tool}",
            context=trace.set_span_in_context(parent),
            kind=SpanKind.CLIENT,
            attributes={
                attr.MCP_METHOD: attr.TOOLS_CALL,
                attr.TOOL_NAME: tool,
                attr.MCP_SERVER: source.mcp_server,
                attr.NETWORK_TRANSPORT: "pipe",
                attr.ATTEMPTS: event.attempt,
            },
        )
        with self._lock:
            question.mcp[event.call_id] = child

    def _end_attempt(self, question: _Question, call_id: str, kind: ErrorKind | None) -> None:
        with self._lock:
            child = question.mcp.pop(call_id, None)
        if child is None:
            return
        if kind is not None and kind is not ErrorKind.OK:
            child.set_attribute(attr.ERROR_TYPE, str(kind))
            child.set_status(Status(StatusCode.ERROR, str(kind)))
        child.end()

    def _finish_tool(self, question: _Question, event: CallEvent, span: Span) -> None:
        self._end_attempt(question, event.call_id, event.kind)
        with self._lock:
            question.tools.pop(event.call_id, None)
        kind = event.kind or ErrorKind.UNKNOWN
        span.set_attribute(attr.ERROR_KIND, str(kind))
        span.set_attribute(attr.ATTEMPTS, event.attempts)
        if self.settings.capture_content and event.output is not None:
            span.set_attribute(attr.TOOL_RESULT, event.output)
        if kind is not ErrorKind.OK:
            span.set_attribute(attr.ERROR_TYPE, str(kind))
            span.set_status(Status(StatusCode.ERROR, clean_line(event.message or str(kind))[:200]))
        span.end()

    def ids_for(self, call_id: str) -> tuple[str, str] | None:
        """The trace and span ids of a call of the current question (for the call log), if traced."""
        with self._lock:
            question = self._question
            return None if question is None else question.ids.get(call_id)

    def current_ids(self) -> tuple[str, str] | None:
        """The trace and span ids of the current question, if there is one."""
        with self._lock:
            question = self._question
        if question is None:
            return None
        context = question.span.get_span_context()
        return f"{context.trace_id:032x}", f"{context.span_id:016x}"

    # -- the end of the run ---------------------------------------------------------------------

    def close(self) -> str | None:
        """Send what is left while the endpoint is worth waiting for; a line for a person when spans were lost."""
        flushed = self.reach.flushed(lambda: self.provider.force_flush(timeout_millis=int(SHUTDOWN_S * 1000)))
        where = f"{self.settings.shown_endpoint} ({self.settings.source})"
        if not flushed:
            if self.reach.state is Reachability.UNREACHABLE:
                return clean_line(f"telemetry: {where} {self.reach.why}; the run's spans were not sent")
            silent = f"did not answer within {SHUTDOWN_S:g} s"
            return clean_line(f"telemetry: {where} {silent}; the run's spans were dropped")
        self.provider.shutdown()
        if self.exporter.failures:
            why = f" ({self.settings.hidden(self._complaint.message)})" if self._complaint.message else ""
            return clean_line(f"telemetry: {where} did not accept {self.exporter.failures} export(s){why}")
        return None


@dataclass
class QuestionTrace:
    """What the command tells the question's span once the answer is known."""

    telemetry: Telemetry
    state: _Question
    outcome: str = "answered"

    def finish(self, result: TurnResult) -> None:
        span = self.state.span
        self.outcome = "answered" if result.finished else "stopped"
        if result.usage.known:
            span.set_attribute(attr.INPUT_TOKENS, result.usage.input_tokens)
            span.set_attribute(attr.OUTPUT_TOKENS, result.usage.output_tokens)
            span.set_attribute(attr.COST, result.cost_usd)
        if self.telemetry.settings.capture_content:
            span.set_attribute(attr.OUTPUT_MESSAGES, _messages("assistant", result.answer))


def _json(value: Any) -> str:
    return value if isinstance(value, str) else json.dumps(value, ensure_ascii=False, default=str)


def _messages(role: str, text: str) -> str:
    """The conventions' message form: a JSON list of {role, parts: [{type: text, content}]}."""
    return json.dumps([{"role": role, "parts": [{"type": "text", "content": text}]}], ensure_ascii=False)
