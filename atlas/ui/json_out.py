"""The one way Atlas prints JSON for people and programs: `--json` output of every command.

ASCII only, so every control, C1 and bidi character in the data arrives escaped (`\\u202e`) and
inert in a terminal; and strict JSON, so a number no JSON parser takes (NaN, Infinity) is
printed as `null`, never as the `Infinity` Python would write.
"""

from __future__ import annotations

import json
import math
from typing import Any

from atlas.foundation.sanitize import write_line


def print_json(value: Any, *, indent: int | None = None, flush: bool = False) -> None:
    """`value` as one ASCII JSON document on standard output (one line unless `indent`)."""
    write_line(json_text(value, indent=indent), flush=flush)


def json_text(value: Any, *, indent: int | None = None) -> str:
    try:
        return json.dumps(value, indent=indent, ensure_ascii=True, allow_nan=False, default=str)
    except ValueError:  # a NaN or an infinity somewhere: rare, so only then walk the data
        return json.dumps(_finite(value), indent=indent, ensure_ascii=True, allow_nan=False, default=str)


def _finite(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {key: _finite(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return [_finite(item) for item in value]
    return value
