"""`CallLog`: every tool call and every answered question, in SQLite at `$ATLAS_HOME/log.db`.

Writes never raise (see `store.py`); a batch of calls is one transaction.
"""

from __future__ import annotations

import json
import time
from collections.abc import Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any

from atlas.calllog.queries import Queries
from atlas.calllog.store import FILENAME
from atlas.protocol.events import CallRecord

if TYPE_CHECKING:
    from atlas.conversation.loop import TurnResult


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

    # -- reads ----------------------------------------------------------------------------


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
