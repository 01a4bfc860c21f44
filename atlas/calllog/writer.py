"""The call log as a subscriber to the executor: each finished call's record, written a batch at a time.

Finished calls are written together (one transaction) when their batch ends, or at most
`LOG_FLUSH_S` after the first of them waits; an approved or denied side effect is written at
once, before anything else can happen to the process.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

from atlas.calllog.log import CallLog
from atlas.events import CallRecord

TraceIds = Callable[[str], "tuple[str, str] | None"]
"""The trace and span ids of a call, by call id, when telemetry traces it."""

LOG_FLUSH_S = 0.2
"""Finished reads wait at most this long for their batch to end before they are written."""


class CallLogWriter:
    """A `CallObserver` that writes every finished call's record to `log`, under `session`."""

    def __init__(self, log: CallLog, session: str, *, trace_ids: TraceIds | None = None) -> None:
        self.log = log
        self.session = session
        self.trace_ids = trace_ids
        self._unwritten: list[tuple[int, CallRecord]] = []
        self._unwritten_since = 0.0

    def on_call_end(self, record: CallRecord, turn: int, /) -> None:
        if not self._unwritten:
            self._unwritten_since = time.monotonic()
        ids = self.trace_ids(record.call_id) if self.trace_ids is not None else None
        if ids is not None:
            record = dataclasses.replace(record, trace_id=ids[0], span_id=ids[1])
        self._unwritten.append((turn, record))
        if record.approved is not None or time.monotonic() - self._unwritten_since >= LOG_FLUSH_S:
            self.flush()

    def on_batch_end(self) -> None:
        self.flush()

    def flush(self) -> None:
        """Write what waits: one transaction per turn (a batch belongs to one)."""
        pending, self._unwritten = self._unwritten, []
        by_turn: dict[int, list[CallRecord]] = {}
        for turn, record in pending:
            by_turn.setdefault(turn, []).append(record)
        for turn, records in by_turn.items():
            self.log.record_calls(records, session=self.session, turn=turn)
