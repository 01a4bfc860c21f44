"""The wait for the model, as a user sees it: each retry, and a way out offline.

The real CLI and the real openai SDK against llmock on loopback. The live asking line, on a
pseudo-terminal, is watched in `tests/ui/test_terminal.py` within the same question whose answer
then streams.
"""

from __future__ import annotations

import os
import socket
import time
from typing import Any

from atlas.llm.wait import OutOfTime, Retry, RetryPolicy, with_retries
from atlas.protocol.deadline import QuestionDeadline
from atlas.protocol.events import Answering, Asking, Retrying
from tests.support.run import Run, invoke

MODEL = "gpt-6-luna"


def ask(*args: str, **env: str) -> Run:
    return invoke("ask", "--read-only", *args, env={**os.environ, **env})


def test_each_retry_is_a_line_on_stderr_and_the_answer_still_comes(llmock: Any) -> None:
    llmock.rate_limit(times=2, retry_after=1)
    llmock.reply("Answered after waiting.")
    done = ask("-m", MODEL, "hello")
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "Answered after waiting."
    assert done.stderr.count("retrying in 1 s: 429 rate limited") == 2
    assert [record.status for record in llmock.requests] == [429, 429, 200]


def test_a_server_that_is_not_there_suggests_offline() -> None:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        url = f"http://127.0.0.1:{probe.getsockname()[1]}/v1"
    done = ask("-m", MODEL, "hello", OPENAI_API_KEY="k", OPENAI_BASE_URL=url)
    assert done.returncode == 1
    assert done.stderr.count(": connection failed") == 2  # both retries shown before giving up
    error = done.stderr.splitlines()[-1]
    assert error.startswith(f"atlas: error: could not reach {url}") and error.endswith("use --model offline)")


async def _flaky(failures: list[Exception], answer: str) -> str:
    if failures:
        raise failures.pop(0)
    return answer


def test_the_policy_honours_retry_after_and_reports_every_wait() -> None:
    import asyncio

    seen: list[Any] = []
    failures: list[Exception] = [TimeoutError("slow"), TimeoutError("slow")]
    started = time.monotonic()
    result = asyncio.run(
        with_retries(
            lambda: _flaky(failures, "ok"),
            model=MODEL,
            policy=RetryPolicy(max_retries=2),
            judge=lambda exc: Retry("no answer in time", retry_after_s=0.2),
            events=seen.append,
            deadline=None,
        )
    )
    assert result.value == "ok" and time.monotonic() - started >= 0.4
    assert [type(event) for event in seen] == [Asking, Retrying, Asking, Retrying, Asking]
    assert [event.attempt for event in seen if isinstance(event, Asking)] == [1, 2, 3]
    # A Retry-After beyond a minute is not waited out: the backoff is used instead.
    assert RetryPolicy().delay(0, 3600) <= 0.5 and RetryPolicy().delay(3, None) <= 4.0


def test_the_deadline_handed_to_a_request_ends_it_and_starts_no_wait_past_it() -> None:
    import asyncio

    async def hangs() -> str:
        await asyncio.sleep(30)
        return "late"

    seen: list[Any] = []
    started = time.monotonic()
    deadline = QuestionDeadline(started + 0.2, 0.2)
    try:
        asyncio.run(
            with_retries(
                hangs, model=MODEL, policy=RetryPolicy(), judge=lambda exc: None, events=seen.append, deadline=deadline
            )
        )
        raise AssertionError("the request outlived its deadline")
    except OutOfTime as out:
        assert out.deadline is deadline
    assert time.monotonic() - started < 5
    assert [type(event) for event in seen] == [Asking, Answering]
    # A retry whose wait would end past the deadline is not waited for: the failure comes as it was.
    failures: list[Exception] = [ConnectionError("dropped")]
    soon = QuestionDeadline(time.monotonic() + 0.5, 0.5)
    try:
        asyncio.run(
            with_retries(
                lambda: _flaky(failures, "ok"),
                model=MODEL,
                policy=RetryPolicy(),
                judge=lambda exc: Retry("dropped", retry_after_s=5),
                events=None,
                deadline=soon,
            )
        )
        raise AssertionError("a wait past the deadline was started")
    except ConnectionError as exc:
        assert str(exc) == "dropped"
