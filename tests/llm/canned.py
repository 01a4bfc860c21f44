"""A loopback HTTP server that answers every request with one canned response: for wire shapes
llmock does not produce (refusals, hostile usage, servers without an endpoint)."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

from tests.support.loopback import Loopback, QuietHandler

Answer = Callable[[dict[str, Any]], tuple[int, bytes]]
"""From a request's JSON body, the status and body to answer with."""


class Canned(Loopback):
    """Answers every POST and GET with `status`, `body` and `content_type`; keeps the request bodies.

    `body` may instead be a function of the request's JSON, for a server whose answer depends on it.
    """

    def __init__(self, body: bytes | Answer, *, status: int = 200, content_type: str = "text/event-stream") -> None:
        self.bodies: list[dict[str, Any]] = []
        self.paths: list[str] = []
        self.headers: list[dict[str, str]] = []
        received, paths, headers = self.bodies, self.paths, self.headers

        class Handler(QuietHandler):
            def _answer(self) -> None:
                raw = self.rfile.read(int(self.headers.get("content-length", 0)))
                paths.append(self.path)
                headers.append({name.lower(): value for name, value in self.headers.items()})
                request = json.loads(raw) if raw else {}
                if raw:
                    received.append(request)
                code, payload = body(request) if callable(body) else (status, body)
                self.send_response(code)
                self.send_header("content-type", content_type if code < 400 else "application/json")
                self.send_header("content-length", str(len(payload)))
                self.end_headers()
                self.wfile.write(payload)

            do_POST = do_GET = _answer

        super().__init__(Handler, path="/v1")


def chat_stream(*chunks: dict[str, Any]) -> bytes:
    """Server-sent `chat.completion.chunk`s, each given as its `choices[0]` (or whole, with `usage`)."""
    events = []
    for n, chunk in enumerate(chunks):
        data = chunk if "choices" in chunk else {"choices": [{"index": 0, "delta": {}, **chunk}]}
        events.append({"id": "chatcmpl-1", "object": "chat.completion.chunk", "created": n, "model": "m", **data})
    return b"".join(f"data: {json.dumps(event)}\n\n".encode() for event in events) + b"data: [DONE]\n\n"


def usage_chunk(usage: Any) -> dict[str, Any]:
    """The final chunk a server sends with `stream_options.include_usage`: no choices, only usage."""
    return {"choices": [], "usage": usage}
