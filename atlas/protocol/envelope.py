"""The tool-result envelope every call is answered with, and its strict JSON form.

`{"ok": true, "data": ...}` or `{"ok": false, "error": {"kind", "message", "retryable", "hint"}}`:
the one shape the model reads for every tool result, whatever the tool or the failure.
"""

from __future__ import annotations

import json
import math
from collections.abc import Mapping
from typing import Any

from atlas.foundation.errors import HINTS, RETRYABLE_KINDS, ErrorKind, cap


def envelope_ok(data: Any, *, untrusted: bool = False, hint: str | None = None) -> dict[str, Any]:
    """A successful result; `untrusted` marks text written by outsiders (issue bodies, docs)."""
    env: dict[str, Any] = {"ok": True, "data": data}
    if untrusted:
        env["untrusted"] = True
    if hint:
        env["hint"] = hint
    return env


def envelope_err(
    kind: ErrorKind, message: str, *, hint: str | None = None, retryable: bool | None = None
) -> dict[str, Any]:
    """A failed result with the kind, a capped message, whether a retry can help, and what to do.

    `retryable` overrides the kind's default where the call matters more than the kind: a side
    effect that timed out may have landed, so asking again could do it twice.
    """
    if kind is ErrorKind.OK:
        raise ValueError("envelope_err needs an error kind, not ok")
    return {
        "ok": False,
        "error": {
            "kind": kind.value,
            "message": cap(message),
            "retryable": kind in RETRYABLE_KINDS if retryable is None else retryable,
            "hint": hint or HINTS[kind],
        },
    }


def dumps(envelope: dict[str, Any]) -> str:
    """Serialise an envelope as strict JSON; values JSON cannot hold (NaN too) are shown with str()."""
    try:
        return json.dumps(envelope, ensure_ascii=False, default=str, allow_nan=False)
    except ValueError:  # a NaN or an infinity somewhere: rare, so only then walk the data
        return json.dumps(_finite(envelope), ensure_ascii=False, default=str, allow_nan=False)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return str(value)
    if isinstance(value, dict):
        return {_finite(key): _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value


class EnvelopeReading:
    """What one call returned, as a reader of its `envelope` (the parsed result) holds it; each reader
    (a dataclass) declares `envelope` among its own fields."""

    envelope: Mapping[str, Any]

    @property
    def ok(self) -> bool:
        return self.envelope.get("ok") is True

    @property
    def data(self) -> Any:
        return self.envelope.get("data")
