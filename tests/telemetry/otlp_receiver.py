"""A real OTLP/HTTP traces receiver on loopback: decodes what arrives with the OTLP protobufs.

It speaks the collector's side of the wire as the specification describes it: `POST /v1/traces`
with `Content-Type: application/x-protobuf` carrying an `ExportTraceServiceRequest`, answered
with an `ExportTraceServiceResponse`. `mode` makes it refuse (HTTP 400) or never answer.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from typing import Any
from urllib.parse import urlsplit

from opentelemetry.proto.collector.trace.v1.trace_service_pb2 import (
    ExportTraceServiceRequest,
    ExportTraceServiceResponse,
)
from opentelemetry.proto.common.v1.common_pb2 import AnyValue

from tests.support.loopback import Loopback


@dataclass
class ReceivedSpan:
    name: str
    trace_id: str
    span_id: str
    parent_id: str
    kind: int
    status_code: int
    status_message: str
    attributes: dict[str, Any]
    events: list[str]
    service: str


@dataclass
class Receiver:
    url: str
    spans: list[ReceivedSpan] = field(default_factory=list)
    requests: list[dict[str, str]] = field(default_factory=list)

    def wait_for(self, count: int, timeout: float = 10.0) -> list[ReceivedSpan]:
        deadline = time.monotonic() + timeout
        while len(self.spans) < count and time.monotonic() < deadline:
            time.sleep(0.02)
        return list(self.spans)

    def named(self, prefix: str) -> list[ReceivedSpan]:
        return [span for span in self.spans if span.name.startswith(prefix)]


def _value(value: AnyValue) -> Any:
    which = value.WhichOneof("value")
    if which == "array_value":
        return [_value(item) for item in value.array_value.values]
    return getattr(value, which) if which else None


def decode(body: bytes) -> list[ReceivedSpan]:
    request = ExportTraceServiceRequest()
    request.ParseFromString(body)
    spans = []
    for resource_spans in request.resource_spans:
        resource = {kv.key: _value(kv.value) for kv in resource_spans.resource.attributes}
        for scope in resource_spans.scope_spans:
            for span in scope.spans:
                spans.append(
                    ReceivedSpan(
                        name=span.name,
                        trace_id=span.trace_id.hex(),
                        span_id=span.span_id.hex(),
                        parent_id=span.parent_span_id.hex(),
                        kind=span.kind,
                        status_code=span.status.code,
                        status_message=span.status.message,
                        attributes={kv.key: _value(kv.value) for kv in span.attributes},
                        events=[event.name for event in span.events],
                        service=str(resource.get("service.name", "")),
                    )
                )
    return spans


@contextmanager
def otlp_receiver(mode: str = "accept") -> Iterator[Receiver]:
    """`accept`, `refuse` (HTTP 400 with a message) or `hang` (reads the request, never answers)."""
    received: list[ReceivedSpan] = []
    requests: list[dict[str, str]] = []
    release = threading.Event()

    class Handler(BaseHTTPRequestHandler):
        def do_POST(self) -> None:
            body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
            requests.append({"path": self.path, **{key.lower(): value for key, value in self.headers.items()}})
            if mode == "hang":
                release.wait(30)
                return
            if mode == "refuse" or urlsplit(self.path).path != "/v1/traces":
                self._reply(400, b"bad request: refused by the test receiver", "text/plain")
                return
            received.extend(decode(body))
            self._reply(200, ExportTraceServiceResponse().SerializeToString(), "application/x-protobuf")

        def _reply(self, status: int, body: bytes, content_type: str) -> None:
            self.send_response(status)
            self.send_header("Content-Type", content_type)
            self.send_header("Content-Length", str(len(body)))
            self.end_headers()
            self.wfile.write(body)

        def log_message(self, format: str, *args: Any) -> None:
            return

    with Loopback(Handler) as server:
        try:
            yield Receiver(server.url, received, requests)
        finally:
            release.set()
