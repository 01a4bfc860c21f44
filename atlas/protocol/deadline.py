"""A question's deadline, as one value handed from the `--deadline` option down to each model request."""

from __future__ import annotations

import time
from typing import NamedTuple


class QuestionDeadline(NamedTuple):
    """The question's `--deadline`: the `time.monotonic()` it ends at, and the seconds it was given."""

    at: float
    seconds: float

    def left_s(self) -> float:
        """Seconds until it ends (0 once it has)."""
        return max(0.0, self.at - time.monotonic())
