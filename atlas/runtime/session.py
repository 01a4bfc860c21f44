"""A session: the parts a run answers with, and its one way to answer a question (trace, run, record).

`atlas ask` and `atlas chat` answer through `Session.answer`. A `Session` is a `CallSession`
(`calls.py`: the tools, the call log, the channel and the executor) with settings and a model; the
host's calls of `atlas mcp serve` and a plan's items run through a `CallSession` without one.
"""

from __future__ import annotations

import asyncio
import contextlib
import dataclasses
from collections.abc import Iterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from atlas.calllog import CallLog
from atlas.conversation.loop import TurnResult, TurnSettings, run_turn, start_turn
from atlas.executor.turn import Turn
from atlas.foundation.config import OFFLINE_MODEL, Settings
from atlas.llm import Model
from atlas.mcp.offer import with_mcp_tools
from atlas.runtime.calls import CallSession, SessionOptions, session_events
from atlas.runtime.record import record_turn
from atlas.runtime.runner import run_cancellable

if TYPE_CHECKING:
    from atlas.telemetry.tracing import QuestionTrace

__all__ = ["MIN_DEADLINE_S", "Session", "SessionOptions", "session_events"]

MIN_DEADLINE_S = 0.05
"""What a question keeps of its deadline when starting its servers took all of it: enough to answer at once."""


@dataclass(kw_only=True)
class Session(CallSession):
    """A `CallSession` with the run's settings and model; `answer` answers one question."""

    settings: Settings
    model: Model
    call_log: CallLog
    """Every question's calls and answer are written there."""
    rule_count: int = 0
    """How many of its rules apply (the header says so)."""
    mcp_start_s: float = 0.0
    """Seconds spent starting MCP servers before the first question (it counts against `--deadline`)."""
    mcp_loaded: bool = True
    """False while the offline planner, which calls no MCP tool, means no server was started."""

    def use_model(self, model: Model) -> None:
        """Questions go to `model` from now on; the first model that can call MCP tools starts the servers."""
        self.model = model
        if not self.mcp_loaded and model.name != OFFLINE_MODEL:
            self.tools = with_mcp_tools(self.tools, self.settings.home)
            self.mcp_loaded = True

    def start_turn(self, number: int, settings: TurnSettings) -> Turn:
        """Question `number`'s budget and what it will read, from now: its `--deadline` less what
        starting the MCP servers took (the option bounds it all)."""
        seconds = settings.deadline_s
        if seconds is not None and self.mcp_start_s:
            settings = dataclasses.replace(settings, deadline_s=max(MIN_DEADLINE_S, seconds - self.mcp_start_s))
        return start_turn(self.executor, number, settings)

    def answer(
        self,
        question: str,
        history: list[dict[str, Any]],
        settings: TurnSettings,
        *,
        turn: Turn | None = None,
        model: Model | None = None,
        loop: asyncio.AbstractEventLoop | None = None,
    ) -> TurnResult:
        """Answer `question` in its span: run the turn (Ctrl-C cancels it), then price and record it.

        `turn` (from `start_turn`) when the caller keeps it; question 1, started now, when None."""
        turn = turn if turn is not None else self.start_turn(1, settings)
        coro = run_turn(
            question,
            history,
            model=model or self.model,
            executor=self.executor,
            session=self.id,
            turn=turn,
            settings=settings,
            events=self.channel,
        )
        with self._traced_question(question, turn.number) as trace:
            result = run_cancellable(coro, loop)
            result = record_turn(
                self.call_log, question, result, price_in=self.settings.price_in, price_out=self.settings.price_out
            )
            if trace is not None:
                trace.finish(result)
        return result

    @contextlib.contextmanager
    def _traced_question(self, question: str, turn: int) -> Iterator[QuestionTrace | None]:
        """The question's span around the block (nothing when telemetry is off)."""
        if self.telemetry is None:
            yield None
            return
        with self.telemetry.question(session=self.id, turn=turn, model=self.model.name, text=question) as trace:
            yield trace
