"""A circuit breaker per tool: stop calling a source that keeps failing, probe it after a cool-down.

Only infrastructure failures (timeout, transient, a source found down) count. A source that answered — even with
"no such issue" — is up, so `ok` and `permanent` reset the streak; outcomes decided before the
source was reached (bad_args, denied, cancelled, ...) leave it alone.
"""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from typing import Literal

from atlas.foundation.errors import ErrorKind

FAILURES = frozenset({ErrorKind.TIMEOUT, ErrorKind.TRANSIENT, ErrorKind.UNAVAILABLE})
SOURCE_ANSWERED = frozenset({ErrorKind.OK, ErrorKind.PERMANENT})

Admission = Literal["call", "probe", "refused"]


class CircuitBreaker:
    """Closed → open after `threshold` consecutive failures → one probe after `cooldown_s` (half-open).

    A successful probe closes the circuit; a failed one opens it for another cool-down.
    """

    def __init__(self, threshold: int = 5, cooldown_s: float = 30.0, clock: Callable[[], float] = time.monotonic):
        self.threshold = max(1, threshold)
        self.cooldown_s = cooldown_s
        self._clock = clock
        self._lock = threading.Lock()
        self._failures = 0
        self._opened_at: float | None = None
        self._probing = False

    @property
    def state(self) -> str:
        """`closed`, `open` or `half_open` (cool-down over, or a probe in flight)."""
        with self._lock:
            if self._opened_at is None:
                return "closed"
            if self._probing or self._clock() - self._opened_at >= self.cooldown_s:
                return "half_open"
            return "open"

    def blocked(self) -> bool:
        """Whether a call right now would be refused, without claiming the probe."""
        with self._lock:
            return self._opened_at is not None and (self._probing or self._clock() - self._opened_at < self.cooldown_s)

    def admit(self) -> Admission:
        """Whether a call may run now; after the cool-down the first caller becomes the one probe."""
        with self._lock:
            if self._opened_at is None:
                return "call"
            if self._probing or self._clock() - self._opened_at < self.cooldown_s:
                return "refused"
            self._probing = True
            return "probe"

    def record(self, kind: ErrorKind, admission: Admission = "call") -> None:
        """Feed back how an admitted call ended (`admission` is what `admit()` returned)."""
        with self._lock:
            probe = admission == "probe"
            if probe:
                self._probing = False
            if kind in FAILURES:
                self._failures += 1
                if probe or self._failures >= self.threshold:
                    self._opened_at = self._clock()
            elif kind in SOURCE_ANSWERED:
                self._failures = 0
                self._opened_at = None
            # Anything else (cancelled mid-probe, say) says nothing about the source: the next
            # call after the cool-down probes again.
