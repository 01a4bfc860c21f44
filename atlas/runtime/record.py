"""An answered turn priced and written to the call log: what every answered question ends with."""

from __future__ import annotations

import dataclasses

from atlas.calllog import CallLog
from atlas.conversation.loop import TurnResult


def record_turn(
    call_log: CallLog | None, question: str, result: TurnResult, *, price_in: float, price_out: float
) -> TurnResult:
    """`result` with its cost (USD per million tokens in and out), after recording it (with a call
    log); never raises."""
    priced = dataclasses.replace(result, cost_usd=result.usage.cost_usd(price_in, price_out))
    if call_log is None:
        return priced
    call_log.record_turn(
        session=priced.session,
        turn=priced.turn,
        question=question,
        answer=priced.answer,
        model=priced.model,
        rounds=priced.rounds,
        input_tokens=priced.usage.input_tokens,
        output_tokens=priced.usage.output_tokens,
        cost_usd=priced.cost_usd,
        ms=priced.ms,
    )
    return priced
