"""Waiting for a model, made visible: the retry policy every adapter shares and what it reports.

An adapter wraps the request that opens a response in `with_retries`, telling it which failures
are worth another try (`judge`); Atlas, not the SDK, then waits between attempts, so each wait
can be shown (`asking gpt-6-luna 3 s`, `retrying in 2 s: 429 rate limited`). The adapter
reports `Answering` when the first data arrives. The sink is set on the model by whoever draws
the screen (`watch`): nothing here knows about terminals.
"""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Protocol, TypeVar, runtime_checkable

T = TypeVar("T")


@dataclass(frozen=True)
class Asking:
    """A request to the model has been sent (`attempt` 1 is the first) and nothing has come back yet."""

    model: str
    attempt: int
    since: float = field(default_factory=time.monotonic)


@dataclass(frozen=True)
class Retrying:
    """The last attempt failed for `reason`; the next one starts in `delay_s` seconds."""

    delay_s: float
    reason: str
    attempt: int


@dataclass(frozen=True)
class Answering:
    """The model's response has begun (or the request has ended): nothing to wait for any more."""


WaitEvent = Asking | Retrying | Answering
WaitSink = Callable[[WaitEvent], None]


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
        return backoff * (1 - 0.25 * random.random())


@runtime_checkable
class Watchable(Protocol):
    """A model that reports its waits (the OpenAI adapters)."""

    on_wait: WaitSink | None


def watch(model: object, sink: WaitSink | None) -> None:
    """Send `model`'s waits to `sink`, when it reports any (offline and replay models do not wait)."""
    if isinstance(model, Watchable):
        model.on_wait = sink


async def with_retries(
    request: Callable[[], Awaitable[T]],
    *,
    model: str,
    policy: RetryPolicy,
    judge: Callable[[Exception], Retry | None],
    on_wait: WaitSink | None,
) -> T:
    """`request()`, tried again after each failure `judge` calls retryable, at most `policy.max_retries` times.

    The last failure (or one not worth retrying) is raised as it came, for the adapter to translate.
    """
    retry = 0
    while True:
        if on_wait is not None:
            on_wait(Asking(model, retry + 1))
        try:
            return await request()
        except Exception as exc:
            verdict = judge(exc)
            if verdict is None or retry >= policy.max_retries:
                if on_wait is not None:
                    on_wait(Answering())
                raise
            delay = policy.delay(retry, verdict.retry_after_s)
            if on_wait is not None:
                on_wait(Retrying(delay, verdict.reason, retry + 1))
            await asyncio.sleep(delay)
            retry += 1
