"""A question's deadline, as one value: made from the `--deadline` option once the session's data is
ready (`runtime.session.open_session`), it bounds the MCP servers' start, each model request and each tool call."""

from __future__ import annotations

import time
from typing import NamedTuple


class QuestionDeadline(NamedTuple):
    """The question's `--deadline`: the `time.monotonic()` it ends at, and the seconds it was given."""

    at: float
    seconds: float

    @classmethod
    def within(cls, seconds: float) -> QuestionDeadline:
        """The deadline `seconds` from now."""
        return cls(time.monotonic() + seconds, seconds)

    def left_s(self) -> float:
        """Seconds until it ends (0 once it has)."""
        return max(0.0, self.at - time.monotonic())
