"""Waiting for a model, made visible: the retry policy every adapter shares and what it reports.

An adapter wraps the request that opens a response in `with_retries`, telling it which failures
are worth another try (`judge`); Atlas, not the SDK, then waits between attempts, so each wait
can be shown (`asking gpt-6-luna 3 s`, `retrying in 2 s: 429 rate limited`). The waits
(`atlas.protocol.events.Asking`, `Retrying`, `Answering`) go to the listener the request was given, the
session's channel: the adapter reports `Answering` when the first data arrives. Nothing here
knows about terminals.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Generic, TypeVar

from atlas.protocol.deadline import QuestionDeadline
from atlas.protocol.events import Answering, Asking, Listener, Retrying

T = TypeVar("T")
U = TypeVar("U")
_JITTER = random.Random()
"""The backoff's own generator: never the process's global `random` state, which others may be drawing from."""


@dataclass(frozen=True)
class Retry:
    """A failure worth another attempt: why (for a person), and how long the server asked to wait."""

    reason: str
    retry_after_s: float | None = None


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to retry: the openai SDK's own defaults, made visible."""

    max_retries: int = 2
    initial_s: float = 0.5
    max_s: float = 8.0
    max_retry_after_s: float = 60.0
    """A server's `Retry-After` longer than this is not waited out (the backoff is used instead)."""

    def delay(self, retry: int, retry_after_s: float | None) -> float:
        """Seconds before retry number `retry` (0 first): `Retry-After` when sane, else backoff with jitter."""
        if retry_after_s is not None and 0 <= retry_after_s <= self.max_retry_after_s:
            return retry_after_s
        backoff: float = min(self.initial_s * 2.0**retry, self.max_s)
        return backoff * (1 - 0.25 * _JITTER.random())


class OutOfTime(Exception):
    """A model request ran past the question's deadline."""

    def __init__(self, deadline: QuestionDeadline) -> None:
        super().__init__("the question's deadline ran out while waiting for the model")
        self.deadline = deadline


@dataclass(frozen=True)
class Attempt(Generic[T]):
    """What an attempt opened; its stream is read within the same deadline (`within`)."""

    value: T
    deadline: QuestionDeadline | None

    async def within(self, work: Awaitable[U]) -> U:
        """`work` (reading the stream), cut at the question's deadline: `OutOfTime` then."""
        return await _by(self.deadline, work)


async def _by(deadline: QuestionDeadline | None, work: Awaitable[U]) -> U:
    if deadline is None:
        return await work
    try:
        async with asyncio.timeout(deadline.left_s()):
            return await work
    except TimeoutError:
        raise OutOfTime(deadline) from None


async def with_retries(
    request: Callable[[], Awaitable[T]],
    *,
    model: str,
    policy: RetryPolicy,
    judge: Callable[[Exception], Retry | None],
    events: Listener | None,
    deadline: QuestionDeadline | None,
) -> Attempt[T]:
    """`request()`, tried again after each failure `judge` calls retryable, at most `policy.max_retries` times.

    Each attempt and each wait between two is told to `events`.

    No attempt runs past `deadline` (the question's, handed down by the loop), and a wait that would
    end beyond it is not started: `OutOfTime`. The last failure (or one not worth retrying) is raised as it came, for
        the adapter to translate.
    """
    retry = 0
    while True:
        if events is not None:
            events(Asking(model, retry + 1))
        try:
            return Attempt(await _by(deadline, request()), deadline)
        except OutOfTime:
            if events is not None:
                events(Answering())
            raise
        except Exception as exc:
            verdict = judge(exc)
            delay = 0.0 if verdict is None else policy.delay(retry, verdict.retry_after_s)
            late = deadline is not None and time.monotonic() + delay >= deadline.at
            if verdict is None or retry >= policy.max_retries or late:
                if events is not None:
                    events(Answering())
                raise  # the server's own refusal says more than "out of time" would
            if events is not None:
                events(Retrying(delay, verdict.reason, retry + 1))
            await asyncio.sleep(delay)
            retry += 1
