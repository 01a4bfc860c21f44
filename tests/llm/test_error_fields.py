"""Model errors carry their fields (model, base URL, HTTP status, Retry-After) beside their text.

Through the real openai SDK against llmock on loopback, as a program catching them would meet them.
"""

from __future__ import annotations

import asyncio
import socket
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime
from typing import Any

import pytest

from atlas.conversation.loop import INSTRUCTIONS
from atlas.foundation.errors import (
    ModelAuthError,
    ModelConnectionError,
    ModelError,
    ModelNotFoundError,
    ModelProtocolError,
    RateLimitedError,
)
from atlas.llm.chat_completions import ChatCompletionsModel
from atlas.llm.openai import OpenAIModel
from atlas.llm.openai_client import client_endpoint, retry_after_s
from tests.llm.asking import QUESTION

MODEL = "gpt-6-luna"


def raised(model: OpenAIModel | ChatCompletionsModel, expected: type[ModelError]) -> ModelError:
    with pytest.raises(expected) as caught:
        asyncio.run(model.respond(INSTRUCTIONS, QUESTION, ()))
    return caught.value


def test_rate_limited_carries_the_status_and_the_wait_the_server_asked(llmock: Any) -> None:
    llmock.rate_limit(times=3, retry_after=0.05)
    error = raised(OpenAIModel(MODEL), RateLimitedError)
    assert (error.status, error.retry_after) == (429, 0.05)
    assert (error.model, error.url) == (MODEL, llmock.base_url("openai"))
    assert str(error).startswith(f"rate limited by {llmock.base_url('openai')} (429), still after 2 retries")


@pytest.mark.parametrize("status", [401, 403])
def test_a_refused_key_carries_its_status_and_no_wait(llmock: Any, status: int) -> None:
    llmock.fail(status)
    error = raised(OpenAIModel(MODEL), ModelAuthError)
    assert (error.status, error.retry_after, error.url, error.model) == (status, None, llmock.base_url("openai"), MODEL)


def test_an_unknown_model_carries_404_and_its_name(llmock: Any) -> None:
    llmock.fail(404)
    error = raised(OpenAIModel("gpt-9-nope"), ModelNotFoundError)
    assert (error.status, error.model) == (404, "gpt-9-nope")


def test_a_server_error_carries_its_status_and_retry_after(llmock: Any) -> None:
    llmock.fail(503, message="The engine is overloaded.", times=None, retry_after=7)
    error = raised(OpenAIModel(MODEL, max_retries=0), ModelError)
    assert type(error) is ModelError
    assert (error.status, error.retry_after) == (503, 7.0)
    assert str(error) == f"{llmock.base_url('openai')} answered 503: The engine is overloaded."


def test_the_chat_adapter_fills_the_same_fields(llmock: Any) -> None:
    llmock.rate_limit(times=3, retry_after=0.05)
    error = raised(ChatCompletionsModel(MODEL), RateLimitedError)
    assert (error.status, error.retry_after, error.model, error.url) == (429, 0.05, MODEL, llmock.base_url("openai"))


def test_errors_without_a_response_have_no_status(llmock: Any) -> None:
    llmock.truncate(after_chunks=4)
    broken = raised(OpenAIModel(MODEL), ModelProtocolError)
    assert (broken.status, broken.retry_after, broken.model, broken.url) == (
        None,
        None,
        MODEL,
        llmock.base_url("openai"),
    )


def test_a_refused_connection_carries_the_base_url() -> None:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        port = sock.getsockname()[1]  # closed again before the request: nothing listens there
    url = f"http://127.0.0.1:{port}/v1"
    error = raised(OpenAIModel(MODEL, api_key="k", base_url=url, max_retries=0), ModelConnectionError)
    assert (error.url, error.status, error.model) == (url, None, MODEL)


def test_no_key_names_the_url_it_was_needed_for(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.delenv("ATLAS_BASE_URL", raising=False)
    monkeypatch.delenv("OPENAI_BASE_URL", raising=False)
    with pytest.raises(ModelAuthError) as caught:
        client_endpoint()
    assert (caught.value.url, caught.value.status) == ("https://api.openai.com/v1", None)


def test_retry_after_reads_milliseconds_seconds_and_dates_and_ignores_nonsense() -> None:
    assert retry_after_s({"retry-after-ms": "250", "retry-after": "1"}) == 0.25
    assert retry_after_s({"retry-after": "12"}) == 12.0
    later = format_datetime(datetime.now(UTC) + timedelta(seconds=30), usegmt=True)
    wait = retry_after_s({"retry-after": later})
    assert wait is not None and 25 < wait <= 30
    assert retry_after_s({"retry-after": "soon"}) is None
    assert retry_after_s({"retry-after": "-5"}) == 0.0
    assert retry_after_s({}) is None
