"""A server's refusals and a stream's failures, one behaviour of both streamed adapters
(`llm/streamed.py`): each is one line of the error kind it is, whichever API the model speaks."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

from atlas.foundation.errors import (
    ModelAuthError,
    ModelConnectionError,
    ModelError,
    ModelProtocolError,
    RateLimitedError,
)
from atlas.llm.adapter import ModelAdapter
from atlas.llm.chat_completions import ChatCompletionsModel
from atlas.llm.openai import OpenAIModel
from atlas.tools.registry import Registry
from tests.llm.asking import ask, failure

ADAPTERS: dict[str, Callable[..., ModelAdapter]] = {
    "responses": lambda **options: OpenAIModel("gpt-6-luna", **options),
    "chat": lambda **options: ChatCompletionsModel("qwen2.5-7b-instruct", **options),
}
TRUNCATED = {"responses": ("ended early",), "chat": ("ended early", "finish reason")}
"""What a cut stream's message says: the chat API also names the finish reason that never came."""


@pytest.fixture(params=sorted(ADAPTERS))
def api(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def test_rate_limited_twice_then_answered(llmock: Any, api: str) -> None:
    llmock.rate_limit(times=2, retry_after=0.05)
    llmock.reply("Answered after waiting.")
    assert ask(ADAPTERS[api](), Registry()).text == "Answered after waiting."
    assert [record.status for record in llmock.requests] == [429, 429, 200]
    llmock.assert_resilient()


def test_rate_limited_beyond_the_retries(llmock: Any, api: str) -> None:
    llmock.rate_limit(times=3, retry_after=0.05)
    message = failure(ADAPTERS[api](), RateLimitedError)
    assert "rate limited" in message and "(429)" in message and len(llmock.requests) == 3


@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_key_is_an_auth_error_without_retries(llmock: Any, api: str, status: int) -> None:
    llmock.fail(status)
    message = failure(ADAPTERS[api](), ModelAuthError)
    assert f"({status})" in message and llmock.base_url("openai") in message and len(llmock.requests) == 1


def test_a_server_error_gives_status_and_message(llmock: Any, api: str) -> None:
    llmock.fail(500, message="The engine is overloaded.", times=None)
    message = failure(ADAPTERS[api](max_retries=0), ModelError)
    assert "answered 500" in message and "The engine is overloaded." in message


def test_a_dropped_connection_mid_stream(llmock: Any, api: str) -> None:
    llmock.disconnect(after_chunks=4)
    message = failure(ADAPTERS[api](), ModelConnectionError)
    assert "dropped" in message and llmock.base_url("openai") in message


def test_a_truncated_stream_is_not_taken_for_an_answer(llmock: Any, api: str) -> None:
    llmock.truncate(after_chunks=4)
    message = failure(ADAPTERS[api](), ModelProtocolError)
    assert all(words in message for words in TRUNCATED[api]), message


def test_a_malformed_chunk(llmock: Any, api: str) -> None:
    llmock.corrupt(after_chunks=3)
    assert "malformed chunk" in failure(ADAPTERS[api](), ModelProtocolError)
