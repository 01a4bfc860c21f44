"""`CallLog`: every tool call and every answered question, in SQLite at `$ATLAS_HOME/log.db`; and
`CallLogWriter`, the call log as a listener on the session's channel.

Writes never raise (see `store.py`); a batch of calls is one transaction. The writer hears a FINISHED
`CallEvent` (which carries the record and the turn) and `BatchEnded`, and ignores every other event.
Finished calls are written together (one transaction) when their batch ends, or at most `LOG_FLUSH_S`
after the first of them waits; an approved or denied side effect is written at once, before anything
else can happen to the process. Subscribed first, it writes a call before any display is told that the
call ended.
"""

from __future__ import annotations

import dataclasses
import json
import time
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas.calllog.queries import Queries
from atlas.calllog.store import FILENAME
from atlas.protocol.events import BatchEnded, CallEvent, CallRecord, Phase, SessionEvent

if TYPE_CHECKING:
    from atlas.conversation.loop import TurnResult

TraceIds = Callable[[str], "tuple[str, str] | None"]
"""The trace and span ids of a call, by call id, when telemetry traces it."""

LOG_FLUSH_S = 0.2
"""Finished reads wait at most this long for their batch to end before they are written."""


class CallLog(Queries):
    """The call log: writes here, reads in `Queries`, the connection in `Store`."""

    @classmethod
    def at_home(cls, home: Path | str) -> CallLog:
        return cls(Path(home) / FILENAME)

    def record_call(self, record: CallRecord, *, session: str, turn: int) -> None:
        """Log one finished call; never raises."""
        self.record_calls([record], session=session, turn=turn)

    def record_calls(self, records: Sequence[CallRecord], *, session: str, turn: int) -> None:
        """Log finished calls in one transaction (a batch of thousands costs one commit); never raises."""
        if not records:
            return
        self._write_safely(
            "INSERT INTO calls (ts, session, turn, round, position, call_id, name, arguments, kind, ms, attempts,"
            " message, approved, leaked_threads, trace_id, span_id, decided_by)"
            f" VALUES ({', '.join('?' * 17)})",
            [_call_row(record, session, turn) for record in records],
        )
        from atlas.calllog.shared import mirror_calls

        mirror_calls(self.path.parent, records, session=session, turn=turn)

    def record_turn(
        self,
        *,
        session: str,
        turn: int,
        question: str,
        answer: str,
        model: str,
        rounds: int,
        input_tokens: int = 0,
        output_tokens: int = 0,
        cost_usd: float = 0.0,
        ms: float = 0.0,
        ts: float | None = None,
    ) -> None:
        """Log one answered question; never raises."""
        ts = time.time() if ts is None else ts
        self._write_safely(
            "INSERT INTO turns (ts, session, turn, question, answer, model, rounds, input_tokens, output_tokens,"
            " cost_usd, ms) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
            [
                (
                    ts,
                    session,
                    turn,
                    question,
                    answer,
                    model,
                    rounds,
                    input_tokens,
                    output_tokens,
                    cost_usd,
                    ms,
                )
            ],
        )
        from atlas.calllog.shared import mirror_turn

        answered = {"ts": ts, "session": session, "turn": turn, "question": question, "answer": answer}
        mirror_turn(self.path.parent, answered)

    def record_answer(self, question: str, result: TurnResult) -> None:
        """Log one answered question, as the turn's (priced) result tells it; never raises."""
        self.record_turn(
            session=result.session,
            turn=result.turn,
            question=question,
            answer=result.answer,
            model=result.model,
            rounds=result.rounds,
            input_tokens=result.usage.input_tokens,
            output_tokens=result.usage.output_tokens,
            cost_usd=result.cost_usd,
            ms=result.ms,
        )


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


def _call_row(record: CallRecord, session: str, turn: int) -> tuple[Any, ...]:
    arguments = record.arguments if isinstance(record.arguments, str) else json.dumps(record.arguments, default=str)
    return (
        record.ts,
        session,
        turn,
        record.round,
        record.position,
        record.call_id,
        record.name,
        arguments,
        record.kind,
        record.ms,
        record.attempts,
        record.message,
        None if record.approved is None else int(record.approved),
        record.leaked_threads,
        record.trace_id,
        record.span_id,
        record.decided_by,
    )
