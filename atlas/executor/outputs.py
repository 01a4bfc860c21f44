"""Serialise a tool result for the model, capped in size but always valid JSON.

A tool may return a whole document; the model's context is not the place for it. Long strings
are shortened first (structure survives, the model still sees ids and titles); if that is not
enough, the data becomes one truncated JSON text. Either way the envelope says `"truncated": true`
and the cut text ends with a visible marker.
"""

from __future__ import annotations

from typing import Any

from atlas.protocol.envelope import dumps

OUTPUT_LIMIT = 8000
_STRING_LIMITS = (2000, 500, 120)


def marker(shown: int, total: int) -> str:
    return f"… [truncated: {shown:,} of {total:,} characters shown]"


def _cut_strings(value: Any, limit: int) -> Any:
    if isinstance(value, str) and len(value) > limit:
        return value[:limit] + marker(limit, len(value))
    if isinstance(value, dict):
        return {key: _cut_strings(item, limit) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_cut_strings(item, limit) for item in value]
    return value


def capped_output(envelope: dict[str, Any], limit: int = OUTPUT_LIMIT) -> str:
    """`dumps(envelope)` when it fits in `limit` characters, else a shortened envelope that does."""
    text = dumps(envelope)
    if len(text) <= limit or "data" not in envelope:
        return text
    for string_limit in _STRING_LIMITS:
        shorter = {**envelope, "data": _cut_strings(envelope["data"], string_limit), "truncated": True}
        text = dumps(shorter)
        if len(text) <= limit:
            return text
    data_text = dumps(envelope["data"]) if not isinstance(envelope["data"], str) else envelope["data"]
    # Leave room for the rest of the envelope and for JSON escaping of the kept prefix.
    overhead = len(dumps({**envelope, "data": "", "truncated": True})) + 80
    keep = max(0, limit - overhead)
    while True:
        candidate = {**envelope, "data": data_text[:keep] + marker(keep, len(data_text)), "truncated": True}
        text = dumps(candidate)
        if len(text) <= limit or keep == 0:
            return text
        keep = max(0, keep - (len(text) - limit) - 16)
