"""One question's budget and what it has read, as a value; and how a cancelled batch hands back its outputs.

`ToolExecutor.new_turn` makes a `Turn`; every `run_all` of that question takes it. The executor
keeps no per-question state of its own, so two questions never share a deadline or the
untrusted sources behind an approval by accident.
"""

from __future__ import annotations

import asyncio
import time
from dataclasses import dataclass, field
from typing import Any, NamedTuple

from atlas.protocol.deadline import QuestionDeadline
from atlas.protocol.events import CallRecord

MIN_BUDGET_S = 0.5
"""A call is not started when less than this is left of the question's budget."""


@dataclass
class Turn:
    """One question: its number, its deadline (None: none), the reserve kept for the answer, and
    what its calls have read and how they ended."""

    number: int = 0
    deadline: QuestionDeadline | None = None
    reserve_s: float = 0.0
    untrusted: list[str] = field(default_factory=list)
    """Where untrusted text read in this turn came from (`issue #92`), first read first."""
    records: list[CallRecord] = field(default_factory=list)
    """Every call of the turn, as each finished."""

    @classmethod
    def starting(cls, number: int, *, deadline: QuestionDeadline | None, answer_reserve_s: float) -> Turn:
        # The answer's reserve never eats more than a quarter of a short budget.
        budget = None if deadline is None else deadline.left_s()
        reserve = answer_reserve_s if budget is None else min(answer_reserve_s, max(0.0, budget) / 4)
        return cls(number=number, deadline=deadline, reserve_s=reserve)

    @property
    def untrusted_sources(self) -> list[str]:
        return list(self.untrusted)

    def add_sources(self, sources: list[str]) -> None:
        for source in sources:
            if source not in self.untrusted:
                self.untrusted.append(source)

    def timeout(self, own: float, now: float) -> float | None:
        """An attempt's time: `own` (what is left of the call's deadline) cut to the question's
        budget; None when too little of the budget is left."""
        if self.deadline is None:
            return own
        left = self.deadline.at - now - self.reserve_s
        return None if left < MIN_BUDGET_S else min(own, left)

    def has_time_for(self, own_timeout: float, wait_s: float, call_ends: float) -> bool:
        """Whether a retry after `wait_s` is worth starting: half the tool's deadline (at most
        MIN_BUDGET_S) still left of the call's, and MIN_BUDGET_S of the question's budget."""
        starts = time.monotonic() + wait_s
        if call_ends - starts < min(MIN_BUDGET_S, own_timeout / 2):
            return False
        return self.deadline is None or self.deadline.at - starts - self.reserve_s >= MIN_BUDGET_S


class BatchCancelled(asyncio.CancelledError):
    """`run_all` was cancelled (Ctrl-C): still a cancellation, carrying every call's output.

    `outputs` answers each call of the batch in request order (the unfinished ones `cancelled`),
    so a caller that keeps the conversation going appends them and re-raises. (Python 3.11's
    `asyncio.timeout` turns only a plain CancelledError into TimeoutError; `wait_for` takes this.)
    """

    def __init__(self, outputs: list[dict[str, Any]]) -> None:
        super().__init__("the batch of tool calls was cancelled")
        self.outputs = outputs


class Primitives(NamedTuple):
    """asyncio primitives bind to one event loop; a chat may run each turn in a new one."""

    loop: asyncio.AbstractEventLoop
    slots: asyncio.Semaphore
    approval: asyncio.Lock

    @classmethod
    def for_running_loop(cls, current: Primitives | None, max_concurrency: int) -> Primitives:
        """`current` when it belongs to the running loop, else new ones for it."""
        loop = asyncio.get_running_loop()
        if current is not None and current.loop is loop:
            return current
        return cls(loop, asyncio.Semaphore(max_concurrency), asyncio.Lock())
