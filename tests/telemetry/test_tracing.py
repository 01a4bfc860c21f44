"""The tracer alone, with the SDK's in-memory exporter: the span tree built from executor events."""

from __future__ import annotations

import logging
import time
from pathlib import Path

import pytest
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from opentelemetry.trace import SpanKind, StatusCode

from atlas.foundation.errors import ConfigError, ErrorKind
from atlas.protocol.events import CallEvent, CallRecord, Phase
from atlas.telemetry.reach import LAST_CHANCE_S, SHUTDOWN_S, Reachability
from atlas.telemetry.settings import TelemetrySettings, telemetry_settings
from atlas.telemetry.tracing import Telemetry, ToolSource
from tests.telemetry.otlp_receiver import otlp_receiver

ON = TelemetrySettings(endpoint="http://127.0.0.1:9/v1/traces")


def tracer(**kwargs: object) -> tuple[Telemetry, InMemorySpanExporter]:
    exporter = InMemorySpanExporter()
    settings = kwargs.pop("settings", ON)
    return Telemetry(settings, exporter=exporter, **kwargs), exporter  # type: ignore[arg-type]


def event(phase: Phase, call_id: str = "c1", name: str = "get_issue", **fields: object) -> CallEvent:
    return CallEvent(phase=phase, call_id=call_id, name=name, arguments={"issue_id": 41}, round=1, **fields)  # type: ignore[arg-type]


def finished(kind: ErrorKind, call_id: str = "c1", name: str = "get_issue") -> CallEvent:
    record = CallRecord(round=1, call_id=call_id, name=name, arguments={}, kind=kind, ms=3.0, attempts=1)
    return event(Phase.FINISHED, call_id, name, kind=kind, attempts=1, ms=3.0, record=record, output='{"ok": true}')


def test_mcp_calls_are_children_of_their_execute_tool_span_one_per_attempt() -> None:
    source = ToolSource("mcp:time", mcp_server="time", mcp_tool="get_current_time")
    telemetry, exporter = tracer(tool_source=lambda name: source)
    name = "time__get_current_time"
    with telemetry.question(session="s", turn=1, model="m", text="q"):
        telemetry.on_call_event(event(Phase.QUEUED, name=name))
        telemetry.on_call_event(event(Phase.STARTED, name=name, attempt=1))
        telemetry.on_call_event(event(Phase.RETRYING, name=name, attempt=1, kind=ErrorKind.TRANSIENT))
        telemetry.on_call_event(event(Phase.STARTED, name=name, attempt=2))
        telemetry.on_call_event(finished(ErrorKind.OK, name=name))
    telemetry.provider.force_flush()
    spans = {span.name: span for span in exporter.get_finished_spans()}
    tool = spans["execute_tool time__get_current_time"]
    assert tool.attributes is not None and tool.attributes["gen_ai.tool.type"] == "extension"
    calls = [span for span in exporter.get_finished_spans() if span.name == "tools/call get_current_time"]
    assert len(calls) == 2
    for call in calls:
        assert call.kind is SpanKind.CLIENT
        assert call.parent is not None and call.parent.span_id == tool.context.span_id
        assert call.attributes is not None and call.attributes["mcp.method.name"] == "tools/call"
    assert calls[0].status.status_code is StatusCode.ERROR and calls[1].status.status_code is StatusCode.UNSET


def test_the_call_log_gets_the_ids_of_the_span_it_belongs_to() -> None:
    telemetry, exporter = tracer()
    with telemetry.question(session="s", turn=1, model="m", text="q"):
        telemetry.on_call_event(event(Phase.QUEUED))
        ids = telemetry.ids_for("c1")
        telemetry.on_call_event(finished(ErrorKind.OK))
    telemetry.provider.force_flush()
    (tool,) = [span for span in exporter.get_finished_spans() if span.name == "execute_tool get_issue"]
    assert ids == (f"{tool.context.trace_id:032x}", f"{tool.context.span_id:016x}")


def test_a_question_that_raises_ends_its_open_calls() -> None:
    telemetry, exporter = tracer()
    with pytest.raises(KeyboardInterrupt), telemetry.question(session="s", turn=1, model="m", text="q"):
        telemetry.on_call_event(event(Phase.QUEUED))
        raise KeyboardInterrupt
    telemetry.provider.force_flush()
    spans = {span.name: span for span in exporter.get_finished_spans()}
    assert spans["execute_tool get_issue"].status.status_code is StatusCode.ERROR
    assert spans["invoke_agent atlas"].attributes is not None
    assert spans["invoke_agent atlas"].attributes["atlas.outcome"] == "cancelled"


def test_events_outside_a_question_are_ignored() -> None:
    telemetry, exporter = tracer()
    telemetry.on_call_event(event(Phase.QUEUED))
    telemetry.on_call_event(finished(ErrorKind.OK))
    telemetry.provider.force_flush()
    assert exporter.get_finished_spans() == ()


def test_close_waits_at_most_the_shutdown_bound_for_an_endpoint_that_never_answers() -> None:
    with otlp_receiver("hang") as receiver:
        telemetry = Telemetry(TelemetrySettings(endpoint=receiver.url + "/v1/traces"))
        with telemetry.question(session="s", turn=1, model="m", text="q"):
            pass
        started = time.monotonic()
        problem = telemetry.close()
        waited = time.monotonic() - started
    assert waited < SHUTDOWN_S + 0.1
    assert problem is not None and f"did not answer within {SHUTDOWN_S:g} s" in problem


def test_a_silent_endpoint_costs_a_long_run_no_wait_at_its_end() -> None:
    """The bound counts from the first contact: a run that lasted longer has waited enough already."""
    with otlp_receiver("hang") as receiver:
        telemetry = Telemetry(TelemetrySettings(endpoint=receiver.url + "/v1/traces"))
        with telemetry.question(session="s", turn=1, model="m", text="q"):
            time.sleep(SHUTDOWN_S)  # the question takes as long as the bound
        started = time.monotonic()
        problem = telemetry.close()
        waited = time.monotonic() - started
    assert waited < LAST_CHANCE_S + 0.05
    assert problem is not None and "did not answer" in problem


def test_close_does_not_wait_for_an_endpoint_where_nothing_listens() -> None:
    with otlp_receiver() as gone:
        url = gone.url
    telemetry = Telemetry(TelemetrySettings(endpoint=url + "/v1/traces", source="OTEL_EXPORTER_OTLP_ENDPOINT"))
    with telemetry.question(session="s", turn=1, model="m", text="q"):
        deadline = time.monotonic() + 5  # the answer takes a moment, as any answer does
        while telemetry.reach.state is Reachability.UNKNOWN and time.monotonic() < deadline:
            time.sleep(0.01)
    started = time.monotonic()
    problem = telemetry.close()
    waited = time.monotonic() - started
    assert waited < 0.05
    assert problem == (
        f"telemetry: {url}/v1/traces (OTEL_EXPORTER_OTLP_ENDPOINT) refused the connection; "
        "the run's spans were not sent"
    )


def test_a_refusing_endpoint_is_named_with_its_reason() -> None:
    with otlp_receiver("refuse") as receiver:
        telemetry = Telemetry(TelemetrySettings(endpoint=receiver.url + "/v1/traces"))
        with telemetry.question(session="s", turn=1, model="m", text="q"):
            pass
        problem = telemetry.close()
    assert problem is not None and "did not accept" in problem and "400" in problem


def test_runs_in_one_process_leave_one_complaint_keeper_on_each_exporter_logger() -> None:
    """A chat or a test run makes one tracer after another: the exporter's loggers keep only the newest's keeper."""
    tracers = [tracer()[0] for _ in range(3)]
    for name in ("opentelemetry.exporter.otlp.proto.http", "opentelemetry.sdk", "opentelemetry.exporter"):
        logger = logging.getLogger(name)
        keepers = [handler for handler in logger.handlers if handler.__class__.__name__ == "_LastMessage"]
        assert keepers == [tracers[-1]._complaint], name
        assert logger.propagate is False
    logging.getLogger("opentelemetry.exporter.otlp.proto.http.trace_exporter").warning("refused: 400")
    assert tracers[-1]._complaint.message == "refused: 400"


@pytest.mark.parametrize(
    ("env", "endpoint"),
    [
        ({}, None),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318"}, "http://c:4318/v1/traces"),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318/"}, "http://c:4318/v1/traces"),
        ({"OTEL_EXPORTER_OTLP_TRACES_ENDPOINT": "http://c:4318/custom"}, "http://c:4318/custom"),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_SDK_DISABLED": "true"}, None),
        ({"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_TRACES_EXPORTER": "none"}, None),
    ],
)
def test_the_standard_variables_decide(tmp_path: Path, env: dict[str, str], endpoint: str | None) -> None:
    assert telemetry_settings(tmp_path, chosen_folder=True, env=env).endpoint == endpoint


@pytest.mark.parametrize(
    "env",
    [
        {"OTEL_EXPORTER_OTLP_ENDPOINT": "collector:4318"},
        {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://user:secret@c:4318"},
        {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4317", "OTEL_EXPORTER_OTLP_PROTOCOL": "grpc"},
        {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_INSTRUMENTATION_GENAI_CAPTURE_MESSAGE_CONTENT": "maybe"},
        {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_HEADERS": "novalue"},
    ],
)
def test_a_bad_setting_is_one_line(tmp_path: Path, env: dict[str, str]) -> None:
    with pytest.raises(ConfigError) as caught:
        telemetry_settings(tmp_path, chosen_folder=True, env=env)
    assert "\n" not in str(caught.value) and "secret" not in str(caught.value)


def test_headers_are_sent_and_never_part_of_the_settings_shown(tmp_path: Path) -> None:
    env = {"OTEL_EXPORTER_OTLP_ENDPOINT": "http://c:4318", "OTEL_EXPORTER_OTLP_HEADERS": "x-api-key=abc%3D,team=a"}
    settings = telemetry_settings(tmp_path, chosen_folder=True, env=env)
    assert dict(settings.headers) == {"x-api-key": "abc=", "team": "a"}
