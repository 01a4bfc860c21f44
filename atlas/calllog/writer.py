"""The call log as a listener on the session's channel: each finished call's record, written a batch at a time.

It hears a FINISHED `CallEvent` (which carries the record and the turn) and `BatchEnded`, and
ignores every other event. Finished calls are written together (one transaction) when their
batch ends, or at most `LOG_FLUSH_S` after the first of them waits; an approved or denied side
effect is written at once, before anything else can happen to the process. Subscribed first, it
writes a call before any display is told that the call ended.
"""

from __future__ import annotations

import dataclasses
import time
from collections.abc import Callable

from atlas.calllog.log import CallLog
from atlas.protocol.events import BatchEnded, CallEvent, CallRecord, Phase, SessionEvent

TraceIds = Callable[[str], "tuple[str, str] | None"]
"""The trace and span ids of a call, by call id, when telemetry traces it."""

LOG_FLUSH_S = 0.2
"""Finished reads wait at most this long for their batch to end before they are written."""


class CallLogWriter:
    """A `Listener` that writes every finished call's record to `log`, under `session`."""

    ends_only = True
    """It needs only FINISHED calls and the ends of batches: the executor need not build the rest for it."""

    def __init__(self, log: CallLog, session: str, *, trace_ids: TraceIds | None = None) -> None:
        self.log = log
        self.session = session
        self.trace_ids = trace_ids
        self._unwritten: list[tuple[int, CallRecord]] = []
        self._unwritten_since = 0.0

    def __call__(self, event: SessionEvent, /) -> None:
        if isinstance(event, CallEvent):
            if event.phase is Phase.FINISHED and event.record is not None:
                self.call_ended(event.record, event.turn)
        elif isinstance(event, BatchEnded):
            self.flush()

    def call_ended(self, record: CallRecord, turn: int) -> None:
        if not self._unwritten:
            self._unwritten_since = time.monotonic()
        ids = self.trace_ids(record.call_id) if self.trace_ids is not None else None
        if ids is not None:
            record = dataclasses.replace(record, trace_id=ids[0], span_id=ids[1])
        self._unwritten.append((turn, record))
        if record.approved is not None or time.monotonic() - self._unwritten_since >= LOG_FLUSH_S:
            self.flush()

    def flush(self) -> None:
        """Write what waits: one transaction per turn (a batch belongs to one)."""
        pending, self._unwritten = self._unwritten, []
        by_turn: dict[int, list[CallRecord]] = {}
        for turn, record in pending:
            by_turn.setdefault(turn, []).append(record)
        for turn, records in by_turn.items():
            self.log.record_calls(records, session=self.session, turn=turn)
