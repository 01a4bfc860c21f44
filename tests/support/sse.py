"""The Responses API's streamed wire, written by hand for the servers that play scripted events
(`tests/adversarial/sse_server.py`, the canned streams of `tests/llm`): what llmock cannot send."""

from __future__ import annotations

import json
from http.server import BaseHTTPRequestHandler
from typing import Any


def sse_payload(events: list[dict[str, Any]]) -> bytes:
    """`events` as server-sent events, each numbered in order as the API numbers them."""
    return b"".join(
        f"event: {event.get('type')}\ndata: {json.dumps({**event, 'sequence_number': n})}\n\n".encode()
        for n, event in enumerate(events)
    )


def send_events(handler: BaseHTTPRequestHandler, events: list[dict[str, Any]]) -> None:
    """Answer the request `handler` holds with `events`, whole, as one stream."""
    payload = sse_payload(events)
    handler.send_response(200)
    handler.send_header("content-type", "text/event-stream")
    handler.send_header("content-length", str(len(payload)))
    handler.end_headers()
    handler.wfile.write(payload)


def response(status: str = "completed", **fields: Any) -> dict[str, Any]:
    """A Responses API `response` object with every required field."""
    return {
        "id": "resp_1",
        "object": "response",
        "created_at": 0,
        "status": status,
        "model": "gpt-hostile",
        "output": [],
        "parallel_tool_calls": True,
        "tool_choice": "auto",
        "tools": [],
        "error": None,
        "incomplete_details": None,
        **fields,
    }


def usage(input_tokens: Any, output_tokens: Any, total_tokens: Any = 0) -> dict[str, Any]:
    """A response's token usage, as given (a hostile server's counts need not add up)."""
    return {
        "input_tokens": input_tokens,
        "input_tokens_details": {"cached_tokens": 0},
        "output_tokens": output_tokens,
        "output_tokens_details": {"reasoning_tokens": 0},
        "total_tokens": total_tokens,
    }
