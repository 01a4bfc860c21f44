"""A model wrapped so each request is a `chat {model}` span: its wait, retries, usage and cost."""

from __future__ import annotations

import time
from typing import Any
from urllib.parse import urlsplit

from opentelemetry.trace import Status, StatusCode

from atlas.foundation.config import Settings, base_url_setting
from atlas.llm import Model
from atlas.llm.adapter import ModelAdapter, ModelRequest
from atlas.protocol.events import Answering, Asking, Retrying, SessionEvent
from atlas.protocol.messages import ModelTurn
from atlas.telemetry import attributes as attr
from atlas.telemetry.tracing import Telemetry


class TracedModel(ModelAdapter):
    """`inner`, with a span per request; its events (waits, text) pass on as `inner` sends them."""

    def __init__(self, inner: Model, telemetry: Telemetry, settings: Settings) -> None:
        """`inner` on `settings`' wire (its API, the base URL from the environment) at their prices."""
        self.inner = inner
        self.name = inner.name
        self.telemetry = telemetry
        self.api = settings.api
        self.prices = (settings.price_in, settings.price_out)
        self.provider, self.server = _provider(inner.name, settings.api, base_url_setting())
        self._asked_at: float | None = None
        self._waited_ms: float | None = None
        self._retries = 0

    def _note_wait(self, event: SessionEvent) -> None:
        if isinstance(event, Asking) and self._asked_at is None:
            self._asked_at = time.monotonic()
        elif isinstance(event, Retrying):
            self._retries += 1
        elif isinstance(event, Answering) and self._asked_at is not None and self._waited_ms is None:
            self._waited_ms = (time.monotonic() - self._asked_at) * 1000

    async def answer(self, request: ModelRequest) -> ModelTurn:
        span = self.telemetry.model_span(model=self.name, api=self.api, provider=self.provider, server=self.server)
        self._asked_at, self._waited_ms, self._retries = None, None, 0
        started = time.monotonic()

        def relay(event: SessionEvent) -> None:
            self._note_wait(event)
            request.emit(event)

        try:
            reply = await request.to(self.inner, events=relay)
        except BaseException as exc:
            kind = getattr(exc, "kind", None)
            span.set_attribute(attr.ERROR_TYPE, str(kind) if kind is not None else type(exc).__name__)
            span.set_status(
                Status(StatusCode.ERROR, "cancelled" if isinstance(exc, KeyboardInterrupt) else str(kind or "error"))
            )
            self._end(span, started)
            raise
        if reply.usage.known:
            span.set_attribute(attr.INPUT_TOKENS, reply.usage.input_tokens)
            span.set_attribute(attr.OUTPUT_TOKENS, reply.usage.output_tokens)
            span.set_attribute(attr.COST, reply.usage.cost_usd(*self.prices))
        self._end(span, started)
        return reply

    def _end(self, span: Any, started: float) -> None:
        waited = self._waited_ms if self._waited_ms is not None else (time.monotonic() - started) * 1000
        span.set_attribute(attr.WAIT_MS, round(waited, 1))
        span.set_attribute(attr.RETRIES, self._retries)
        span.end()


def _provider(name: str, api: str, base_url: str | None) -> tuple[str, tuple[str, int] | None]:
    """The conventions' provider name, and the server a remote request goes to."""
    if name == "offline":
        return "atlas.offline", None
    if name.startswith("replay:"):
        return "atlas.replay", None
    parts = urlsplit(base_url or "https://api.openai.com/v1")
    host = parts.hostname or "api.openai.com"
    port = parts.port or (443 if parts.scheme == "https" else 80)
    return ("openai" if host == "api.openai.com" else "openai_compatible"), (host, port)
