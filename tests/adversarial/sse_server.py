"""A loopback Responses API server that sends exactly the events a test scripts, hostile ones included.

llmock speaks the wire faithfully, so it cannot send what a broken or hostile server would: a
call_id that is null or an object, usage of -5 tokens, a `response.completed` without a response.
This server plays one scripted list of server-sent events per request, in order, and keeps each
request's body so a test can check what Atlas sent back.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from http.server import BaseHTTPRequestHandler
from typing import Any

from tests.support.loopback import Loopback, QuietHandler
from tests.support.sse import response, send_events, usage

__all__ = ["ScriptedSSE", "SlowSSE", "function_calls", "response", "text_answer", "usage"]


class ScriptedSSE(Loopback):
    """`with ScriptedSSE([events_of_request_1, ...]) as server:` then point OPENAI_BASE_URL at `server.url`."""

    def __init__(self, responses: list[list[dict[str, Any]]]) -> None:
        self.bodies: list[dict[str, Any]] = []
        pending = deque(responses)
        lock = threading.Lock()
        bodies = self.bodies

        class Handler(QuietHandler):
            def do_POST(self) -> None:
                body = self.rfile.read(int(self.headers.get("content-length", 0)))
                with lock:
                    bodies.append(json.loads(body))
                    events = pending.popleft() if pending else None
                if events is None:
                    self.send_error(500, "the test scripted no more responses")
                    return
                send_events(self, events)

        super().__init__(Handler, path="/v1")


def text_answer(text: str, **completed: Any) -> list[dict[str, Any]]:
    """A streamed text answer; `completed` goes into the final response object."""
    message = {
        "type": "message",
        "id": "msg_1",
        "role": "assistant",
        "status": "completed",
        "content": [{"type": "output_text", "text": text, "annotations": []}],
    }
    return [
        {"type": "response.created", "response": response("in_progress")},
        {
            "type": "response.output_text.delta",
            "item_id": "msg_1",
            "output_index": 0,
            "content_index": 0,
            "delta": text,
        },
        {"type": "response.completed", "response": response(output=[message], **completed)},
    ]


def function_calls(calls: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """A response asking for `calls` (each a function_call item: name, arguments, call_id as given)."""
    items = [
        {"type": "function_call", "id": f"fc_{n}", "status": "completed", **call} for n, call in enumerate(calls, 1)
    ]
    return [
        {"type": "response.created", "response": response("in_progress")},
        *({"type": "response.output_item.done", "output_index": n, "item": item} for n, item in enumerate(items)),
        {"type": "response.completed", "response": response(output=items)},
    ]


class SlowSSE(Loopback):
    """A loopback server (Responses and Chat Completions alike) whose streams never finish.

    `mode` "dribble" sends the first event one byte every `interval_s`; "keep-alive" sends only SSE
    comments (`: keep-alive`) every `interval_s`. Either way data keeps arriving, so no read ever
    waits long, and only a bound on the whole request ends it. `asked` and `hung_up` hold the
    monotonic times at which each request arrived and its client closed the connection.
    """

    def __init__(self, mode: str, interval_s: float = 0.25) -> None:
        self.asked: list[float] = []
        self.hung_up: list[float] = []
        self.stopping = threading.Event()
        stopping, asked, hung_up = self.stopping, self.asked, self.hung_up
        responses_event = (
            b'event: response.created\ndata: {"type": "response.created", "sequence_number": 0, '
            b'"response": {"id": "resp_1", "object": "response", "created_at": 0, "status": "in_progress"}}\n\n'
        )
        chat_chunk = (
            b'data: {"id": "c1", "object": "chat.completion.chunk", "created": 0, "model": "gpt-hostile", '
            b'"choices": [{"index": 0, "delta": {"content": "ORB-1101 means"}, "finish_reason": null}]}\n\n'
        )

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:
                self.rfile.read(int(self.headers.get("content-length", 0)))
                asked.append(time.monotonic())
                self.send_response(200)
                self.send_header("content-type", "text/event-stream")
                self.end_headers()
                first = chat_chunk if self.path.endswith("/chat/completions") else responses_event
                pieces = (first[n : n + 1] for n in range(len(first))) if mode == "dribble" else None
                try:
                    while not stopping.wait(interval_s):
                        piece = next(pieces, b"") if pieces is not None else b": keep-alive\n\n"
                        self.wfile.write(piece or b" ")
                        self.wfile.flush()
                except OSError:
                    hung_up.append(time.monotonic())

            def log_message(self, format: str, *args: Any) -> None:
                pass

        super().__init__(Handler, path="/v1")

    def __exit__(self, *exc: object) -> None:
        self.stopping.set()
        super().__exit__(*exc)
