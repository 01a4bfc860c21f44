"""What one call of the turn returned, as the answer and the later steps read it."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from atlas.offline.plan import PlannedCall
from atlas.protocol.envelope import EnvelopeReading


@dataclass(frozen=True)
class ToolReading(EnvelopeReading):
    """One call made this turn and what came back (the parsed envelope)."""

    call: PlannedCall
    call_id: str
    envelope: Mapping[str, Any]


def issue_text(data: Any) -> str:
    """The text of an issue the ORB-code rule may read: title, body and comment bodies."""
    if not isinstance(data, Mapping):
        return ""
    parts = [str(data.get("title", "")), str(data.get("body", ""))]
    comments = data.get("comments")
    if isinstance(comments, list):
        parts += [str(c.get("body", "")) if isinstance(c, Mapping) else str(c) for c in comments]
    return "\n".join(parts)
